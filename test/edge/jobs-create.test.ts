import { describe, expect, it } from "vitest";
import {
  admin,
  balance,
  claim,
  createJob,
  createWorkspace,
  expectError,
  expectStandardHeaders,
  fixtureUrl,
  getJob,
  internal,
  postJson,
  uploadFixture,
} from "./helpers";

describe("POST /v1/jobs from an upload", () => {
  it("reads the video, reserves its credits and answers 201 with the Job", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(api_key, "clip.mp4");
    const response = await postJson("/v1/jobs", api_key, {
      upload_id: upload.id,
      metadata: { campaign: "spring" },
      texts: ["SALE 50% OFF"],
    });
    expect(response.status).toBe(201);
    expectStandardHeaders(response);
    const job = await response.json<Record<string, unknown>>();
    expect(job).toMatchObject({
      id: expect.stringMatching(/^job_[0-9A-Za-z]{24}$/),
      object: "job",
      status: "queued",
      stage: "queued",
      progress: 0,
      source: "api",
      input: { filename: "clip.mp4", width: 320, height: 240 },
      credits: 25,
      credits_refunded: false,
      result: null,
      error: null,
      metadata: { campaign: "spring" },
      started_at: null,
      finished_at: null,
    });
    const input = job.input as { duration_seconds: number; size_bytes: number };
    expect(input.duration_seconds).toBeCloseTo(2, 1);
    expect(input.size_bytes).toBeGreaterThan(1000);
    expect(await balance(api_key)).toEqual({ plan: 975, pack: 0, total: 975 });
    const got = await (await postJson("/v1/jobs", api_key, { upload_id: upload.id })).json();
    expect(got).toMatchObject({ error: { code: "upload_already_used", param: "upload_id" } });
    expect(await balance(api_key)).toEqual({ plan: 975, pack: 0, total: 975 });
  });

  it("spends plan credits first, then pack credits", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 10, pack_credits: 100 });
    await createJob(api_key, { upload_id: (await uploadFixture(api_key, "clip.mov")).id });
    expect(await balance(api_key)).toEqual({ plan: 0, pack: 85, total: 85 });
  });

  it("answers 404 for an unknown upload and for another workspace's upload", async () => {
    const mine = await createWorkspace();
    const theirs = await createWorkspace();
    const theirUpload = await uploadFixture(theirs.api_key, "clip.mp4");
    for (const uploadId of ["up_doesnotexist", theirUpload.id]) {
      const error = await expectError(
        await postJson("/v1/jobs", mine.api_key, { upload_id: uploadId }),
        404,
        "upload_not_found",
      );
      expect(error.error.param).toBe("upload_id");
    }
  });

  it("answers 409 upload_incomplete while the file has not arrived, charging nothing", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 500 });
    const upload = await uploadFixture(api_key, "clip.mp4", false);
    const error = await expectError(
      await postJson("/v1/jobs", api_key, { upload_id: upload.id }),
      409,
      "upload_incomplete",
    );
    expect(error.error.type).toBe("conflict_error");
    expect((await balance(api_key)).total).toBe(500);
  });

  it("takes a video of exactly 15 minutes (900 s), the longest allowed; 901 s is refused below", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 5000 });
    const upload = await uploadFixture(api_key, "fifteen-minutes.mp4");
    const job = await createJob(api_key, { upload_id: upload.id });
    expect(job).toMatchObject({ input: { duration_seconds: 900 }, credits: 2250 });
  });

  it("takes a video_url of exactly 2,000,000,000 bytes and refuses one byte more with 413", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const atLimit = await createJob(api_key, { video_url: fixtureUrl("faststart.mp4", "claims/2000000000") });
    expect(atLimit.input.size_bytes).toBe(2_000_000_000);
    await expectError(
      await postJson("/v1/jobs", api_key, { video_url: fixtureUrl("faststart.mp4", "claims/2000000001") }),
      413,
      "video_too_large",
    );
    expect((await balance(api_key)).total).toBe(1000 - atLimit.credits);
  });

  it.each([
    ["not-a-video.mp4", 422, "unsupported_format"],
    ["truncated.mp4", 422, "unreadable_video"],
    ["too-long.mp4", 422, "video_too_long"],
    ["too-wide.mp4", 422, "resolution_too_high"],
  ])("refuses %s with %i %s before any credit moves", async (name, status, code) => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 5000 });
    const upload = await uploadFixture(api_key, name);
    const error = await expectError(
      await postJson("/v1/jobs", api_key, { upload_id: upload.id }),
      status,
      code,
    );
    expect(error.error.type).toBe("invalid_request_error");
    expect((await balance(api_key)).total).toBe(5000);
  });

  it("answers 402 insufficient_credits and leaves the balance alone", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 20 });
    const upload = await uploadFixture(api_key, "clip.mp4");
    const headers = { "Idempotency-Key": "needs-credits" };
    const refused = await postJson("/v1/jobs", api_key, { upload_id: upload.id }, headers);
    const error = await expectError(refused, 402, "insufficient_credits");
    expect(error.error.type).toBe("billing_error");
    expect((await balance(api_key)).total).toBe(20);
    // Errors are not kept for an Idempotency-Key: after a top-up the same request goes through.
    await admin(`/workspaces/${workspace_id}/credits`, "POST", { pack: 10 });
    const retried = await postJson("/v1/jobs", api_key, { upload_id: upload.id }, headers);
    expect(retried.status).toBe(201);
    expect((await balance(api_key)).total).toBe(5);
  });
});

describe("POST /v1/jobs validation", () => {
  const url = "http://127.0.0.1:1/a.mp4";
  it.each([
    [{}, "upload_id"],
    [{ upload_id: "up_a", video_url: url }, "video_url"],
    [{ video_url: url, filename: "x".repeat(201) }, "filename"],
    [{ video_url: url, texts: Array.from({ length: 501 }, () => "t") }, "texts"],
    [{ video_url: url, texts: ["x".repeat(501)] }, "texts.0"],
    [{ video_url: url, texts: "not an array" }, "texts"],
    [
      { video_url: url, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) },
      "metadata",
    ],
    [{ video_url: url, metadata: { k: "v".repeat(501) } }, "metadata.k"],
    [{ video_url: url, metadata: { k: 5 } }, "metadata.k"],
    [{ video_url: "not a url" }, "video_url"],
    [{ video_url: "http://127.0.0.1:1/a%ff.mp4" }, "video_url"],
    [{ video_url: url, metadata: { ["k".repeat(41)]: "v" } }, `metadata.${"k".repeat(41)}`],
    [{ video_url: url, surprise: 1 }, ""],
  ])("refuses %j with 400 invalid_parameter naming %j", async (body, param) => {
    const { api_key } = await createWorkspace();
    const error = await expectError(await postJson("/v1/jobs", api_key, body), 400, "invalid_parameter");
    if (param) expect(error.error.param).toBe(param);
  });
});

describe("POST /v1/jobs with texts: []", () => {
  it("is refused, charging nothing: an empty list would be a charged job that erases nothing", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const error = await expectError(
      await postJson("/v1/jobs", api_key, { video_url: fixtureUrl("clip.mp4"), texts: [] }),
      400,
      "invalid_parameter",
    );
    expect(error.error).toMatchObject({ param: "texts", message: expect.stringContaining("leave it out") });
    expect((await balance(api_key)).total).toBe(1000);
  });
});

describe("POST /v1/jobs from a video_url", () => {
  it.each(["clip.mp4", "faststart.mp4", "clip.mov"])("reads %s with range requests", async (name) => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl(name) });
    expect(job.input).toMatchObject({ filename: name, width: 320, height: 240 });
    expect(job.input.duration_seconds).toBeCloseTo(2, 1);
    expect(job.credits).toBe(25);
  });

  it("prices a file by the longest of its clocks: 60 s of frames whose mvhd says 1 s cost 60 s", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("mvhd-says-1s.mp4") });
    expect(job.input.duration_seconds).toBeCloseTo(60, 1);
    expect(job.credits).toBe(150);
  });

  it("judges the resolution limit on the coded size: 4096x2304 frames shown at 640x360 are refused", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const response = await postJson("/v1/jobs", api_key, { video_url: fixtureUrl("tkhd-says-640x360.mp4") });
    await expectError(response, 422, "resolution_too_high");
    expect((await balance(api_key)).total).toBe(1000);
  });

  it("a server that probes as 2 s and sends 60 s: priced at 2 s, the worker's limit_exceeded returns every credit", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, {
      video_url: fixtureUrl("clip.mp4/mvhd-says-1s.mp4", "switch"),
    });
    expect(job.credits).toBe(25);
    expect((await balance(api_key)).total).toBe(975);
    // What the worker reports once its own probe of the download finds 60 s (test/gpu-worker/priced-input.test.ts).
    expect((await claim(job.id)).status).toBe(200);
    const failed = await internal(`/jobs/${job.id}/complete`, {
      worker_id: "w1",
      outcome: "failed",
      code: "limit_exceeded",
      message: "The file downloaded plays 60.0 s, longer than the 2.0 s it was priced at.",
    });
    expect(failed.status).toBe(200);
    expect(await getJob(api_key, job.id)).toMatchObject({
      status: "failed",
      credits_refunded: true,
      error: { code: "limit_exceeded" },
    });
    expect((await balance(api_key)).total).toBe(1000);
  });

  it("reads a video whose server drops the first connection (a network blip is not an unreadable video)", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, { video_url: fixtureUrl("clip.mp4", "reset-once") });
    expect(job.status).toBe("queued");
  });

  it("follows redirects (checking each hop) and keeps a given filename", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const job = await createJob(api_key, {
      video_url: fixtureUrl("clip.mp4", "redirect/3"),
      filename: "hook.mp4",
    });
    expect(job.input.filename).toBe("hook.mp4");
  });

  it.each([
    ["a server that ignores Range", fixtureUrl("clip.mp4", "norange"), 422, "unreadable_video"],
    ["a 404", fixtureUrl("404", "status"), 422, "unreadable_video"],
    ["a 3 GB file", fixtureUrl("x", "huge"), 413, "video_too_large"],
    ["too many redirects", fixtureUrl("clip.mp4", "redirect/6"), 422, "url_not_allowed"],
    ["the metadata address", "http://169.254.169.254/latest/meta-data", 422, "url_not_allowed"],
    [
      "a redirect to the metadata address",
      `${fixtureUrl("x", "redirect-to").replace("/x", "")}?url=http://169.254.169.254/`,
      422,
      "url_not_allowed",
    ],
    ["a private address", "http://10.0.0.1/a.mp4", 422, "url_not_allowed"],
    ["the metadata address in decimal", "http://2852039166/a.mp4", 422, "url_not_allowed"],
    ["the metadata address in hex", "http://0xA9FEA9FE/a.mp4", 422, "url_not_allowed"],
    ["the metadata address IPv4-mapped", "http://[::ffff:169.254.169.254]/a.mp4", 422, "url_not_allowed"],
    ["a CGNAT address", "http://100.64.0.1/a.mp4", 422, "url_not_allowed"],
    [
      "a redirect to the metadata address in octal",
      `${fixtureUrl("x", "redirect-to").replace("/x", "")}?url=http://0251.0376.0251.0376/`,
      422,
      "url_not_allowed",
    ],
    ["ftp", "ftp://127.0.0.1/a.mp4", 422, "url_not_allowed"],
    ["credentials in the URL", "http://user:pw@127.0.0.1/a.mp4", 422, "url_not_allowed"],
  ])("refuses %s", async (_name, videoUrl, status, code) => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const error = await expectError(
      await postJson("/v1/jobs", api_key, { video_url: videoUrl }),
      status,
      code,
    );
    expect((await balance(api_key)).total).toBe(1000);
    if (code === "url_not_allowed") expect(error.error.param).toBe("video_url");
  });
});
