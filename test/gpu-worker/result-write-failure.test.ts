// The storage refuses the cleaned MP4 (an R2 write failure): the worker must report the job failed
// (the edge then returns its credits), never claim success, and leave nothing behind. And a lease
// lost mid-job: the worker stops the job, uploads nothing and reports nothing more.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClaimedJob } from "../../contract/worker-api";
import { loadConfig } from "../../gpu-worker/config";
import { EdgeClient } from "../../gpu-worker/edge-client";
import { WorkerMetrics } from "../../gpu-worker/metrics";
import { runJob } from "../../gpu-worker/runner";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { type FakeEdge, startFakeEdge } from "../helpers/fake-edge";

const dir = mkdtempSync(path.join(tmpdir(), "adclean-r2-fail-"));
let files: FileServer;
let edge: FakeEdge;
const completions: unknown[] = [];
const storagePuts: number[] = [];
/** Every request the fake edge got, as "<job id> <route>". */
const edgeRequests: string[] = [];

beforeAll(async () => {
  writeFileSync(path.join(dir, "input.mp4"), Buffer.alloc(2048, 1));
  files = await startFileServer(dir);
  // The edge's internal API, whose result address points at a storage that answers 500.
  edge = await startFakeEdge((url, body, response) => {
    edgeRequests.push(url.replace(/^\/internal\/jobs\//, "").replace("/", " "));
    if (url.includes("job_lost/")) {
      // This worker's lease is gone (reaped, the job handed to another): every call is refused.
      response
        .writeHead(409)
        .end(JSON.stringify({ error: { code: "job_not_claimable", reason: "lease_lost" } }));
    } else if (url === "/storage/result") {
      storagePuts.push(body.length);
      response.writeHead(500).end("InternalError: We encountered an internal error. Please try again.");
    } else if (url.endsWith("/progress")) {
      response.end(JSON.stringify({ canceled: false, lease_expires_at: new Date().toISOString() }));
    } else if (url.endsWith("/result-target")) {
      response.end(
        JSON.stringify({ url: `${edge.url}/storage/result`, headers: { "Content-Type": "video/mp4" } }),
      );
    } else if (url.endsWith("/complete")) {
      completions.push(JSON.parse(body));
      response.end(JSON.stringify({ status: "failed" }));
    } else {
      response.writeHead(404).end("{}");
    }
  });
});

afterAll(async () => {
  await edge.close();
  await files.close();
  rmSync(dir, { recursive: true, force: true });
});

const workDir = path.join(dir, "work");
// One worker process: its id (made afresh by each loadConfig) must be the same on every call.
let loaded: ReturnType<typeof loadConfig> | undefined;
const config = () =>
  (loaded ??= loadConfig({ EDGE_URL: edge.url, WORKER_SECRET: "secret", GPU_WORKER_DIR: workDir }));
const claimedJob = (id: string): ClaimedJob =>
  ({
    id,
    workspace_id: "ws_1",
    attempt: 1,
    texts: null,
    input: { filename: "input.mp4", duration_seconds: 1, width: 16, height: 16, size_bytes: 2048 },
    source: { type: "url", url: `${files.url}/files/input.mp4` },
  }) as ClaimedJob;

/** Runs the job through the real runner against the fake edge, with `clean` as the engine. */
const runWith = (job: ClaimedJob, clean: Parameters<typeof runJob>[1]["clean"]) =>
  runJob(job, {
    config: config(),
    client: new EdgeClient(config()),
    clean,
    metrics: new WorkerMetrics(1, async () => []),
  });

describe("the result cannot be stored", () => {
  it("the job is reported failed with processing_failed, once, and never succeeded", async () => {
    const job = claimedJob("job_r2");
    // The engine's part is not under test: it writes a small "cleaned" file.
    const outcome = await runWith(job, async (_input, output) => {
      await writeFile(output, Buffer.alloc(1024, 2));
      return { frames: 1, linesErased: 0, residualLines: 0 };
    });
    expect(outcome).toBe("failed");
    expect(storagePuts).toEqual([1024]);
    expect(completions).toEqual([
      {
        worker_id: config().workerId,
        outcome: "failed",
        code: "processing_failed",
        message: expect.stringContaining("credits were returned"),
      },
    ]);
    // Temporary files are gone.
    expect(existsSync(path.join(workDir, `${job.id}-1`))).toBe(false);
  });
});

describe("the lease is lost mid-job", () => {
  it("stops the job (wherever it is: downloading or cleaning), uploads and reports nothing more, temporary files go", async () => {
    const job = claimedJob("job_lost");
    const putsBefore = storagePuts.length;
    // An engine that would run until stopped: only the lost lease can end it.
    const outcome = await runWith(
      job,
      (_input, output, options) =>
        new Promise((_resolve, reject) => {
          void writeFile(output, Buffer.alloc(1024, 2));
          options?.signal?.addEventListener("abort", () => reject(options.signal?.reason));
          options?.onProgress?.("cleaning", 0.5);
        }),
    );
    expect(outcome).toBe("lease_lost");
    const calls = edgeRequests.filter((request) => request.startsWith("job_lost "));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((request) => request === "job_lost progress")).toBe(true);
    expect(storagePuts.slice(putsBefore)).toEqual([]); // nothing uploaded
    expect(existsSync(path.join(workDir, `${job.id}-1`))).toBe(false);
  }, 30_000);
});
