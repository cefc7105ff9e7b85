import { descendantsOf, isRunning } from "./process-tree";

/**
 * The ffmpeg and ffprobe processes still running anywhere below this test process (children,
 * grandchildren: a shell or a worker in between hides nothing). Throws when it cannot look.
 */
export async function ffmpegChildren(rootPid = process.pid, procDir = "/proc"): Promise<string[]> {
  return (await descendantsOf(rootPid, procDir))
    .filter(isRunning)
    .map((entry) => entry.command)
    .filter((command) => command.startsWith("ffmpeg") || command.startsWith("ffprobe"));
}
