// The storage refuses the cleaned MP4 (an R2 write failure): the worker must report the job failed
// (the edge then returns its credits), never claim success, and leave nothing behind.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../gpu-worker/config";
import { type ClaimedJob, EdgeClient } from "../../gpu-worker/edge-client";
import { WorkerMetrics } from "../../gpu-worker/metrics";
import { runJob } from "../../gpu-worker/runner";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { type FakeEdge, startFakeEdge } from "../helpers/fake-edge";

const dir = mkdtempSync(path.join(tmpdir(), "adclean-r2-fail-"));
let files: FileServer;
let edge: FakeEdge;
const completions: unknown[] = [];
const storagePuts: number[] = [];

beforeAll(async () => {
  writeFileSync(path.join(dir, "input.mp4"), Buffer.alloc(2048, 1));
  files = await startFileServer(dir);
  // The edge's internal API, whose result address points at a storage that answers 500.
  edge = await startFakeEdge((url, body, response) => {
    if (url === "/storage/result") {
      storagePuts.push(body.length);
      response.writeHead(500).end("InternalError: We encountered an internal error. Please try again.");
    } else if (url.endsWith("/progress")) {
      response.end(JSON.stringify({ canceled: false }));
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

describe("the result cannot be stored", () => {
  it("the job is reported failed with processing_failed, once, and never succeeded", async () => {
    const workDir = path.join(dir, "work");
    const config = loadConfig({ EDGE_URL: edge.url, WORKER_SECRET: "secret", GPU_WORKER_DIR: workDir });
    const job: ClaimedJob = {
      id: "job_r2",
      workspace_id: "ws_1",
      attempt: 1,
      texts: null,
      input: { filename: "input.mp4", duration_seconds: 1, width: 16, height: 16, size_bytes: 2048 },
      source: { type: "url", url: `${files.url}/files/input.mp4` },
    } as ClaimedJob;
    const outcome = await runJob(job, {
      config,
      client: new EdgeClient(config),
      // The engine's part is not under test: it writes a small "cleaned" file.
      clean: async (_input, output) => {
        await writeFile(output, Buffer.alloc(1024, 2));
        return { frames: 1, linesErased: 0, residualLines: 0 };
      },
      metrics: new WorkerMetrics(1, async () => []),
    });
    expect(outcome).toBe("failed");
    expect(storagePuts).toEqual([1024]);
    expect(completions).toEqual([
      {
        worker_id: config.workerId,
        outcome: "failed",
        code: "processing_failed",
        message: expect.stringContaining("credits were returned"),
      },
    ]);
    // Temporary files are gone.
    expect(existsSync(path.join(workDir, `${job.id}-1`))).toBe(false);
  });
});
