import type { CleanOptions, CleanSummary } from "../engine-contract";
import { fillFrame, type PreviousFill } from "./fill";
import { type IndexedFrame, MotionChain } from "./fill/motion-chain";
import type { Rect } from "./fill/types";
import { decodeFrames, openEncoder } from "./media/frames";
import { MediaError, probeVideo, type VideoProbe } from "./media/probe";
import { selectVideoEncoder } from "./media/video-encoder";
import { createOcrEngine, type OcrEngine, type RgbFrame } from "./ocr/ocr";
import { analyseVideo, type TextTrack } from "./pipeline/analyse";
import { type LineLook, newLineLook } from "./pipeline/caption-box";
import { dilate } from "./pipeline/dilate";
import { markTextLine } from "./pipeline/masks";
import { boxAt } from "./pipeline/tracks";
import { residualText } from "./pipeline/verify";

/**
 * Frames on each side of the one being filled, kept in memory as sources: the bounded window. A
 * caption that stays put while the camera moves slowly hides pixels that only frames well before or
 * after show, so the window reaches up to MAX_WINDOW_RADIUS frames (0.8 s at 25 fps) within a memory
 * budget for its frames and masks: 20 at 720p, 16 at 1080p, 4 at 2160p; never fewer than 2.
 */
const MAX_WINDOW_RADIUS = 20;
const MIN_WINDOW_RADIUS = 2;
const WINDOW_BUDGET_BYTES = 256 * 1024 * 1024;

export function windowRadius(width: number, height: number): number {
  // RGB and a one-byte mask per pixel, for the frames on both sides.
  const frameBytes = width * height * 4;
  const fits = Math.floor(WINDOW_BUDGET_BYTES / (2 * frameBytes));
  return Math.max(MIN_WINDOW_RADIUS, Math.min(MAX_WINDOW_RADIUS, fits));
}
/** Every this many cleaned frames, the cleaned region is read again for leftover text. */
const VERIFY_EVERY = 8;
const WIDEN_PIXELS = 4;

export interface EngineOptions extends CleanOptions {
  /** A loaded OCR engine to reuse (the worker keeps one); otherwise one is opened for this call. */
  ocr?: OcrEngine;
}

/** A file cut short stops before the duration its header states: refuse it rather than shorten the ad. */
function assertComplete(probe: VideoProbe, lastPtsSeconds: number): void {
  const frameSeconds = 1 / Math.max(1, probe.avgFps);
  if (lastPtsSeconds + 3 * frameSeconds < probe.durationSeconds * 0.98) {
    throw new MediaError(
      "unreadable_video",
      `The video ends early: its frames stop at ${lastPtsSeconds.toFixed(2)} s of ${probe.durationSeconds.toFixed(2)} s.`,
    );
  }
}

/**
 * The mask of one frame: every line to erase that is on screen then, and where the picture behind a
 * see-through box was restored in `frame`; `looks` by track id.
 */
function frameMask(
  frame: RgbFrame,
  index: number,
  tracks: TextTrack[],
  looks: Map<number, LineLook>,
): { mask: Uint8Array; behind?: Uint8Array } | null {
  const active = tracks.filter(({ track }) => track.first <= index && index <= track.last);
  if (active.length === 0) return null;
  const mask = new Uint8Array(frame.width * frame.height);
  let behind: Uint8Array | undefined;
  const behindOf = () => {
    behind ??= new Uint8Array(frame.width * frame.height);
    return behind;
  };
  for (const { track } of active) {
    const look = looks.get(track.id) ?? newLineLook();
    looks.set(track.id, look);
    markTextLine(frame, boxAt(track, index), mask, look, behindOf);
  }
  return behind ? { mask, behind } : { mask };
}

/**
 * Cleans a video: the analysis pass finds the lines to erase and when they are on screen; the
 * cleaning pass streams full-resolution frames through a window of up to ±20 frames (windowRadius),
 * fills the masked pixels from the nearest frames that show them (then spatially), checks the
 * cleaned regions for leftover text (one wider second try on a find), and encodes. Frames without text pass through untouched.
 */
export async function cleanVideo(
  input: string,
  output: string,
  options: EngineOptions = {},
): Promise<CleanSummary> {
  const { signal } = options;
  const report = options.onProgress ?? (() => undefined);
  const probe = await probeVideo(input, signal);
  const ocr = options.ocr ?? (await createOcrEngine());
  try {
    // With the customer's texts there is no automatic reading: the pass only locates those lines.
    const locating = options.texts ? "masking" : "reading_text";
    const analysis = await analyseVideo(input, probe, {
      ocr,
      texts: options.texts ?? null,
      ...(signal ? { signal } : {}),
      onProgress: (fraction) => report(locating, fraction),
    });
    assertComplete(probe, analysis.lastPtsSeconds);
    const tracks = analysis.tracks.filter((t) => t.erase);
    report("masking", 1);

    // NVENC only where onnxruntime got the GPU too (decided once per process).
    const { encoder: videoEncoder } = await selectVideoEncoder(ocr.provider === "cuda");
    const encoder = openEncoder(input, output, probe, { videoEncoder, ...(signal ? { signal } : {}) });
    const radius = windowRadius(probe.width, probe.height);
    const window: Array<IndexedFrame & { ptsSeconds: number; hasText: boolean }> = [];
    // One motion measurement per pair of consecutive frames, composed for the neighbours.
    const chain = new MotionChain();
    // Frames without text share one empty mask (neighbours still need one), never written to.
    const noText = new Uint8Array(probe.width * probe.height);
    // What each line's earlier frames showed of its shaded box.
    const looks = new Map<number, LineLook>();
    let previous: PreviousFill | undefined;
    let cleaned = 0;
    let residualLines = 0;

    /** Writes frame `index`, which must be in `window`, filled when it has a mask. */
    const emit = async (index: number) => {
      const center = index - (window[0]?.index ?? 0);
      const item = window[center];
      if (!item) return;
      if (!item.hasText) {
        await encoder.write({ index: item.index, ptsSeconds: item.ptsSeconds, data: item.frame.data });
        previous = undefined;
        return;
      }
      const fill = {
        windowRadius: radius,
        motion: (to: number, roi: Rect) => chain.between(window, center, to, roi),
      };
      let result = await fillFrame(window, center, previous, fill);
      if (cleaned++ % VERIFY_EVERY === 0) {
        const leftover = await residualText(ocr, result.frame, item.mask);
        if (leftover.length > 0) {
          const widened = dilate(item.mask, item.frame.width, item.frame.height, WIDEN_PIXELS);
          for (const box of leftover) markTextLine(item.frame, box, widened);
          const retry = window.map((w, i) => (i === center ? { ...w, mask: widened } : w));
          result = await fillFrame(retry, center, previous, fill);
          residualLines += (await residualText(ocr, result.frame, widened)).length;
        }
      }
      previous = { frame: result.frame, filledMask: result.synthesized };
      await encoder.write({ index: item.index, ptsSeconds: item.ptsSeconds, data: result.frame.data });
    };
    let next = 0;
    /** Emits every frame whose future neighbours have arrived (all of them at the end), in order. */
    const emitReady = async (lastArrived: number, ended: boolean) => {
      while (next <= lastArrived && (ended || next + radius <= lastArrived)) {
        await emit(next++);
        while ((window[0]?.index ?? next) < next - radius) window.shift();
        chain.forget(window[0]?.index ?? next);
      }
    };

    try {
      let lastArrived = -1;
      for await (const frame of decodeFrames(input, probe, signal ? { signal } : {})) {
        const rgb = { width: probe.width, height: probe.height, data: frame.data };
        const masks = frameMask(rgb, frame.index, tracks, looks);
        window.push({
          frame: rgb,
          mask: masks?.mask ?? noText,
          ...(masks?.behind ? { behind: masks.behind } : {}),
          hasText: masks !== null,
          index: frame.index,
          ptsSeconds: frame.ptsSeconds,
        });
        lastArrived = frame.index;
        await emitReady(lastArrived, false);
        report("cleaning", (frame.index + 1) / Math.max(1, probe.frameCount));
      }
      await emitReady(lastArrived, true);
      report("verifying", 1);
      report("assembling", 0);
      await encoder.finish();
      report("assembling", 1);
    } catch (error) {
      encoder.abort();
      throw error;
    }
    return { frames: analysis.frames, linesErased: tracks.length, residualLines };
  } finally {
    if (!options.ocr) await ocr.close();
  }
}
