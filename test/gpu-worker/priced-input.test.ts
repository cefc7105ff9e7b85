// The worker cleans what it downloads, not what the edge priced: a video_url server can answer the
// edge's range probe with one file and the worker's GET with another, and a file's headers can
// understate its streams. The worker probes its own copy and refuses one over the price or the limits.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClaimedJob } from "../../contract/worker-api";
import { admitPriced } from "../../gpu-worker/admission";
import { loadConfig } from "../../gpu-worker/config";
import { EdgeClient } from "../../gpu-worker/edge-client";
import { cleanVideo } from "../../gpu-worker/engine/clean";
import { WorkerMetrics } from "../../gpu-worker/metrics";
import { runJob } from "../../gpu-worker/runner";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeVideoFixtures } from "../fixtures/media";
import { type FakeEdge, startFakeEdge } from "../helpers/fake-edge";

const dir = mkdtempSync(path.join(tmpdir(), "adclean-priced-"));
let files: FileServer;
let edge: FakeEdge;
const completions: Array<Record<string, unknown>> = [];

/** What the edge priced clip.mp4 at (2 s, 320x240, 25 credits) when the job was created. */
const PRICED: ClaimedJob["input"] = {
  filename: "clip.mp4",
  duration_seconds: 2,
  width: 320,
  height: 240,
  size_bytes: null,
};

beforeAll(async () => {
  makeVideoFixtures(dir);
  files = await startFileServer(dir);
  // The edge's internal API: progress goes on, completions are recorded.
  edge = await startFakeEdge((url, body, response) => {
    if (url.endsWith("/complete")) completions.push(JSON.parse(body));
    response.end(
      JSON.stringify({ canceled: false, lease_expires_at: new Date().toISOString(), status: "failed" }),
    );
  });
});

afterAll(async () => {
  await edge.close();
  await files.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runFrom(id: string, url: string) {
  const config = loadConfig({
    EDGE_URL: edge.url,
    WORKER_SECRET: "secret",
    GPU_WORKER_DIR: path.join(dir, "work"),
  });
  const job = {
    id,
    workspace_id: "ws_1",
    attempt: 1,
    texts: null,
    input: PRICED,
    source: { type: "url", url },
    lease_expires_at: new Date(Date.now() + 60_000).toISOString(),
    lease_token: "t".repeat(32),
  } satisfies ClaimedJob;
  return runJob(job, {
    config,
    client: new EdgeClient(config),
    clean: cleanVideo,
    metrics: new WorkerMetrics(1, async () => []),
  });
}

describe("the worker refuses a download that is not what was priced", () => {
  it("probe answered with a 2 s file, GET with 60 s (whose mvhd says 1 s): failed limit_exceeded, credits back", async () => {
    const outcome = await runFrom("job_switched", `${files.url}/switch/clip.mp4/mvhd-says-1s.mp4`);
    expect(outcome).toBe("failed");
    expect(completions.at(-1)).toMatchObject({
      outcome: "failed",
      code: "limit_exceeded",
      message: expect.stringMatching(/plays 60\.0 s, longer than the 2\.0 s.*credits were returned/),
    });
  });

  it("GET answered with 4096x2304 frames shown at 640x360: failed limit_exceeded on the coded size", async () => {
    const outcome = await runFrom("job_wide", `${files.url}/switch/clip.mp4/tkhd-says-640x360.mp4`);
    expect(outcome).toBe("failed");
    expect(completions.at(-1)).toMatchObject({
      outcome: "failed",
      code: "limit_exceeded",
      message: expect.stringContaining("4096x2304"),
    });
  });

  it("lets through a file within its price, allowing the clocks of one file half a second", () => {
    const admit = admitPriced(PRICED);
    expect(() => admit({ durationSeconds: 2.4, width: 320, height: 240 })).not.toThrow();
    expect(() => admit({ durationSeconds: 2.6, width: 320, height: 240 })).toThrow(/longer than/);
  });
});
