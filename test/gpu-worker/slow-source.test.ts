// A source that trickles bytes, and a stage that never ends, must not hold a worker slot (issue 23,
// item 3): downloads keep to a deadline and a minimum rate, and every stage has a time budget. The
// limits here are small so that each case takes about a second.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ClaimedJob } from "../../contract/worker-api";
import { type DownloadLimits, loadConfig } from "../../gpu-worker/config";
import { DownloadError, downloadSource } from "../../gpu-worker/download";
import { EdgeClient } from "../../gpu-worker/edge-client";
import { WorkerMetrics } from "../../gpu-worker/metrics";
import { runJob } from "../../gpu-worker/runner";

const dir = mkdtempSync(path.join(tmpdir(), "adclean-slow-source-"));
const LIMITS: DownloadLimits = { deadlineMs: 1500, minBytesPerSecond: 2000, rateWindowMs: 300 };
const FILE_BYTES = 20_000;

/** How the source answers GET /<mode>: trickle (1 byte every 100 ms), steady (fast enough, too long), fast. */
type Mode = "trickle" | "steady" | "fast";
let source: Server;
let sourceUrl: string;
/** Responses still being written when the test ended (a download that was cut off closes its own). */
const open = new Set<ServerResponse>();
let edge: Server;
let edgeUrl: string;
const completions: Record<string, unknown>[] = [];

function drip(response: ServerResponse, chunk: number, everyMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (response.destroyed) return clearInterval(timer);
    response.write(Buffer.alloc(chunk, 7));
    sent += chunk;
    if (sent >= FILE_BYTES) {
      clearInterval(timer);
      response.end();
    }
  }, everyMs);
  response.on("close", () => {
    clearInterval(timer);
    open.delete(response);
  });
}

beforeAll(async () => {
  source = createServer((request, response) => {
    const mode = (request.url ?? "").slice(1) as Mode;
    response.writeHead(200, { "Content-Type": "video/mp4", "Content-Length": FILE_BYTES });
    open.add(response);
    if (mode === "fast") response.end(Buffer.alloc(FILE_BYTES, 7));
    // 1 byte each 100 ms: 10 bytes a second, far under the 2000 minimum.
    else if (mode === "trickle") drip(response, 1, 100);
    // 1000 bytes each 100 ms: 10,000 bytes a second, over the minimum, but 20 kB then take about 2 s.
    else drip(response, 1000, 100);
  });
  await new Promise<void>((resolve) => source.listen(0, "127.0.0.1", resolve));
  sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  // The edge's internal API, as far as one run goes: heartbeats and the final verdict.
  edge = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      if (request.url?.endsWith("/complete")) completions.push(JSON.parse(body));
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(
        JSON.stringify({ canceled: false, lease_expires_at: new Date().toISOString(), status: "failed" }),
      );
    });
  });
  await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
  edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`;
});

afterEach(() => {
  completions.length = 0;
});

afterAll(async () => {
  for (const response of open) response.destroy();
  await new Promise((resolve) => source.close(resolve));
  await new Promise((resolve) => edge.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const download = (mode: Mode, file = path.join(dir, `${mode}.mp4`), progress?: number[]) =>
  downloadSource(`${sourceUrl}/${mode}`, file, {
    local: true,
    limits: LIMITS,
    ...(progress ? { onProgress: (bytes) => progress.push(bytes) } : {}),
  });

describe("downloads keep to a deadline and a minimum rate", () => {
  it("a source that answers at once and then trickles a byte at a time is cut off with download_too_slow", async () => {
    const failure = await download("trickle").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DownloadError);
    expect(failure).toMatchObject({
      code: "download_too_slow",
      message: expect.stringContaining("2000 bytes"),
    });
    // The connection is dropped, not left to trickle on.
    await expect.poll(() => open.size).toBe(0);
  });

  it("a source fast enough on every window but too long overall is cut off at the deadline", async () => {
    const failure = await download("steady").catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: "download_too_slow",
      message: expect.stringContaining("within 2 s"),
    });
  });

  it("a source that keeps to the limits downloads whole, reporting its bytes as they come", async () => {
    const progress: number[] = [];
    expect(await download("fast", undefined, progress)).toBe(FILE_BYTES);
    expect(progress.at(-1)).toBe(FILE_BYTES);
  });
});

describe("a job's stages keep to their budgets", () => {
  const job = (mode: Mode, id: string): ClaimedJob => ({
    id,
    workspace_id: "ws_1",
    attempt: 1,
    texts: null,
    input: { filename: "input.mp4", duration_seconds: 1, width: 16, height: 16, size_bytes: FILE_BYTES },
    source: { type: "url", url: `${sourceUrl}/${mode}` },
    lease_token: "token",
    lease_expires_at: new Date().toISOString(),
  });

  function runWith(
    stageBudgetMs: number,
    mode: Mode,
    id: string,
    clean: Parameters<typeof runJob>[1]["clean"],
  ) {
    const config = loadConfig({
      EDGE_URL: edgeUrl,
      WORKER_SECRET: "secret",
      GPU_WORKER_DIR: path.join(dir, "work"),
      GPU_WORKER_DOWNLOAD_DEADLINE_MS: String(LIMITS.deadlineMs),
      GPU_WORKER_DOWNLOAD_MIN_BYTES_PER_SECOND: String(LIMITS.minBytesPerSecond),
      GPU_WORKER_DOWNLOAD_RATE_WINDOW_MS: String(LIMITS.rateWindowMs),
      GPU_WORKER_STAGE_BUDGET_MS: String(stageBudgetMs),
      GPU_WORKER_STAGE_BUDGET_PER_VIDEO_SECOND_MS: "0",
    });
    return runJob(job(mode, id), {
      config,
      client: new EdgeClient(config),
      clean,
      metrics: new WorkerMetrics(1, async () => []),
    });
  }

  it("a trickling video URL fails the job with download_too_slow (credits returned) and never reaches the engine", async () => {
    let engineRan = false;
    const outcome = await runWith(60_000, "trickle", "job_trickle", async () => {
      engineRan = true;
      return { frames: 0, linesErased: 0, residualLines: 0 };
    });
    expect(outcome).toBe("failed");
    expect(engineRan).toBe(false);
    expect(completions).toEqual([expect.objectContaining({ outcome: "failed", code: "download_too_slow" })]);
    expect(existsSync(path.join(dir, "work", "job_trickle-1"))).toBe(false);
  });

  it("an engine stage that never ends is aborted at its budget and the job fails with processing_timeout", async () => {
    let engineSignal: AbortSignal | undefined;
    const outcome = await runWith(500, "fast", "job_stuck", (_input, _output, options) => {
      options.onProgress?.("cleaning", 0.1);
      engineSignal = options.signal;
      // Stuck: ends only when aborted, as the real engine's ffmpeg children do.
      return new Promise((_resolve, reject) => {
        options.signal?.addEventListener("abort", () => reject(options.signal?.reason));
      });
    });
    expect(outcome).toBe("failed");
    expect(engineSignal?.aborted).toBe(true);
    expect(completions).toEqual([
      expect.objectContaining({
        outcome: "failed",
        code: "processing_timeout",
        message: expect.stringContaining("cleaning step"),
      }),
    ]);
  });
});
