import { once } from "node:events";
import { rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";
import { timedSync } from "../stage-clock";
import { colourTagArgs, rgbToYuvFilter } from "./colour";
import { MediaError } from "./errors";
import type { Frame, FrameSink } from "./frames";
import { videoTrack } from "./mp4-boxes";
import { setTrackTiming } from "./mp4-duration";
import { editMoov } from "./mp4-moov";
import { setTrackRotation } from "./mp4-rotation";
import { NutWriter } from "./nut-writer";
import { parseRational, type VideoProbe } from "./probe";
import { customerFileInput, ffmpegBinary, startMediaProcess } from "./process";
import { type VideoEncoder, videoCodecArgs } from "./video-encoder";

/**
 * Constant quality 12: outside the masks it keeps the bench's real clips 0.4 to 0.6 dB closer to the
 * input than 13 did (real-handheld 41.7 → 42.2 dB PSNR; only real-city's noisy turning shot stays
 * under 42), at 1.2 to 1.5 times the input's size (1.0 to 1.4 at 13). `-tune psnr` (adaptive quantisation off) was tried: at
 * CRF 14 it took real footage 0.3 dB closer to the input than the default at the same size, but on
 * flat graphics it spends far fewer bits (slide-cta's colour bars: 3.3 dB further from the input
 * outside the masks, at half the size), and an ad is often both. veryfast encodes about twice as fast
 * as medium; slower presets mostly buy a smaller file.
 */
export const DEFAULT_CRF = 12;
export const DEFAULT_PRESET = "veryfast";

interface EncoderOptions {
  signal?: AbortSignal;
  crf?: number;
  preset?: string;
  /** libx264 unless told (the engine passes selectVideoEncoder's choice). */
  videoEncoder?: VideoEncoder;
}

/**
 * Encodes RGB24 frames to an H.264 MP4 with the input's timestamps, time base, duration, audio
 * (copied), colour tags and rotation. Frames go to ffmpeg's stdin in NUT, each with its own pts; NUT
 * carries no durations, so the last frame's is written into the finished file (setTrackTiming). The
 * output is written next to `outputPath` and moved there only when complete, so an aborted or failed
 * encode leaves nothing behind.
 */
export function openEncoder(
  inputPath: string,
  outputPath: string,
  probe: VideoProbe,
  options: EncoderOptions = {},
): FrameSink {
  const partialPath = `${outputPath}.partial`;
  // Started as encode, so that the callbacks of its pipe count as encode too (stage-clock.ts).
  const encoder = timedSync("encode", () =>
    startMediaProcess(ffmpegBinary(), encoderArgs(inputPath, partialPath, probe, options), {
      signal: options.signal,
      stdin: true,
    }),
  );
  const stdin = encoder.child.stdin as Writable;
  stdin.on("error", () => undefined); // EPIPE when ffmpeg quits early: its exit says why

  const timeBase = parseRational(probe.timeBase);
  const nut = new NutWriter(probe.width, probe.height, timeBase);
  const frameBytes = probe.width * probe.height * 3;
  let firstPts = Number.NaN;
  let lastPts = Number.NEGATIVE_INFINITY;
  let closed = false;

  let discarded: Promise<void> | undefined;
  const discard = () => {
    discarded ??= (async () => {
      encoder.stop();
      await encoder.exited.catch(() => undefined);
      await rm(partialPath, { force: true });
    })();
    return discarded;
  };
  options.signal?.addEventListener("abort", discard, { once: true });

  // Settles (as a failure) when ffmpeg exits, which it must not do while we still write.
  const quit = encoder.exited.then(() => {
    throw new MediaError("ffmpeg_failed", "ffmpeg stopped before taking all frames.");
  });
  quit.catch(() => undefined);

  /** Writes to ffmpeg, waiting while the pipe is full (backpressure). */
  const send = async (parts: Uint8Array[]) => {
    try {
      for (const part of parts) {
        if (!stdin.write(part)) await Promise.race([once(stdin, "drain"), quit]);
      }
    } catch (error) {
      await discard();
      // After discard() ffmpeg has exited; its error (or the abort) is the cause, the pipe's the symptom.
      throw await encoder.exited.then(
        () => error,
        (exitError: unknown) => exitError,
      );
    }
  };

  const writeFrame = async (frame: Frame) => {
    if (closed) throw new Error("The encoder is finished or aborted.");
    if (frame.data.length !== frameBytes) {
      throw new RangeError(`Frame ${frame.index} has ${frame.data.length} bytes, not ${frameBytes}.`);
    }
    const pts = Math.round((frame.ptsSeconds * timeBase.den) / timeBase.num);
    if (pts <= lastPts) throw new RangeError(`Frame ${frame.index} is not after the previous frame.`);
    if (Number.isNaN(firstPts)) firstPts = pts;
    lastPts = pts;
    await send([nut.frameHeader(pts, frame.data.length), frame.data]);
  };

  let queue = send([nut.header()]);
  queue.catch(() => undefined); // surfaces through write() or finish()

  let finished: Promise<void> | undefined;
  const complete = async () => {
    try {
      await queue;
      stdin.end();
      await encoder.exited;
      await editMoov(partialPath, (moov) => {
        const trak = videoTrack(moov);
        if (probe.rotation) setTrackRotation(moov, trak, probe.rotation);
        // The input's frames all came through: the last one lasts what is left of the input's span
        // (never less than nothing, should a container state a span shorter than its frames).
        const shown = Math.max(probe.spanPts, lastPts - firstPts);
        const timing = { shown, lastFrame: shown - (lastPts - firstPts) };
        return setTrackTiming(moov, trak, timing, timeBase);
      });
      await rename(partialPath, outputPath);
    } catch (error) {
      await discard();
      throw error;
    } finally {
      options.signal?.removeEventListener("abort", discard);
    }
  };

  return {
    write(frame) {
      queue = queue.then(() => writeFrame(frame));
      return queue;
    },
    finish() {
      closed = true;
      finished ??= complete();
      return finished;
    },
    abort() {
      closed = true;
      return discard();
    },
  };
}

function encoderArgs(
  inputPath: string,
  outputPath: string,
  probe: VideoProbe,
  options: EncoderOptions,
): string[] {
  const quality = { crf: options.crf ?? DEFAULT_CRF, preset: options.preset ?? DEFAULT_PRESET };
  // The MP4 muxer would multiply a timescale under 10000 (QuickTime's 600, 1/20 of an AVI) until it is not.
  const timescale = String(parseRational(probe.timeBase).den);
  // At a variable rate x264's decoding times do not follow the display times, and players and ffprobe
  // guess the frame rate from them: a video without B-frames keeps its rate only without them.
  const bFrames = probe.variableFrameRate && !probe.reordersFrames ? ["-bf", "0"] : [];
  return [
    ...["-hide_banner", "-nostdin", "-v", "error", "-y"],
    // Our frames with their pts, and the original file for its audio; -copyts keeps both clocks as they are.
    ...["-copyts", "-f", "nut", "-i", "pipe:0", ...customerFileInput(inputPath)],
    ...["-map", "0:v:0", "-map", "1:a?", "-map_metadata", "1"],
    ...["-vf", rgbToYuvFilter(probe.color)],
    ...videoCodecArgs(options.videoEncoder ?? "libx264", quality),
    ...bFrames,
    ...["-fps_mode", "passthrough", "-enc_time_base:v", "-1", "-video_track_timescale", timescale],
    ...colourTagArgs(probe.color),
    ...["-c:a", "copy", "-movflags", "+faststart", "-f", "mp4", outputPath],
  ];
}
