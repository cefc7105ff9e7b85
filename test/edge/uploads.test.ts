import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { localSignedStorage } from "../../edge/storage/local-signed";
import {
  createJob,
  createWorkspace,
  expectError,
  expectStandardHeaders,
  fixtureBytes,
  postJson,
  uploadFixture,
} from "./helpers";

const valid = { filename: "ad.mp4", content_type: "video/mp4", size_bytes: 1000 };

describe("POST /v1/uploads", () => {
  it("answers 201 with an Upload: up_ id, PUT, headers and a one-hour window", async () => {
    const { api_key } = await createWorkspace();
    const response = await postJson("/v1/uploads", api_key, valid);
    expect(response.status).toBe(201);
    expectStandardHeaders(response);
    const upload = await response.json<Record<string, unknown>>();
    expect(upload).toMatchObject({
      id: expect.stringMatching(/^up_[0-9A-Za-z]{24}$/),
      object: "upload",
      upload_url: expect.stringMatching(/^http/),
      method: "PUT",
      headers: { "Content-Type": "video/mp4" },
    });
    const window = Date.parse(upload.expires_at as string) - Date.now();
    expect(window).toBeGreaterThan(59 * 60_000);
    expect(window).toBeLessThanOrEqual(60 * 60_000);
  });

  it.each([
    [{ ...valid, filename: undefined }, "filename"],
    [{ ...valid, filename: "" }, "filename"],
    [{ ...valid, filename: "x".repeat(201) }, "filename"],
    [{ ...valid, content_type: "video/webm" }, "content_type"],
    [{ ...valid, size_bytes: 0 }, "size_bytes"],
    [{ ...valid, size_bytes: 1.5 }, "size_bytes"],
    [{ ...valid, size_bytes: "1000" }, "size_bytes"],
    [{ ...valid, extra: true }, ""],
  ])("refuses %j with 400 invalid_parameter naming %s", async (body, param) => {
    const { api_key } = await createWorkspace();
    const error = await expectError(await postJson("/v1/uploads", api_key, body), 400, "invalid_parameter");
    if (param) expect(error.error.param).toBe(param);
  });

  it("refuses files over 2 GB with 413 video_too_large and accepts exactly 2 GB", async () => {
    const { api_key } = await createWorkspace();
    const over = await postJson("/v1/uploads", api_key, { ...valid, size_bytes: 2_000_000_001 });
    const error = await expectError(over, 413, "video_too_large");
    expect(error.error.param).toBe("size_bytes");
    expect((await postJson("/v1/uploads", api_key, { ...valid, size_bytes: 2_000_000_000 })).status).toBe(
      201,
    );
  });

  it("takes video/x-m4v, the spec's third type: the PUT with that type is stored and a job is made from it", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(api_key, "clip.mp4", true, "video/x-m4v");
    expect(upload.headers["Content-Type"]).toBe("video/x-m4v");
    const job = await createJob(api_key, { upload_id: upload.id });
    expect(job).toMatchObject({ status: "queued", input: { filename: "clip.mp4" } });
  });

  it("refuses a body that is not JSON with 400 invalid_json", async () => {
    const { api_key } = await createWorkspace();
    const response = await SELF.fetch("http://edge.test/v1/uploads", {
      method: "POST",
      headers: { Authorization: `Bearer ${api_key}`, "Content-Type": "application/json" },
      body: "{nope",
    });
    await expectError(response, 400, "invalid_json");
  });

  it("replays an Idempotency-Key with the same body and refuses it with another", async () => {
    const { api_key } = await createWorkspace();
    const headers = { "Idempotency-Key": "upload-1" };
    const first = await postJson("/v1/uploads", api_key, valid, headers);
    const again = await postJson(
      "/v1/uploads",
      api_key,
      { size_bytes: 1000, content_type: "video/mp4", filename: "ad.mp4" },
      headers,
    );
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect((await again.json<{ id: string }>()).id).toBe((await first.json<{ id: string }>()).id);
    const other = await postJson("/v1/uploads", api_key, { ...valid, size_bytes: 2000 }, headers);
    await expectError(other, 409, "idempotency_conflict");
    const tooLong = await postJson("/v1/uploads", api_key, valid, { "Idempotency-Key": "k".repeat(256) });
    expect((await expectError(tooLong, 400, "invalid_parameter")).error.param).toBe("Idempotency-Key");
  });
});

describe("PUT to the upload URL (local mode)", () => {
  it("stores the file once; a second PUT is refused", async () => {
    const { api_key, workspace_id } = await createWorkspace();
    const upload = await uploadFixture(api_key, "clip.mp4");
    const bytes = await fixtureBytes("clip.mp4");
    const again = await SELF.fetch(upload.upload_url, {
      method: "PUT",
      headers: upload.headers,
      body: bytes,
    });
    await expectError(again, 409, "upload_already_received");
    const stored = await env.BUCKET.get(`uploads/${workspace_id}/${upload.id}`);
    expect(stored?.size).toBe(bytes.length);
  });

  it("refuses another Content-Type, another size and a tampered signature", async () => {
    const { api_key } = await createWorkspace();
    const upload = await uploadFixture(api_key, "clip.mp4", false);
    const bytes = await fixtureBytes("clip.mp4");
    const wrongType = await SELF.fetch(upload.upload_url, {
      method: "PUT",
      headers: { "Content-Type": "video/quicktime" },
      body: bytes,
    });
    expect((await expectError(wrongType, 400, "invalid_parameter")).error.param).toBe("Content-Type");
    const wrongSize = await SELF.fetch(upload.upload_url, {
      method: "PUT",
      headers: upload.headers,
      body: bytes.subarray(1),
    });
    expect((await expectError(wrongSize, 400, "invalid_parameter")).error.param).toBe("Content-Length");
    const tampered = upload.upload_url.replace(
      /signature=([0-9a-f])/,
      (_m, c: string) => `signature=${c === "0" ? "1" : "0"}`,
    );
    await expectError(
      await SELF.fetch(tampered, { method: "PUT", headers: upload.headers, body: bytes }),
      403,
      "signature_invalid",
    );
    const bigger = upload.upload_url.replace(/size=\d+/, `size=${bytes.length + 10}`);
    await expectError(
      await SELF.fetch(bigger, { method: "PUT", headers: upload.headers, body: bytes }),
      403,
      "signature_invalid",
    );
  });

  it("an upload URL works for its own upload only: not on another upload's key, nor another workspace's", async () => {
    const first = await createWorkspace();
    const second = await createWorkspace();
    const mine = await uploadFixture(first.api_key, "clip.mp4", false);
    const other = await uploadFixture(first.api_key, "clip.mp4", false);
    const foreign = await uploadFixture(second.api_key, "clip.mp4", false);
    const bytes = await fixtureBytes("clip.mp4");
    const keyOf = (url: string) => new URL(url).pathname.split("/").pop() as string;
    for (const target of [other, foreign]) {
      // The signature of `mine`, on the path of another upload.
      const reused = mine.upload_url.replace(keyOf(mine.upload_url), keyOf(target.upload_url));
      await expectError(
        await SELF.fetch(reused, { method: "PUT", headers: mine.headers, body: bytes }),
        403,
        "signature_invalid",
      );
    }
    expect(await env.BUCKET.head(`uploads/${first.workspace_id}/${other.id}`)).toBeNull();
    expect(await env.BUCKET.head(`uploads/${second.workspace_id}/${foreign.id}`)).toBeNull();
  });

  it("a body without Content-Length (chunked), or longer than declared, stores nothing", async () => {
    const { api_key, workspace_id } = await createWorkspace();
    const upload = await uploadFixture(api_key, "clip.mp4", false);
    const bytes = await fixtureBytes("clip.mp4");
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.enqueue(new Uint8Array(1024));
        controller.close();
      },
    });
    const stretched = await SELF.fetch(upload.upload_url, {
      method: "PUT",
      headers: upload.headers,
      body: chunked,
    });
    expect((await expectError(stretched, 400, "invalid_parameter")).error.param).toBe("Content-Length");
    expect(await env.BUCKET.head(`uploads/${workspace_id}/${upload.id}`)).toBeNull();
    // The honest PUT still works afterwards, once.
    const put = await SELF.fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: bytes });
    expect(put.status).toBe(200);
  });

  it("a storage address with broken percent-encoding is refused as unsigned, not a server error", async () => {
    for (const address of [
      "/storage/upload/%FF%FE?size=4",
      "/storage/upload/%",
      "/storage/download/%E0%A4%A",
    ]) {
      const method = address.includes("upload") ? "PUT" : "GET";
      const response = await SELF.fetch(`http://edge.test${address}`, {
        method,
        ...(method === "PUT" ? { body: "abcd", headers: { "Content-Type": "video/mp4" } } : {}),
      });
      await expectError(response, 403, "signature_invalid");
    }
  });

  it("refuses a PUT after the one-hour window", async () => {
    const storage = localSignedStorage(env, "http://edge.test");
    const target = await storage.uploadTarget({
      key: "uploads/ws_test/up_expired",
      contentType: "video/mp4",
      sizeBytes: 4,
      expiresAt: Date.now() - 1000,
    });
    const response = await SELF.fetch(target.url, { method: "PUT", headers: target.headers, body: "abcd" });
    const error = await expectError(response, 403, "signature_invalid");
    expect(error.error.message).toMatch(/expired/);
  });
});
