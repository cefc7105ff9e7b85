import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** A video file's duration in seconds, read by ffprobe (FFPROBE_PATH, else `ffprobe` on PATH). */
export async function probeDuration(file: string): Promise<number> {
  const { stdout } = await promisify(execFile)(process.env.FFPROBE_PATH || "ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration",
    "-of",
    "csv=p=0",
    file,
  ]);
  const seconds = Number(stdout.trim());
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`${file}: ffprobe found no duration.`);
  return seconds;
}
