import { type ChildProcess, spawn } from "node:child_process";
import { abortError, MediaError } from "./errors";

/** ffmpeg's last words are at the end of stderr; keep that much of it. */
const STDERR_TAIL_CHARS = 4000;
/** How long SIGTERM may take before SIGKILL. */
const KILL_GRACE_MS = 2000;

export function ffmpegBinary(): string {
  return process.env.FFMPEG_PATH || "ffmpeg";
}

export function ffprobeBinary(): string {
  return process.env.FFPROBE_PATH || "ffprobe";
}

/**
 * How every ffmpeg and ffprobe run opens a customer's file: with the MP4/MOV demuxer, never one
 * guessed from the content (an HLS playlist named input.mp4 would make ffmpeg open the files it
 * lists), over the file protocol only, and the path as a file: URL so nothing in it reads as a
 * protocol. The mov demuxer follows no external data references (its enable_drefs is off).
 */
export function customerFileInput(path: string): string[] {
  return ["-protocol_whitelist", "file", "-f", "mov", "-i", `file:${path}`];
}

export interface MediaProcess {
  readonly child: ChildProcess;
  /** Settles once the process is gone: resolves on exit code 0, else rejects (AbortError or MediaError). */
  readonly exited: Promise<void>;
  /** The last lines ffmpeg wrote to stderr so far. */
  stderrTail(): string;
  /** Ends the process: SIGTERM, then SIGKILL after a grace period. Safe to call when it has exited. */
  stop(): void;
}

interface StartOptions {
  signal?: AbortSignal;
  /** Pipe our data into the process's stdin (else stdin is closed). */
  stdin?: boolean;
  /** Pipe the process's stdout to us (else it is discarded). */
  stdout?: boolean;
}

/** Spawns ffmpeg or ffprobe; an abort of the signal stops it and makes `exited` reject with AbortError. */
export function startMediaProcess(binary: string, args: string[], options: StartOptions = {}): MediaProcess {
  const { signal } = options;
  const child = spawn(binary, args, {
    stdio: [options.stdin ? "pipe" : "ignore", options.stdout ? "pipe" : "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_CHARS);
  });
  const stderrTail = () => stderr.trim();

  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    // Dropping our ends of the pipes unblocks a process that waits on them, and lets "close" come.
    child.stdin?.destroy();
    child.stdout?.destroy();
    if (child.exitCode !== null || child.signalCode !== null || killTimer) return;
    child.kill("SIGTERM");
    killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
  };
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted) stop();

  const exited = new Promise<void>((resolve, reject) => {
    const name = binary.split("/").pop() ?? binary;
    child.once("error", (error) => {
      reject(new MediaError("ffmpeg_failed", `${name} could not be started: ${error.message}`));
    });
    // "close" comes after stderr is drained, so the tail is complete.
    child.once("close", (code, killSignal) => {
      clearTimeout(killTimer);
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) reject(abortError());
      else if (code === 0) resolve();
      else reject(new MediaError("ffmpeg_failed", `${name} failed (${code ?? killSignal})`, stderrTail()));
    });
  });
  // Callers await `exited` when they need to; an unobserved failure must not crash the process.
  exited.catch(() => undefined);
  return { child, exited, stderrTail, stop };
}

/** Runs ffprobe (or ffmpeg) to the end and returns what it wrote to stdout. */
export async function runForText(binary: string, args: string[], signal?: AbortSignal): Promise<string> {
  const run = startMediaProcess(binary, args, { signal, stdout: true });
  let text = "";
  run.child.stdout?.setEncoding("utf8");
  try {
    for await (const chunk of run.child.stdout ?? []) text += chunk;
  } finally {
    await run.exited;
  }
  return text;
}
