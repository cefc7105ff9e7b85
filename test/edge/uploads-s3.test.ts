import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import worker from "../../edge/index";
import {
  createWorkspace,
  expectError,
  fixtureBytes,
  type JobAnswer,
  runCron,
  type UploadAnswer,
} from "./helpers";

/**
 * Production's storage mode: uploads are presigned PUTs straight to R2's S3 API (here s3rver on
 * 127.0.0.1 behind a SigV4 check, started by global-setup), so no request of the upload reaches
 * the Worker. The Worker is called with the S3 settings that select that mode.
 */
const s3 = inject("s3");
const s3Env = {
  ...env,
  S3_ENDPOINT: s3.endpoint,
  S3_BUCKET: s3.bucket,
  S3_ACCESS_KEY_ID: s3.key,
  S3_SECRET_ACCESS_KEY: s3.key,
};

const DAY_MS = 24 * 60 * 60 * 1000;

async function s3Api(path: string, key: string, body: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`http://edge.test${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const response = await worker.fetch(request, s3Env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

async function createUpload(key: string, bytes: Uint8Array): Promise<UploadAnswer> {
  const created = await s3Api("/v1/uploads", key, {
    filename: "clip.mp4",
    content_type: "video/mp4",
    size_bytes: bytes.length,
  });
  expect(created.status).toBe(201);
  return created.json<UploadAnswer>();
}

const put = (upload: UploadAnswer, bytes: Uint8Array) =>
  fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: bytes });

/** Whether s3rver holds the object (asked directly, past the signature check). */
async function stored(workspaceId: string, uploadId: string): Promise<boolean> {
  const url = `${s3.s3rverEndpoint}/${s3.bucket}/uploads/${workspaceId}/${uploadId}`;
  return (await fetch(url, { method: "HEAD" })).status === 200;
}

/** The scheduled tasks (the retention sweep among them) in S3 mode, as if the clock read `days` later. */
async function runCronDaysLater(days: number): Promise<void> {
  const spy = vi.spyOn(Date, "now").mockReturnValue(Date.now() + days * DAY_MS);
  try {
    await runCron(s3Env);
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("uploads with R2 presigned PUTs (S3 API, s3rver)", () => {
  it("a file PUT straight to the bucket becomes a job: the edge finds and reads the object itself", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const bytes = await fixtureBytes("clip.mp4");
    const upload = await createUpload(api_key, bytes);
    expect(new URL(upload.upload_url).origin).toBe(s3.endpoint);

    await expectError(await s3Api("/v1/jobs", api_key, { upload_id: upload.id }), 409, "upload_incomplete");
    expect((await put(upload, bytes)).status).toBe(200);
    const created = await s3Api("/v1/jobs", api_key, { upload_id: upload.id });
    expect(created.status).toBe(201);
    const job = await created.json<JobAnswer>();
    expect(job.input).toMatchObject({
      filename: "clip.mp4",
      width: 320,
      height: 240,
      size_bytes: bytes.length,
    });
    expect(job.credits).toBe(25);
    const row = await env.DB.prepare("SELECT received_at FROM uploads WHERE id = ?")
      .bind(upload.id)
      .first<{ received_at: number | null }>();
    expect(row?.received_at).toEqual(expect.any(Number));
  });

  it("the upload address cannot replace a file once it is there (If-None-Match: * is signed)", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const bytes = await fixtureBytes("clip.mp4");
    const upload = await createUpload(api_key, bytes);
    expect(upload.headers).toEqual({ "Content-Type": "video/mp4", "If-None-Match": "*" });
    expect((await put(upload, bytes)).status).toBe(200);
    expect((await s3Api("/v1/jobs", api_key, { upload_id: upload.id })).status).toBe(201);
    // Sent again after the job exists (the address is good for an hour): refused, nothing replaced.
    expect(
      (
        await put(
          upload,
          bytes.map((byte) => byte ^ 0xff),
        )
      ).status,
    ).toBe(412);
    // Leaving the header out breaks the signature.
    const { "If-None-Match": _, ...withoutCondition } = upload.headers;
    const bare = await fetch(upload.upload_url, { method: "PUT", headers: withoutCondition, body: bytes });
    expect(bare.status).toBe(403);
  });

  it("retention deletes such uploads: an unused one after the plan's days; one behind an unfinished job stays", async () => {
    const { api_key, workspace_id } = await createWorkspace({ plan: "growth", credits: 1000 });
    const bytes = await fixtureBytes("clip.mp4");
    const unused = await createUpload(api_key, bytes);
    const used = await createUpload(api_key, bytes);
    expect((await put(unused, bytes)).status).toBe(200);
    expect((await put(used, bytes)).status).toBe(200);
    const job = await (await s3Api("/v1/jobs", api_key, { upload_id: used.id })).json<JobAnswer>();

    await runCronDaysLater(29);
    expect(await stored(workspace_id, unused.id)).toBe(true);
    await runCronDaysLater(31);
    expect(await stored(workspace_id, unused.id)).toBe(false);
    await expectError(await s3Api("/v1/jobs", api_key, { upload_id: unused.id }), 409, "upload_incomplete");
    // The job is still queued: its file stays.
    expect(await stored(workspace_id, used.id)).toBe(true);
    expect(job.status).toBe("queued");
  });
});
