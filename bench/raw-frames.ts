import { spawn } from "node:child_process";
import { FFMPEG } from "./ffmpeg";

export interface FrameSize {
  width: number;
  height: number;
}

/** How the scores see every file: swscale's default matrix (the files are untagged BT.601), accurately. */
const METRIC_CONVERSION = "scale=flags=bicubic+accurate_rnd+full_chroma_int,format=rgb24";

/**
 * Decodes a video's first video stream to RGB24 frames through a pipe, one frame at a time: while the
 * consumer works on a frame nothing is read, the pipe fills and ffmpeg waits, so memory holds a few
 * frames whatever the video's length. Every file scored is converted the same way (`toRgb`, a filter
 * ending in rgb24), so comparisons between them see only what differs in the files.
 */
export async function* rgbFrames(
  path: string,
  size: FrameSize,
  toRgb = METRIC_CONVERSION,
): AsyncGenerator<Uint8Array> {
  const child = spawn(
    FFMPEG,
    [
      ...["-hide_banner", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough"],
      ...["-vf", toRgb, "-f", "rawvideo", "-"],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const frameBytes = size.width * size.height * 3;
  let frame = new Uint8Array(frameBytes);
  let filled = 0;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < chunk.length) {
        const taken = Math.min(frameBytes - filled, chunk.length - offset);
        frame.set(chunk.subarray(offset, offset + taken), filled);
        filled += taken;
        offset += taken;
        if (filled === frameBytes) {
          yield frame;
          frame = new Uint8Array(frameBytes);
          filled = 0;
        }
      }
    }
    const code = await exited;
    if (code !== 0) throw new Error(`decoding ${path} failed (${code}): ${stderr.trim()}`);
    if (filled > 0) throw new Error(`${path} ends in a partial frame: is it ${size.width}x${size.height}?`);
  } finally {
    // The consumer may stop early: the decoder must not outlive it.
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}
