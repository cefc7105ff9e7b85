import type { CleanOptions, CleanSummary } from "../engine-contract";
import { type FramePools, fillFrame, forgetTiles, framePools, type PreviousFill } from "./fill";
import { finishFill, motionRegion, startFill, type WindowSearcher } from "./fill/fill";
import { LaterFrames } from "./fill/later-frames";
import { type IndexedFrame, MotionChain, motionAcross, regionKey } from "./fill/motion-chain";
import { PastFrames } from "./fill/past-frames";
import { type FillJob, FillPool, fillPoolSize } from "./fill/pool";
import { cutBetween, ShotCounter } from "./fill/shot-cut";
import { fillSource } from "./fill/temporal";
import { keptSources } from "./fill/window-fill";
import type { SizedRect } from "./geometry";

import type { BufferPool } from "./media/buffer-pool";
import { decodeFramesAt } from "./media/decoder";
import { decodeFrames, type Frame, type FrameSink, openEncoder } from "./media/frames";
import { MediaError, probeVideo, type VideoProbe } from "./media/probe";
import { selectVideoEncoder } from "./media/video-encoder";
import { createOcrEngine, type OcrEngine, type RgbFrame } from "./ocr/ocr";
import { analyseVideo, type TextTrack } from "./pipeline/analyse";
import { areasAt, type FrameArea, frameAreas } from "./pipeline/areas";
import { BeforeAfter } from "./pipeline/before-after";
import { sightedBox } from "./pipeline/box-sightings";
import { type LineLook, newLineLook } from "./pipeline/caption-box";
import { dilate } from "./pipeline/dilate";
import { fillRect, markTextLine } from "./pipeline/masks";
import { ReportCollector } from "./pipeline/report";
import { boxAt } from "./pipeline/tracks";
import { residualText } from "./pipeline/verify";
import { timed, timedChildren, timedSync } from "./stage-clock";

/**
 * Frames on each side of the one being filled, kept in memory as sources: the bounded window. A
 * caption that stays put while the camera moves slowly hides pixels that only frames well before or
 * after show, so the window reaches up to MAX_WINDOW_RADIUS frames (0.8 s at 25 fps) within a memory
 * budget for its frames and masks: 20 at 720p, 16 at 1080p, 4 at 2160p; never fewer than 2. The
 * frames kept from before the window (fill/past-frames.ts) and fetched from after it
 * (fill/later-frames.ts) come on top: PAST_FRAMES and LATER_FRAMES more at most.
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
  /**
   * The fill's worker threads to reuse (the worker keeps them); otherwise, unless FILL_THREADS says
   * none (fillPoolSize), a pool is opened for this call.
   */
  fillPool?: FillPool;
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
 * The mask of one frame: the lines to erase and the customer's areas on screen then (`active`, of
 * which one at least), and where the picture behind a see-through box was restored in `frame`;
 * `looks` by track id; `pixels` marked in all.
 */
function frameMask(
  frame: RgbFrame,
  index: number,
  active: { lines: TextTrack[]; areas: FrameArea[] },
  looks: Map<number, LineLook>,
  planes: BufferPool,
): { mask: Uint8Array; behind?: Uint8Array; textOnly?: Uint8Array; pixels: number } {
  const mask = planes.take();
  let behind: Uint8Array | undefined;
  const behindOf = () => {
    behind ??= planes.take();
    return behind;
  };
  let pixels = 0;
  for (const { track } of active.lines) {
    const look = looks.get(track.id) ?? newLineLook(sightedBox(track.detections));
    looks.set(track.id, look);
    pixels += markTextLine(frame, boxAt(track, index), mask, look, behindOf);
  }
  // An area is erased whole: no reading, no glyphs, every pixel of it.
  for (const area of active.areas) pixels += fillRect(mask, frame.width, area.rect);
  if (!behind) return { mask, pixels };
  const textOnly = planes.take(false);
  for (let p = 0; p < mask.length; p++) textOnly[p] = behind[p] ? 0 : (mask[p] as number);
  return { mask, behind, textOnly, pixels };
}

/** A frame of the cleaning window; `shot` counts the cuts before it (fill/shot-cut.ts). */
type WindowFrame = IndexedFrame & { ptsSeconds: number; hasText: boolean; shot: number };

/**
 * Frame `index`, decoded ahead of the window with the frame before it and masked for the lines on it
 * then (fill/later-frames.ts); undefined where the seek does not land on them, or where a cut lies
 * between the two: the frame after a line that leaves at a cut shows another shot, which the frames
 * still under the line cannot tell (the window stops at cuts for the same reason). Its shot is not
 * known yet (-1).
 */
async function laterFrame(pass: CleaningPass, index: number): Promise<WindowFrame | undefined> {
  const { probe, framePts, pools } = pass;
  const times = [framePts[index - 1] as number, framePts[index] as number];
  // Half the shortest gap around them (a variable rate makes gaps uneven): the seek lands past the
  // frame before them, and no frame is taken for another.
  const gaps = [index - 1, index].flatMap((at) =>
    at > 0 ? [(framePts[at] as number) - (framePts[at - 1] as number)] : [],
  );
  const tolerance = Math.min(...gaps) / 2;
  const pictures = await timed("decode", () =>
    decodeFramesAt(pass.input, probe, times, tolerance, {
      pool: pools.pictures,
      ...(pass.signal ? { signal: pass.signal } : {}),
    }),
  );
  if (!pictures) return undefined;
  const [before, after] = pictures.map((data, k) => maskedFrame(pass, index - 1 + k, data));
  const cut = timedSync("fill", () => cutBetween(before as WindowFrame, after as WindowFrame));
  releaseFrame(before as WindowFrame, pools);
  if (!cut) return after;
  releaseFrame(after as WindowFrame, pools);
  return undefined;
}

/** The lines to erase and the customer's areas on screen at frame `index`, shown at `ptsSeconds`. */
function onScreen(
  { tracks, areas }: Pick<CleaningPass, "tracks" | "areas">,
  index: number,
  ptsSeconds: number,
): { lines: TextTrack[]; areas: FrameArea[] } {
  return {
    lines: tracks.filter(({ track }) => track.first <= index && index <= track.last),
    areas: areasAt(areas, ptsSeconds),
  };
}

/** A frame decoded out of the stream, masked for the lines on screen then, with looks of its own. */
function maskedFrame(pass: CleaningPass, index: number, data: Uint8Array): WindowFrame {
  const { probe, pools } = pass;
  const ptsSeconds = pass.framePts[index] as number;
  const frame = { width: probe.width, height: probe.height, data };
  const active = onScreen(pass, index, ptsSeconds);
  // What a line showed of its box so far belongs to the frames before it: a fresh look.
  const masks = timedSync("masks", () => frameMask(frame, index, active, new Map(), pools.planes));
  return {
    frame,
    index,
    ptsSeconds,
    mask: masks.mask,
    ...(masks.behind ? { behind: masks.behind } : {}),
    ...(masks.textOnly ? { textOnly: masks.textOnly } : {}),
    hasText: true,
    shot: -1,
  };
}

/** Gives a frame that left the window back to the pools: its picture, and its masks when it had text. */
function releaseFrame(item: WindowFrame, pools: FramePools): void {
  pools.pictures.give(item.frame.data);
  if (!item.hasText) return;
  givePlane(item.mask, pools);
  if (item.behind) givePlane(item.behind, pools);
  if (item.textOnly) givePlane(item.textOnly, pools);
}

/** Gives a fill's output back to the pools once it is encoded and no longer the previous fill. */
function releaseFill(fill: PreviousFill | undefined, pools: FramePools): void {
  if (!fill) return;
  pools.pictures.give(fill.frame.data);
  givePlane(fill.filledMask, pools);
}

/** Gives a mask-sized plane back, forgetting what the fill knew of it as a mask (forgetTiles). */
function givePlane(plane: Uint8Array, pools: FramePools): void {
  forgetTiles(plane);
  pools.planes.give(plane);
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
  const probe = await timedChildren("load", () => probeVideo(input, signal));
  options.admit?.({ durationSeconds: probe.longestSeconds, width: probe.width, height: probe.height });
  const ocr = options.ocr ?? (await timed("load", () => createOcrEngine()));
  // Its threads start (load their code) while the video is read.
  const poolSize = options.fillPool ? 0 : fillPoolSize();
  const fillPool = options.fillPool ?? (poolSize > 0 ? new FillPool(poolSize) : undefined);
  const fillJob = fillPool?.job(signal);
  try {
    // NVENC only where onnxruntime got the GPU too (decided once per process).
    const { encoder: videoEncoder } = await timedChildren("load", () =>
      selectVideoEncoder(ocr.provider === "cuda"),
    );
    // The cleaning pass's encoder and decoder start now: their ffmpeg start-up (tenths of a second,
    // spent waiting) overlaps the analysis. The decoder stops at its first frame until the pass asks.
    const pools = framePools(probe.width, probe.height);
    const encoder = openEncoder(input, output, probe, { videoEncoder, ...(signal ? { signal } : {}) });
    const frames = decodeFrames(input, probe, { pool: pools.pictures, ...(signal ? { signal } : {}) });
    const first = frames.next();
    first.catch(() => undefined); // surfaces when the pass awaits it
    try {
      // The reading pass reads the text on screen with or without the customer's texts (they only
      // choose which of the lines read are erased), so both report it as reading_text.
      const analysis = await analyseVideo(input, probe, {
        ocr,
        texts: options.texts ?? null,
        ...(signal ? { signal } : {}),
        onProgress: (fraction) => report("reading_text", fraction),
      });
      assertComplete(probe, analysis.lastPtsSeconds);
      const tracks = analysis.tracks.filter((t) => t.erase);
      // Masks, fills and the check for leftover text all happen frame by frame in this one pass.
      const regions = options.regions ?? [];
      const pass = {
        input,
        probe,
        framePts: analysis.framePts,
        cuts: analysis.cuts,
        tracks,
        areas: frameAreas(regions, probe.width, probe.height),
        ocr,
        pools,
        report,
        ...(fillJob ? { fillJob } : {}),
        ...(signal ? { signal } : {}),
        picture: new BeforeAfter(probe.width, probe.height),
        findings: new ReportCollector(probe, 1 / Math.max(1, probe.avgFps)),
      };
      const residualLines = await cleaningPass({ first, rest: frames }, encoder, pass);
      report("assembling", 0);
      await timed("encode", () => encoder.finish());
      const pictureWritten = options.picturePath
        ? await pass.picture.write(options.picturePath, signal)
        : false;
      report("assembling", 1);
      return {
        frames: analysis.frames,
        linesErased: tracks.length,
        residualLines,
        report: pass.findings.build(analysis.tracks, regions, Boolean(options.texts)),
        pictureWritten,
      };
    } catch (error) {
      // Neither ffmpeg nor the partial output outlives the failure.
      await Promise.all([encoder.abort(), frames.return(undefined).catch(() => undefined)]);
      throw error;
    }
  } finally {
    if (!options.ocr) await ocr.close();
    fillJob?.end();
    if (!options.fillPool) await fillPool?.close();
  }
}

interface CleaningPass {
  input: string;
  probe: VideoProbe;
  /** When each frame is shown (the analysis read them all). */
  framePts: number[];
  /** The frames that start a shot, as the analysis saw the whole picture. */
  cuts: number[];
  /** The lines to erase. */
  tracks: TextTrack[];
  /** The customer's areas, erased whole over their spans. */
  areas: FrameArea[];
  ocr: OcrEngine;
  pools: FramePools;
  /** This job's use of the threads that search the windows of the frames ahead; without, the pass goes frame by frame. */
  fillJob?: FillJob;
  report: NonNullable<CleanOptions["onProgress"]>;
  signal?: AbortSignal;
  picture: BeforeAfter;
  findings: ReportCollector;
}

/**
 * Streams the decoded frames through the window and writes each to the encoder, filled where it has
 * text. Returns how many lines were still read in the cleaned regions after the second try.
 */
async function cleaningPass(
  frames: { first: Promise<IteratorResult<Frame>>; rest: AsyncIterator<Frame> },
  encoder: FrameSink,
  pass: CleaningPass,
): Promise<number> {
  const { probe, tracks, ocr, pools, fillJob: job, report, picture, findings } = pass;
  const radius = windowRadius(probe.width, probe.height);
  const window: WindowFrame[] = [];
  // One motion measurement per pair of consecutive frames and region, composed for the neighbours:
  // a frame's whole window is measured within its own region (fill's motionRegion) before its search
  // starts, so the pool's threads never wait for a motion, and a step means the same whoever asked
  // for it first.
  const chain = new MotionChain();
  // Frames without text share one empty mask (neighbours still need one), never written to; shared
  // memory like the pools' buffers, so the pool's threads read it in place.
  const noText = new Uint8Array(new SharedArrayBuffer(probe.width * probe.height));
  // What each line's earlier frames showed of its shaded box.
  const looks = new Map<number, LineLook>();
  let previous: PreviousFill | undefined;
  // The shot of the frame `previous` is the output of.
  let previousShot = 0;
  const shots = new ShotCounter();
  let cleaned = 0;
  let residualLines = 0;
  /** Where frame `index` sits in `window` (the window holds consecutive frames). */
  const positionOf = (index: number) => index - (window[0]?.index ?? 0);
  // Frames read past a frame's own window before it is written, so that the pool searches the
  // windows of the frames after it meanwhile: one for each thread, and three waiting (for the
  // thread that finishes first, and for the cleaning thread to search itself while it waits).
  const lookahead = job ? job.threads + 3 : 0;
  let startedUpTo = -1;
  // Frames that left the window but show what the frames after them hide, followed by the chain.
  const past = new PastFrames<WindowFrame>((frame) => {
    chain.unfollow(frame.index);
    releaseFrame(frame, pools);
  });
  // Frames after the lines that outlast the window leave, fetched ahead for their early frames.
  const later = new LaterFrames<WindowFrame>(
    tracks.map(({ track }) => ({ first: track.first, last: track.last, box: (at) => boxAt(track, at) })),
    pass.cuts,
    pass.framePts.length,
    radius,
    (index) => laterFrame(pass, index),
    (frame) => releaseFrame(frame, pools),
  );
  /**
   * The frames outside the window as sources for frame `index`, nearest first, each lined up when
   * first asked for: those kept from before it (their motion the chain's) and those from after it
   * (measured directly; a cut between makes that fail, or the ring check drops the frame).
   */
  const keptFor = async (index: number, region: SizedRect | undefined) => {
    const position = positionOf(index);
    const item = window[position] as WindowFrame;
    const before = region ? past.frames.filter((frame) => frame.shot === item.shot) : [];
    const after = region ? await later.for(index) : [];
    const kept = [...before, ...after].sort((a, b) => Math.abs(a.index - index) - Math.abs(b.index - index));
    const roi = region as SizedRect;
    const towardsLater = (frame: WindowFrame) =>
      later.lineUp(
        index,
        frame.index,
        regionKey(roi),
        () => motionAcross(item, frame, roi),
        async (anchor) =>
          window[positionOf(anchor)]?.shot === item.shot
            ? chain.between(window, position, positionOf(anchor), roi)
            : undefined,
      );
    return keptSources(kept, async (frame) => {
      const motion =
        frame.index < index
          ? await chain.towardsFollowed(window, position, frame.index, roi)
          : await towardsLater(frame);
      const side = Math.sign(frame.index - index);
      return motion && fillSource({ ...frame, side }, motion, Math.abs(index - frame.index), frame.mask);
    });
  };

  /**
   * Starts the fill of text frame `index` on its window (frames within `radius`, as they are now):
   * the window search, in the pool when there is one.
   */
  const start = (index: number) => {
    const position = positionOf(index);
    const item = window[position] as WindowFrame;
    later.prefetch(index);
    // Frames of another shot show another picture: the window stops at the cuts.
    const around = window
      .slice(Math.max(0, position - radius), position + radius + 1)
      .filter((frame) => frame.shot === item.shot);
    const center = around.indexOf(item);
    // Every VERIFY_EVERY-th frame filled is read again for leftover text (then maybe filled again).
    const verified = cleaned++ % VERIFY_EVERY === 0;
    // Measured once here for the window's steps and handed to the fill; the second try (a widened
    // mask) works its own out.
    const { frame, mask } = around[center] as WindowFrame;
    const region = motionRegion(mask, frame.width, frame.height);
    const search: WindowSearcher | undefined =
      job &&
      region &&
      ((works, ask) =>
        job.search({
          centre: index,
          window: around,
          works,
          search: ask.search,
          steps: chain.measured(index - center, index + around.length - 1 - center, region),
          here: ask.here,
        }));
    const options = {
      windowRadius: radius,
      motion: (to: number, roi: SizedRect) => chain.between(around, center, to, roi),
      pools,
    };
    // The previous output is frame index - 1's when that frame has text (it is written just before).
    const previousComing = around[center - 1]?.hasText === true;
    const measured = region ? chain.measureSteps(around, region) : Promise.resolve();
    // Timed as the fill's wherever it goes on: it is started from the decode loop, and without a
    // pool the window search runs in it.
    const fill = measured.then(() =>
      timed("fill", () =>
        startFill(around, center, previousComing, {
          ...options,
          ...(region ? { motionRoi: region } : {}),
          ...(search ? { search } : {}),
        }),
      ),
    );
    fill.catch(() => undefined); // surfaces when the frame is written, or is dropped with the pass
    return { around, center, options, verified, fill, region };
  };
  /** The text frames whose fill started, by index, not written yet. */
  const starts = new Map<number, ReturnType<typeof start>>();

  /** Starts the fills of the text frames whose windows have arrived (all at the end). */
  const startReady = (lastArrived: number, ended: boolean) => {
    while (startedUpTo < lastArrived && (ended || startedUpTo + 1 + radius <= lastArrived)) {
      startedUpTo += 1;
      if (window[positionOf(startedUpTo)]?.hasText) starts.set(startedUpTo, start(startedUpTo));
    }
  };

  /** Writes frame `index`, which must be in `window`, filled when it has a mask. */
  const emit = async (index: number) => {
    const center = positionOf(index);
    const item = window[center];
    if (!item) return;
    if (!item.hasText) {
      await timed("encode", () =>
        encoder.write({ index: item.index, ptsSeconds: item.ptsSeconds, data: item.frame.data }),
      );
      releaseFill(previous, pools);
      previous = undefined;
      return;
    }
    if (item.shot !== previousShot) {
      releaseFill(previous, pools);
      previous = undefined;
    }
    const { around, center: at, options, verified, fill, region } = starts.get(index) ?? start(index);
    starts.delete(index);
    const earlier = await keptFor(index, region);
    // While the pool searches this frame's window, the cleaning thread searches the next ones.
    let result = await timed("fill", async () =>
      finishFill(await (job ? job.helpUntil(fill) : fill), previous, earlier),
    );
    if (verified) {
      const leftover = await residualText(ocr, result.frame, item.mask);
      if (leftover.length > 0) {
        const widened = timedSync("masks", () => {
          const wider = dilate(item.mask, item.frame.width, item.frame.height, WIDEN_PIXELS);
          for (const box of leftover) markTextLine(item.frame, box, wider);
          return wider;
        });
        // The second try searches the window here: it is the frame being written.
        const retry = around.map((w, i) => (i === at ? { ...w, mask: widened } : w));
        const first = { frame: result.frame, filledMask: result.synthesized };
        result = await timed("fill", () => fillFrame(retry, at, previous, options, earlier));
        releaseFill(first, pools);
        const stillFound = await residualText(ocr, result.frame, widened);
        residualLines += stillFound.length;
        findings.foundAfterCleaning(item.ptsSeconds, stillFound);
      }
    }
    picture.written(item.index, result.frame.data);
    releaseFill(previous, pools);
    previous = { frame: result.frame, filledMask: result.synthesized };
    previousShot = item.shot;
    // Awaited before the window moves on: the encoder reads the buffer until then.
    await timed("encode", () =>
      encoder.write({ index: item.index, ptsSeconds: item.ptsSeconds, data: result.frame.data }),
    );
  };
  let next = 0;
  /**
   * Whether arrived frame `index` can be written: a frame with text once its future neighbours have
   * arrived, and `lookahead` frames more (all of them at the end), a frame without text at once.
   * Either stays in the window as a source for the frames after it; only the writing is not held back.
   */
  const ready = (index: number, lastArrived: number, ended: boolean) =>
    ended || index + radius + lookahead <= lastArrived || !window[positionOf(index)]?.hasText;
  /** Emits, in order, every frame that is ready, once the fills that can start have started. */
  const emitReady = async (lastArrived: number, ended: boolean) => {
    if (job) startReady(lastArrived, ended);
    while (next <= lastArrived && ready(next, lastArrived, ended)) {
      await emit(next++);
      // Frames written, not frames read: a text frame waits for its window and the frames read
      // ahead of it (25 at 720p), which on a short ad is most of the pass.
      report("cleaning", next / Math.max(1, probe.frameCount));
      void later.reached(next + radius);
      while ((window[0]?.index ?? next) < next - radius) {
        const leaving = window.shift() as WindowFrame;
        if (past.offer(leaving)) chain.follow(leaving.index);
      }
      chain.forget(window[0]?.index ?? next);
    }
  };

  // A frame fetched ahead may still be on its way when the pass ends or fails: its ffmpeg goes first.
  try {
    let lastArrived = -1;
    for (let item = await frames.first; !item.done; item = await frames.rest.next()) {
      const frame = item.value;
      const rgb = { width: probe.width, height: probe.height, data: frame.data };
      const active = onScreen(pass, frame.index, frame.ptsSeconds);
      let masks: ReturnType<typeof frameMask> | null = null;
      if (active.lines.length + active.areas.length > 0) {
        picture.offer(rgb.data);
        masks = timedSync("masks", () => frameMask(rgb, frame.index, active, looks, pools.planes));
        picture.measured(frame.index, masks.pixels);
      }
      findings.frame(frame.index, frame.ptsSeconds, masks !== null);
      window.push({
        frame: rgb,
        shot: timedSync("fill", () => shots.shotOf(rgb, masks?.mask ?? noText)),
        mask: masks?.mask ?? noText,
        ...(masks?.behind ? { behind: masks.behind } : {}),
        ...(masks?.textOnly ? { textOnly: masks.textOnly } : {}),
        hasText: masks !== null,
        index: frame.index,
        ptsSeconds: frame.ptsSeconds,
      });
      lastArrived = frame.index;
      await emitReady(lastArrived, false);
    }
    await emitReady(lastArrived, true);
  } finally {
    await later.clear();
  }
  past.clear();
  return residualLines;
}
