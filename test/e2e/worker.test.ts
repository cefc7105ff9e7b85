import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_STAGES, JOB_STATUSES } from "../../contract/job-states";
import { createOcrEngine } from "../../gpu-worker/engine/ocr/ocr";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeCaptionedClip } from "../fixtures/media";
import { isRunning, processTable } from "../helpers/process-tree";
import { cliWorkspace, type RunningStack, startStack } from "../helpers/stack";

const PORT = 18827;
const WORKER_DIR = path.join(tmpdir(), `adclean-worker-${PORT + 1}`);
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-worker-"));
let stack: RunningStack;
let files: FileServer;
let key: string;

interface Job {
  id: string;
  status: string;
  stage: string | null;
  progress: number;
  credits: number;
  credits_refunded: boolean;
  started_at: string | null;
  finished_at: string | null;
  error: { code: string; message: string } | null;
  result: { url: string; size_bytes: number } | null;
}

async function call<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as T;
}

const credits = async () => (await call<{ credits: { total: number } }>("GET", "/v1/account")).credits.total;

/** Polls a job like a customer, recording every state seen, until `done` says stop (bounded). */
async function follow(
  id: string,
  done: (job: Job) => boolean,
  seen: Job[] = [],
  // Under the file's 240 s test timeout, so a stuck job fails with what was last seen.
  timeoutMs = 200_000,
): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const job = await call<Job>("GET", `/v1/jobs/${id}`);
    seen.push(job);
    if (done(job)) return job;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`job ${id} stuck: ${JSON.stringify(seen.at(-1))}`);
}
const finished = (job: Job) => ["succeeded", "failed", "canceled"].includes(job.status);

function probe(file: string) {
  const out = execFileSync("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "stream=codec_type,width,height,r_frame_rate:format=duration",
    "-of",
    "json",
    file,
  ]);
  return JSON.parse(out.toString()) as {
    streams: Array<Record<string, string | number>>;
    format: { duration: string };
  };
}

/** The GPU worker npm start runs for this stack (found by its port in its environment). */
function workerPid(): number {
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      if (args.includes("gpu-worker/main.ts") && environ.includes(`GPU_WORKER_PORT=${PORT + 1}\0`))
        return Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  throw new Error("no GPU worker process found");
}

beforeAll(async () => {
  makeCaptionedClip(path.join(dir, "ad.mp4"), 2);
  // For the queue's order, where what is cleaned does not matter: three of them run one by one.
  makeCaptionedClip(path.join(dir, "short.mp4"), 1);
  makeCaptionedClip(path.join(dir, "long.mp4"), 14);
  // Long enough that its cleaning stage spans many polls, short enough that the retry is quick.
  makeCaptionedClip(path.join(dir, "mid.mp4"), 4);
  execFileSync("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-i",
    path.join(dir, "ad.mp4"),
    "-c",
    "copy",
    "-movflags",
    "+faststart",
    path.join(dir, "fast.mp4"),
  ]);
  const fast = readFileSync(path.join(dir, "fast.mp4"));
  writeFileSync(path.join(dir, "cut.mp4"), fast.subarray(0, Math.floor(fast.length * 0.6)));
  files = await startFileServer(dir);
  // Short leases and a fast local cron so a killed worker's job comes back within seconds. 15 s, not
  // less: on a loaded machine a live worker's heartbeat came more than 6 s apart and its job ran twice.
  stack = await startStack(PORT, {
    LEASE_SECONDS: "15",
    GPU_WORKER_HEARTBEAT_MS: "1500",
    LOCAL_CRON_INTERVAL_MS: "2000",
  });
  key = (await cliWorkspace(stack, "scale", 5000)).api_key;
});

afterAll(async () => {
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Jobs wait for the stack's one worker slot while another test file shares the cores: bounds, not speeds.
describe("the GPU worker runs jobs end to end on npm start", { timeout: 240_000 }, () => {
  it("an uploaded ad comes back with the same duration, size, fps and audio and no caption; progress only grows", async () => {
    const bytes = readFileSync(path.join(dir, "ad.mp4"));
    const upload = await call<{ id: string; upload_url: string; headers: Record<string, string> }>(
      "POST",
      "/v1/uploads",
      {
        filename: "ad.mp4",
        content_type: "video/mp4",
        size_bytes: bytes.length,
      },
    );
    await fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: bytes });
    const job = await call<Job>("POST", "/v1/jobs", { upload_id: upload.id });
    const seen: Job[] = [];
    const done = await follow(job.id, finished, seen);
    expect(done.status).toBe("succeeded");
    for (let i = 1; i < seen.length; i++)
      expect((seen[i] as Job).progress).toBeGreaterThanOrEqual((seen[i - 1] as Job).progress);
    for (const state of seen) {
      expect(JOB_STATUSES).toContain(state.status);
      if (state.stage !== null) expect(JOB_STAGES).toContain(state.stage);
    }
    const cleaned = path.join(dir, "cleaned.mp4");
    writeFileSync(cleaned, new Uint8Array(await (await fetch(done.result?.url as string)).arrayBuffer()));
    const before = probe(path.join(dir, "ad.mp4"));
    const after = probe(cleaned);
    expect(Number(after.format.duration)).toBeCloseTo(Number(before.format.duration), 1);
    const video = (p: typeof before) => p.streams.find((s) => s.codec_type === "video");
    expect(video(after)).toMatchObject({
      width: 480,
      height: 270,
      r_frame_rate: video(before)?.r_frame_rate,
    });
    expect(after.streams.some((s) => s.codec_type === "audio")).toBe(true);
    // The caption is gone: the text detector finds nothing in its band of a frame that had it.
    const frame = (file: string) =>
      new Uint8Array(
        execFileSync("ffmpeg", [
          "-v",
          "error",
          "-ss",
          "1",
          "-i",
          file,
          "-frames:v",
          "1",
          "-f",
          "rawvideo",
          "-pix_fmt",
          "rgb24",
          "-",
        ]),
      );
    const ocr = await createOcrEngine();
    try {
      const band = (data: Uint8Array) => ({ width: 480, height: 90, data: data.subarray(180 * 480 * 3) });
      const [[...inputBoxes] = [], [...outputBoxes] = []] = await ocr.detect([
        band(frame(path.join(dir, "ad.mp4"))),
        band(frame(cleaned)),
      ]);
      expect(inputBoxes.length).toBeGreaterThan(0);
      expect(outputBoxes).toEqual([]);
    } finally {
      await ocr.close();
    }
  });

  it("a video_url job succeeds", async () => {
    const job = await call<Job>("POST", "/v1/jobs", { video_url: `${files.url}/files/ad.mp4` });
    expect((await follow(job.id, finished)).status).toBe("succeeded");
  });

  it("a job's stages follow the work in the README's order, the same with texts as without", async () => {
    const every = await call<Job>("POST", "/v1/jobs", { video_url: `${files.url}/files/ad.mp4` });
    const named = await call<Job>("POST", "/v1/jobs", {
      video_url: `${files.url}/files/ad.mp4`,
      texts: ["Shop now"],
    });
    expect((await follow(every.id, finished)).status).toBe("succeeded");
    expect((await follow(named.id, finished)).status).toBe("succeeded");
    // The worker's log line for every stage it entered (README, "Stages"), in order.
    const stagesOf = (id: string) =>
      stack
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes(`"job_id":"${id}"`))
        .map((line) => JSON.parse(line) as { event: string; stage?: string })
        .filter((entry) => entry.event === "stage")
        .map((entry) => entry.stage);
    const order = ["downloading", "reading_text", "cleaning", "assembling", "finalizing"];
    expect(stagesOf(every.id)).toEqual(order);
    expect(stagesOf(named.id)).toEqual(order);
    // The stage-seconds metric counts the same stages, and only those.
    const metrics = await (await fetch(`http://127.0.0.1:${stack.workerPort}/metrics`)).text();
    const counted = [...metrics.matchAll(/adclean_worker_stage_seconds_count\{stage="(\w+)"\}/g)].map(
      (m) => m[1],
    );
    expect(counted.sort()).toEqual([...order].sort());
  });

  it("three jobs at once with one slot all finish, one after the other in order", async () => {
    const jobs: Job[] = [];
    for (let i = 0; i < 3; i++)
      jobs.push(await call<Job>("POST", "/v1/jobs", { video_url: `${files.url}/files/short.mp4` }));
    const done = await Promise.all(jobs.map((job) => follow(job.id, finished)));
    expect(done.map((job) => job.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const spans = done.map(
      (job) => [Date.parse(job.started_at as string), Date.parse(job.finished_at as string)] as const,
    );
    spans.sort((a, b) => a[0] - b[0]);
    for (const [i, [started]] of spans.entries()) {
      if (i > 0) expect(started).toBeGreaterThanOrEqual(spans[i - 1]?.[1] ?? 0);
    }
  });

  it("a cancel mid-job stops the work, leaves no temporary files and refunds", async () => {
    const start = await credits();
    const job = await call<Job>("POST", "/v1/jobs", { video_url: `${files.url}/files/long.mp4` });
    await follow(job.id, (j) => j.status === "processing" || finished(j));
    const canceled = await call<Job>("POST", `/v1/jobs/${job.id}/cancel`);
    expect(canceled).toMatchObject({ status: "canceled", credits_refunded: true });
    expect(await credits()).toBe(start);
    // Within 5 s the worker has stopped: nothing of this job on disk, no ffmpeg working on it.
    const deadline = Date.now() + 5000;
    const leftovers = async () =>
      (existsSync(WORKER_DIR) ? readdirSync(WORKER_DIR) : []).filter((name) => name.startsWith(job.id))
        .length +
      [...(await processTable()).values()].filter(
        (entry) => isRunning(entry) && entry.command.startsWith("ffmpeg") && entry.args.includes(job.id),
      ).length;
    while ((await leftovers()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await leftovers()).toBe(0);
    expect((await call<Job>("GET", `/v1/jobs/${job.id}`)).status).toBe("canceled");
  });

  it("kill -9 of the worker mid-job: the job is retried after its lease expires and succeeds, charged once", async () => {
    const start = await credits();
    const job = await call<Job>("POST", "/v1/jobs", { video_url: `${files.url}/files/mid.mp4` });
    // Killed while it provably works on the job (reading or cleaning frames), not merely claimed.
    const working = (j: Job) => j.stage === "reading_text" || j.stage === "cleaning";
    const running = await follow(job.id, (j) => working(j) || finished(j));
    expect(finished(running)).toBe(false);
    process.kill(workerPid(), "SIGKILL");
    const seen: Job[] = [];
    const done = await follow(job.id, finished, seen, 240_000);
    expect(done.status).toBe("succeeded");
    expect(seen.some((state) => state.stage === "retrying")).toBe(true);
    expect(await credits()).toBe(start - done.credits);
  }, 300_000);

  it("a truncated file fails with unreadable_video and its credits come back", async () => {
    const start = await credits();
    const job = await call<Job>("POST", "/v1/jobs", { video_url: `${files.url}/files/cut.mp4` });
    // The refund is written just after the failure (and repaired by the reaper if that write is
    // lost), so a poll can see `failed` a moment before `credits_refunded`: it must come, bounded.
    const done = await follow(job.id, (j) => (j.status === "failed" ? j.credits_refunded : finished(j)));
    expect(done).toMatchObject({
      status: "failed",
      credits_refunded: true,
      error: { code: "unreadable_video" },
    });
    expect(await credits()).toBe(start);
  });
});
