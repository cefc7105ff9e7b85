/**
 * `npm run demo`: cleans a sample ad end to end through the API, as a customer would. Uses the
 * stack on BASE_URL when it answers, else starts `npm start` for the run. Writes the cleaned MP4
 * and a before/after picture into demo-output/.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ffmpegBinary } from "../gpu-worker/engine/media/process";
import { checkMediaTools } from "../gpu-worker/engine/media/tools-check";
import { baseUrl, PROJECT_ROOT, readDevVars } from "./lib/dev-config";

const OUT_DIR = path.join(PROJECT_ROOT, "demo-output");
const FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const base = baseUrl();

function ffmpeg(args: string[]): void {
  execFileSync(ffmpegBinary(), ["-hide_banner", "-loglevel", "error", "-y", ...args]);
}

/** A 6-second 960x540 ad made here: moving footage, a hook on a shaded box, word-by-word captions. */
function makeSampleAd(file: string): void {
  const text = (t: string, extra: string) =>
    `drawtext=fontfile=${FONT}:expansion=none:text='${t}':fontcolor=white:${extra}`;
  const captions = [
    text(
      "WAIT FOR IT",
      "fontsize=44:box=1:boxcolor=black@0.55:boxborderw=14:x=(w-text_w)/2:y=50:enable='lt(t,3)'",
    ),
    text(
      "This changes",
      "fontsize=40:borderw=4:bordercolor=black:x=(w-text_w)/2:y=h-110:enable='between(t,0.5,2.5)'",
    ),
    text(
      "everything you know",
      "fontsize=40:borderw=4:bordercolor=black:x=(w-text_w)/2:y=h-110:enable='between(t,2.5,4.5)'",
    ),
    text(
      "SHOP NOW - 50% OFF",
      "fontsize=48:fontcolor=yellow:borderw=4:bordercolor=black:x=(w-text_w)/2:y=(h-text_h)/2:enable='gte(t,4.5)'",
    ),
  ].join(",");
  ffmpeg([
    ...["-f", "lavfi", "-i", "mandelbrot=size=960x540:rate=25"],
    ...["-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000"],
    ...[
      "-t",
      "6",
      "-vf",
      captions,
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      file,
    ],
  ]);
}

async function isUp(): Promise<boolean> {
  return fetch(`${base}/health`, { signal: AbortSignal.timeout(1500) }).then(
    (r) => r.ok,
    () => false,
  );
}

/** Starts npm start and resolves once it prints ready. */
function startStack(): Promise<ChildProcess> {
  const child = spawn("npm", ["start", "--silent"], {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready ")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`npm start exited (${code})`)));
  });
}

async function api<T>(method: string, route: string, token: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok) throw new Error(`${method} ${route}: ${answer.error?.code}: ${answer.error?.message}`);
  return answer;
}

function progressBar(progress: number, label: string): string {
  const width = 30;
  const filled = Math.round(progress * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(progress * 100)).padStart(3)}% ${label}`;
}

interface Job {
  id: string;
  status: string;
  stage: string | null;
  progress: number;
  result: { url: string } | null;
  error: { code: string; message: string } | null;
}

async function main(): Promise<void> {
  await checkMediaTools(); // the demo makes its sample ad with ffmpeg, whether or not a stack runs
  mkdirSync(OUT_DIR, { recursive: true });
  const stack = (await isUp()) ? null : await startStack();
  try {
    const adminToken = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN ?? "";
    const workspace = await api<{ api_key: string }>("POST", "/admin/workspaces", adminToken, {
      plan: "growth",
      name: "Demo",
    });
    const key = workspace.api_key;
    const input = path.join(OUT_DIR, "sample-ad.mp4");
    console.log("making a sample ad with ffmpeg…");
    makeSampleAd(input);
    const bytes = readFileSync(input);
    const upload = await api<{ id: string; upload_url: string; headers: Record<string, string> }>(
      "POST",
      "/v1/uploads",
      key,
      {
        filename: "sample-ad.mp4",
        content_type: "video/mp4",
        size_bytes: bytes.length,
      },
    );
    const put = await fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: bytes });
    if (!put.ok) throw new Error(`upload PUT answered ${put.status}`);
    let job = await api<Job>("POST", "/v1/jobs", key, { upload_id: upload.id });
    console.log(`job ${job.id} created`);
    while (!["succeeded", "failed", "canceled"].includes(job.status)) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      job = await api<Job>("GET", `/v1/jobs/${job.id}`, key);
      process.stdout.write(
        `\r${progressBar(job.progress, `${job.status}${job.stage ? ` / ${job.stage}` : ""}`).padEnd(70)}`,
      );
    }
    process.stdout.write("\n");
    if (job.status !== "succeeded" || !job.result)
      throw new Error(`job ${job.status}: ${job.error?.message ?? ""}`);
    const output = path.join(OUT_DIR, "sample-ad-clean.mp4");
    writeFileSync(output, new Uint8Array(await (await fetch(job.result.url)).arrayBuffer()));
    const picture = path.join(OUT_DIR, "before-after.png");
    ffmpeg([
      "-ss",
      "2",
      "-i",
      input,
      "-ss",
      "2",
      "-i",
      output,
      "-frames:v",
      "1",
      "-filter_complex",
      "[0:v][1:v]hstack",
      picture,
    ]);
    console.log(`cleaned: ${output}\nbefore/after: ${picture}`);
  } finally {
    stack?.kill("SIGTERM");
  }
}

main().catch((error: unknown) => {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
