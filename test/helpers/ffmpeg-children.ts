import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** The ffmpeg and ffprobe processes this test process started that are still running. */
export async function ffmpegChildren(): Promise<string[]> {
  const { stdout } = await promisify(execFile)("ps", ["-o", "comm=", "--ppid", String(process.pid)]).catch(
    () => ({ stdout: "" }),
  );
  return stdout
    .split("\n")
    .filter((command) => command.startsWith("ffmpeg") || command.startsWith("ffprobe"));
}
