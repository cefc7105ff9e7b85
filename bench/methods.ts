import path from "node:path";
import type { StageSeconds } from "../gpu-worker/engine/stage-clock";
import type { ClipSpec } from "./clips";
import { FFMPEG } from "./ffmpeg";
import { textFreeInput, warmUpInput } from "./footage";
import { enableExpression } from "./overlays";
import { measureProcess } from "./process-tree";
import { OUTPUT_ENCODING } from "./raw-encoder";
import { clipFiles, type Truth } from "./truth";

/**
 * "engine-no-text" is the engine on the clip's footage without its overlays (textFreeInput): not
 * scored, it shows how much of the engine's time every video costs before any pixel is filled.
 * "engine-warm" is the engine in a process that has already cleaned a video, as the worker runs it
 * (bench/warm-engine.ts): not scored (its output is the engine's), timed on the clip alone.
 */
export type MethodName = "transcode" | "engine" | "engine-warm" | "engine-no-text" | "delogo" | "telea";

/** Pixels the baselines' regions are grown by around the true overlay pixels (the codec's ringing). */
export const BASELINE_GROW = 2;

const REPO_ROOT = path.resolve(import.meta.dirname, "..");

export interface MethodRun {
  method: MethodName;
  output: string;
  seconds: number;
  /** CPU seconds of the method's whole process tree (the warm engine's: of its timed cleaning only). */
  cpuSeconds: number;
  peakRssMb: number;
  /** The engine's own summary line (`npm run clean -- --json`). */
  summary?: {
    linesErased: number;
    residualLines: number;
    frames: number;
    /** Where the text models ran: cpu or cuda. */
    provider: string;
    /** CPU seconds by stage. */
    cpu_seconds: StageSeconds;
    /** The warm engine's: wall seconds of the timed cleaning. */
    seconds?: number;
  };
  error?: string;
}

/**
 * The reference for time: what a plain re-encode of the same input costs on this machine, in this run.
 * Audio is copied, as every method does.
 */
function transcodeArgs(input: string, output: string): string[] {
  const encoding = ["-c:v", "libx264", "-preset", "medium", "-crf", "18", "-c:a", "copy"];
  return ["-hide_banner", "-nostdin", "-v", "error", "-y", "-i", input, ...encoding, output];
}

/**
 * ffmpeg delogo on each overlay's true bounding box (grown a little) while it is on screen. delogo
 * needs a border of picture around its rectangle, so the box is kept one pixel inside the frame.
 */
export function delogoFilter(truth: Truth, clip: ClipSpec): string {
  const filters = truth.boxes.map((box) => {
    const x = Math.max(1, box.x - BASELINE_GROW);
    const y = Math.max(1, box.y - BASELINE_GROW);
    const right = Math.min(clip.width - 2, box.x + box.width - 1 + BASELINE_GROW);
    const bottom = Math.min(clip.height - 2, box.y + box.height - 1 + BASELINE_GROW);
    const area = `x=${x}:y=${y}:w=${right - x + 1}:h=${bottom - y + 1}`;
    return `delogo=${area}:enable='${enableExpression(box.frames)}'`;
  });
  return filters.join(",") || "null";
}

export interface RunOptions {
  /** The engine's text models must run on CUDA (`clean --provider cuda` fails without it). */
  gpu: boolean;
}

function commandOf(
  method: MethodName,
  dir: string,
  input: string,
  warmUp: string,
  clip: ClipSpec,
  truth: Truth,
  output: string,
  options: RunOptions,
) {
  const node = (script: string, ...args: string[]) => [process.execPath, "--import", "tsx", script, ...args];
  switch (method) {
    case "transcode":
      return [FFMPEG, ...transcodeArgs(input, output)];
    case "engine":
    case "engine-no-text":
      return node(
        "scripts/clean.ts",
        input,
        "-o",
        output,
        "--json",
        "--provider",
        options.gpu ? "cuda" : "auto",
      );
    case "engine-warm":
      return node("bench/warm-engine.ts", input, output, warmUp, "--provider", options.gpu ? "cuda" : "auto");
    case "delogo":
      return [FFMPEG, "-hide_banner", "-nostdin", "-v", "error", "-y", "-i", input].concat([
        "-vf",
        delogoFilter(truth, clip),
        ...OUTPUT_ENCODING,
        output,
      ]);
    case "telea":
      return node("bench/telea.ts", dir, output);
  }
}

/** Runs one method on a clip's input as a child process, measured alone. A failure is recorded, not thrown. */
export async function runMethod(
  method: MethodName,
  dir: string,
  clip: ClipSpec,
  truth: Truth,
  options: RunOptions,
): Promise<MethodRun> {
  const files = clipFiles(dir);
  const output = files.output(method);
  // Made before the clock starts: only the method itself is timed.
  const input = method === "engine-no-text" ? await textFreeInput(dir) : files.input;
  const warmUp = method === "engine-warm" ? await warmUpInput(dir) : "";
  const [command, ...args] = commandOf(method, dir, input, warmUp, clip, truth, output, options) as [
    string,
    ...string[],
  ];
  const measured = await measureProcess(command, args, REPO_ROOT);
  const run: MethodRun = {
    method,
    output,
    seconds: measured.seconds,
    cpuSeconds: measured.cpuSeconds,
    peakRssMb: measured.peakRssMb,
  };
  if (measured.exitCode !== 0)
    return { ...run, error: measured.stderrTail || `exit code ${measured.exitCode}` };
  if (!method.startsWith("engine")) return run;
  const summary = JSON.parse(measured.stdout.trim().split("\n").at(-1) ?? "{}") as NonNullable<
    MethodRun["summary"]
  >;
  if (method !== "engine-warm") return { ...run, summary };
  // The warm process's own start and warm-up are not the cleaning's.
  const cpuSeconds = Object.values(summary.cpu_seconds).reduce((a, b) => a + b, 0);
  return { ...run, summary, seconds: summary.seconds ?? run.seconds, cpuSeconds };
}
