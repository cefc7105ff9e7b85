import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeVideoFixtures } from "../fixtures/media";
import { cliWorkspace, HELD_DOWNLOADS_ENV, type RunningStack, startStack } from "../helpers/stack";

let stack: RunningStack;
let files: FileServer;
let fixtures: Record<string, string>;
let key: string;
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-"));

/** A JSON answer, loosely typed: the assertions say what it must hold. */
// biome-ignore lint/suspicious/noExplicitAny: test answers are checked by assertions, not types
type Answer = Record<string, any>;

async function callAs(
  apiKey: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer,
  };
}

const call = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
  callAs(key, method, route, body, headers);

beforeAll(async () => {
  fixtures = makeVideoFixtures(dir);
  files = await startFileServer(dir);
  stack = await startStack(18797, HELD_DOWNLOADS_ENV);
  key = (await cliWorkspace(stack, "growth", 1000)).api_key;
});

afterAll(async () => {
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("uploads and jobs on the real local stack", () => {
  it("uploads a real MP4 with PUT, creates, lists, gets and cancels a job; credits move as the spec says", async () => {
    // The stack's one worker slot is taken first, by another workspace's job whose download the
    // file server holds open: the job made here provably waits in the queue until it is canceled.
    const other = (await cliWorkspace(stack, "growth", 1000)).api_key;
    const blocker = await callAs(other, "POST", "/v1/jobs", { video_url: `${files.url}/held-once/clip.mp4` });
    expect(blocker.status).toBe(201);
    const deadline = Date.now() + 60_000;
    while (!files.fileRequests.includes("/held-once/clip.mp4 whole") && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(files.fileRequests, "the worker never started the blocking job").toContain(
      "/held-once/clip.mp4 whole",
    );

    const bytes = readFileSync(fixtures["clip.mp4"] as string);
    const upload = await call("POST", "/v1/uploads", {
      filename: "spring-ad.mp4",
      content_type: "video/mp4",
      size_bytes: bytes.length,
    });
    expect(upload.status).toBe(201);
    const put = await fetch(upload.body.upload_url, {
      method: "PUT",
      headers: upload.body.headers,
      body: bytes,
    });
    expect(put.status).toBe(200);

    const created = await call(
      "POST",
      "/v1/jobs",
      { upload_id: upload.body.id, texts: ["SALE"] },
      { "Idempotency-Key": "e2e-1" },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "queued",
      source: "api",
      credits: 25,
      input: { filename: "spring-ad.mp4", width: 320 },
    });
    expect((await call("GET", "/v1/account")).body.credits).toEqual({ plan: 975, pack: 0, total: 975 });

    const replay = await call(
      "POST",
      "/v1/jobs",
      { upload_id: upload.body.id, texts: ["SALE"] },
      { "Idempotency-Key": "e2e-1" },
    );
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body.id).toBe(created.body.id);

    const list = await call("GET", "/v1/jobs");
    expect(list.body.data.map((job: { id: string }) => job.id)).toEqual([created.body.id]);
    const got = await call("GET", `/v1/jobs/${created.body.id}`);
    expect(got.body.id).toBe(created.body.id);

    const canceled = await call("POST", `/v1/jobs/${created.body.id}/cancel`);
    expect(canceled.body).toMatchObject({ status: "canceled", credits_refunded: true });
    expect((await call("GET", "/v1/account")).body.credits.total).toBe(1000);
  });

  it("creates a job from a video_url served on loopback (moov at the end, read with ranges)", async () => {
    // A workspace of its own: the upload test above lists its workspace's jobs.
    const own = (await cliWorkspace(stack, "growth", 1000)).api_key;
    const created = await callAs(own, "POST", "/v1/jobs", { video_url: `${files.url}/files/clip.mp4` });
    expect(created.status).toBe(201);
    expect(created.body.input.duration_seconds).toBeCloseTo(2, 1);
    const refused = await callAs(own, "POST", "/v1/jobs", {
      video_url: "http://169.254.169.254/latest/meta-data",
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("url_not_allowed");
  });
});
