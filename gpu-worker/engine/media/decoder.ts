import type { Readable } from "node:stream";
import { stageClock, timed, timedSync } from "../stage-clock";
import type { BufferPool } from "./buffer-pool";
import { yuvToRgbFilter } from "./colour";
import { abortError, MediaError } from "./errors";
import type { Frame } from "./frames";
import { readNutFrames } from "./nut-reader";
import type { VideoProbe } from "./probe";
import { customerFileInput, ffmpegBinary, startMediaProcess } from "./process";

/**
 * Decodes a video to RGB24 frames with their own timestamps. ffmpeg writes rawvideo in NUT to its stdout
 * and the frames are read one at a time as the consumer asks for them: while it works on a frame, the
 * pipe fills and ffmpeg waits, so memory holds a few frames whatever the video's length.
 */
export interface DecodeOptions {
  signal?: AbortSignal;
  /** Frames scaled to this size (the analysis pass reads text at a reduced size); default: coded size. */
  size?: { width: number; height: number };
  /** Where the frames' buffers come from; the consumer gives each back when done with it. */
  pool?: BufferPool;
  /**
   * Decoding starts at the frame shown at this time (a seek: ffmpeg decodes from the keyframe before
   * it and drops the frames before it); timestamps stay the file's own. Indices count from the seek.
   */
  fromSeconds?: number;
}

export async function* decodeFrames(
  path: string,
  probe: VideoProbe,
  options: DecodeOptions = {},
): AsyncGenerator<Frame> {
  const { signal } = options;
  if (signal?.aborted) throw abortError();
  // Started as decode, so that the callbacks of its pipe count as decode too (stage-clock.ts).
  const decoder = timedSync("decode", () =>
    startMediaProcess(ffmpegBinary(), decoderArgs(path, probe, options), { signal, stdout: true }),
  );
  const stdout = decoder.child.stdout as Readable;
  const frameBytes = (options.size?.width ?? probe.width) * (options.size?.height ?? probe.height) * 3;
  let index = 0;
  const { pool } = options;
  const allocate = (size: number) => (size === pool?.bytes ? pool.take(false) : new Uint8Array(size));
  const reader = readNutFrames(stdout, allocate);
  // The pipe's parsing is decode's in-process part; ffmpeg's own CPU is read as it works.
  const clock = stageClock();
  try {
    for (;;) {
      const next = await timed("decode", () => reader.next());
      clock?.followChild("decode", decoder.child.pid);
      if (next.done) break;
      const frame = next.value;
      if (frame.data.length !== frameBytes) {
        throw new MediaError(
          "ffmpeg_failed",
          `Frame ${index} has ${frame.data.length} bytes, not ${frameBytes}.`,
        );
      }
      yield { index: index++, ptsSeconds: frame.ptsSeconds, data: frame.data };
    }
    await decoder.exited;
  } catch (error) {
    if (signal?.aborted) throw abortError();
    // A stream that ends early is a symptom: ffmpeg's exit says what went wrong.
    if (stdout.readableEnded) await decoder.exited;
    throw error;
  } finally {
    await reader.return(undefined).catch(() => undefined);
    decoder.stop();
    await decoder.exited.catch(() => undefined);
  }
}

function decoderArgs(path: string, probe: VideoProbe, { size, fromSeconds }: DecodeOptions): string[] {
  const resize = size ? `scale=${size.width}:${size.height}:flags=area,` : "";
  const seek = fromSeconds === undefined ? [] : ["-ss", fromSeconds.toFixed(6)];
  return [
    ...["-hide_banner", "-nostdin", "-v", "error"],
    // Coded frames as stored (rotation stays metadata) with the file's own timestamps.
    ...["-noautorotate", "-copyts", ...seek, ...customerFileInput(path)],
    ...["-map", `0:${probe.streamIndex}`],
    // One output frame per decoded frame, timestamps in the stream's time base (not rounded to a rate).
    ...["-fps_mode", "passthrough", "-enc_time_base:v", "-1"],
    ...["-vf", `${resize}${yuvToRgbFilter(probe.color)}`],
    ...["-c:v", "rawvideo", "-f", "nut", "-write_index", "0", "pipe:1"],
  ];
}

/**
 * The frames shown at `ptsSeconds` (consecutive, in order), decoded alone after a seek; undefined
 * where the seek lands on no frame within `tolerance` seconds of the first, or the frames that follow
 * are not the ones asked for. The buffers of frames not returned go back to the pool.
 */
export async function decodeFramesAt(
  path: string,
  probe: VideoProbe,
  ptsSeconds: number[],
  tolerance: number,
  options: Omit<DecodeOptions, "fromSeconds" | "size"> = {},
): Promise<Uint8Array[] | undefined> {
  const first = ptsSeconds[0] ?? 0;
  const frames = decodeFrames(path, probe, { ...options, fromSeconds: Math.max(0, first - tolerance) });
  const decoded: Uint8Array[] = [];
  try {
    let matched = true;
    for (const wanted of ptsSeconds) {
      const next = await frames.next();
      if (next.done) {
        matched = false;
        break;
      }
      decoded.push(next.value.data);
      matched = Math.abs(next.value.ptsSeconds - wanted) <= tolerance;
      if (!matched) break;
    }
    if (matched) return decoded;
    for (const data of decoded) options.pool?.give(data);
    return undefined;
  } finally {
    await frames.return(undefined);
  }
}
