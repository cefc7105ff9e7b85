import type { SizedRect } from "../geometry";
import { BufferPool } from "../media/buffer-pool";
import { fuseSeams } from "./blend";
import { type CropWork, cropWork, isSynthesised, Source } from "./crop";
import { MotionEstimator } from "./motion";
import { clip, fillRegions, framePixel, grow, union } from "./regions";
import { movingNearHole } from "./ring-change";
import { type InpaintMethod, inpaintUnfilled } from "./spatial";
import { carryOver, type PreviousFill, previousMotion } from "./stabilise";
import {
  alignedSources,
  estimateRing,
  type FillSource,
  fillFromSources,
  mayShowUnfilled,
  type WeightedSource,
} from "./temporal";
import { type FillOptions, type Homography, IDENTITY, type MaskedFrame, type RgbFrame } from "./types";

export interface FillFrameOptions extends FillOptions {
  /** Context around the crops in which camera motion is estimated, in pixels. */
  motionMargin?: number;
  /**
   * Largest median absolute RGB difference on the ring around the hole for a frame to be borrowed
   * from; also the largest colour offset at the mask's edge that the seam blend follows.
   */
  maxAlignmentError?: number;
  /** Whether the fill is fused with the frame in the gradient domain (fuseSeams); off only to measure it. */
  fuse?: boolean;
  inpaintRadius?: number;
  inpaintMethod?: InpaintMethod;
  /**
   * The camera motion from the centre frame to window[index] within `roi`; the previous output is
   * then taken to be window[center - 1]. By default each neighbour's motion is estimated here.
   */
  motion?: (index: number, roi: SizedRect) => Promise<Homography | undefined>;
  /** Where the result's frame and plane buffers come from (the caller gives them back); default: new ones. */
  pools?: FramePools;
}

/** Buffers of a whole frame's pixels (RGB) and of a one-byte plane the size of a frame. */
export interface FramePools {
  pictures: BufferPool;
  planes: BufferPool;
}

/** Empty pools for frames of this size. */
export function framePools(width: number, height: number): FramePools {
  return { pictures: new BufferPool(width * height * 3), planes: new BufferPool(width * height) };
}

export interface FillResult {
  frame: RgbFrame;
  /** Masked pixels no frame showed, filled spatially. */
  unseen: number;
  /** Masked pixels no neighbour showed, carried over from the previous output. */
  carried: number;
  /** The native-resolution crops the fill worked on; no pixel outside them is written. */
  regions: SizedRect[];
  /** 255 where the output was synthesised rather than seen in some frame: the next call's `filledMask`. */
  synthesized: Uint8Array;
}

const DEFAULTS = {
  windowRadius: 2,
  margin: 16,
  motionMargin: 160,
  maxAlignmentError: 12,
  fuse: true,
  inpaintRadius: 5,
  inpaintMethod: "telea",
} satisfies Required<Omit<FillFrameOptions, "motion" | "pools">>;

/** The unmasked pixels around the hole on which sources are checked and seams measured. */
const RING_WIDTH = 4;

/**
 * Fills the masked pixels of window[center]: from the other frames of the window, aligned by their
 * camera motion; then from the previous output where nothing in the window shows them; then
 * spatially; finally the fill is fused with the frame in the gradient domain. Returns a new frame whose unmasked pixels are identical to
 * the input's.
 */
export async function fillFrame(
  window: MaskedFrame[],
  center: number,
  previous?: PreviousFill,
  options: FillFrameOptions = {},
): Promise<FillResult> {
  const settings = { ...DEFAULTS, ...options };
  const current = window[center];
  if (!current) throw new RangeError(`window has no frame ${center}`);
  const { frame, mask } = current;
  // Without the caller's pools, fresh ones: every buffer is then a new one.
  const { pictures, planes } = options.pools ?? framePools(frame.width, frame.height);
  const data = pictures.take(false);
  data.set(frame.data);
  const output = { width: frame.width, height: frame.height, data };
  const synthesized = planes.take();
  // The crop must hold the ring the sources are checked on and the context the inpainting reads.
  const margin = Math.max(settings.margin, RING_WIDTH + 1, settings.inpaintRadius + 1);
  const regions = await fillRegions(mask, frame.width, frame.height, margin);
  if (regions.length === 0) return { frame: output, unseen: 0, carried: 0, regions, synthesized };

  const roi = regions.reduce(union);
  const motionRoi = clip(grow(roi, settings.motionMargin), frame.width, frame.height);
  const given = options.motion;
  const estimator = given ? undefined : await MotionEstimator.create(frame, mask, motionRoi);
  const motionTo = (index: number, target: MaskedFrame) =>
    given ? given(index, motionRoi) : Promise.resolve(estimator?.track(target.frame, target.mask));
  try {
    const sourcesAt = windowSources(window, center, motionTo);
    let towardsPrevious: Homography | undefined;
    let unseen = 0;
    let carried = 0;
    for (const rect of regions) {
      const work = await cropWork(frame, mask, rect);
      const fromWindow = await fillFromWindow(
        work,
        sourcesAt,
        settings.windowRadius,
        settings.maxAlignmentError,
      );
      // Under a see-through box, what the neighbours restored behind it comes next.
      const fromRestored = current.behind
        ? await fillFromWindow(
            work,
            restoredSources(sourcesAt),
            settings.windowRadius,
            settings.maxAlignmentError,
            fromWindow.unfilled,
          )
        : { aligned: [], unfilled: fromWindow.unfilled };
      const aligned = [...fromWindow.aligned, ...fromRestored.aligned];
      const { unfilled } = fromRestored;
      let settle: (() => void) | undefined;
      if (previous && unfilled.length > 0) {
        towardsPrevious ??= given
          ? ((await given(center - 1, motionRoi)) ?? IDENTITY)
          : previousMotion(previous, estimator as MotionEstimator);
        const carry = carryOver(work, previous, towardsPrevious, {
          ringWidth: RING_WIDTH,
          maxError: settings.maxAlignmentError,
          movedOn: await pictureMovedOn(work, sourcesAt, settings.windowRadius, settings.maxAlignmentError),
        });
        carried += carry.carried;
        settle = carry.settle;
      }
      if (current.behind) fillFromBehind(work, current.behind);
      unseen += await inpaintUnfilled(work, {
        radius: settings.inpaintRadius,
        method: settings.inpaintMethod,
      });
      settle?.();
      if (settings.fuse) fuseSeams(work, estimateRing(work, aligned, RING_WIDTH), settings.maxAlignmentError);
      writeFill(work, output, synthesized);
    }
    return { frame: output, unseen, carried, regions, synthesized };
  } finally {
    estimator?.release();
  }
}

/**
 * Fills the crop from the window, nearest frames first; frames further out are looked at only while
 * some pixel is still unseen, and only for those pixels. Returns the sources that lined up and the
 * pixels none showed.
 */
async function fillFromWindow(
  work: CropWork,
  sourcesAt: (distance: number) => Promise<FillSource[]>,
  radius: number,
  maxError: number,
  unfilled: Uint32Array = work.maskedPixels,
): Promise<{ aligned: WeightedSource[]; unfilled: Uint32Array }> {
  const aligned: WeightedSource[] = [];
  let pending = unfilled;
  for (let distance = 1; distance <= radius && pending.length > 0; distance += 1) {
    const useful = (await sourcesAt(distance)).filter((source) => mayShowUnfilled(work, source, pending));
    const group = alignedSources(work, useful, RING_WIDTH, maxError).map((aligned) => ({
      ...aligned,
      movedNear: movingNearHole(work, aligned.source),
    }));
    if (group.length === 0) continue;
    fillFromSources(work, group, Source.neighbours, pending);
    // The first step copies (maskedPixels belongs to the crop); later ones compact that copy in place.
    pending = unfilledOf(
      work,
      pending,
      pending === work.maskedPixels ? new Uint32Array(pending.length) : pending,
    );
    aligned.push(...group);
  }
  return { aligned, unfilled: pending };
}

/** The window's frames that restored a see-through box, with their restored pixels open to borrowing. */
function restoredSources(
  sourcesAt: (distance: number) => Promise<FillSource[]>,
): (distance: number) => Promise<FillSource[]> {
  return async (distance) =>
    (await sourcesAt(distance)).flatMap((source) =>
      source.textOnly ? [{ ...source, mask: source.textOnly }] : [],
    );
}

/**
 * Whether the picture around the hole has changed beyond the alignment check since the window's
 * farthest frames (both sides, or the one the window has): content that lives on its own (water,
 * crowds, animation) rather than moving with the camera. A fill kept from earlier frames is out of
 * date there. False when the window holds no frame that far.
 */
async function pictureMovedOn(
  work: CropWork,
  sourcesAt: (distance: number) => Promise<FillSource[]>,
  radius: number,
  maxError: number,
): Promise<boolean> {
  const farthest = await sourcesAt(radius);
  return farthest.length > 0 && alignedSources(work, farthest, RING_WIDTH, maxError).length === 0;
}

/**
 * The window's frames at a given distance from the centre (before and after it) as fill sources,
 * each frame's motion measured once however many crops ask.
 */
function windowSources(
  window: MaskedFrame[],
  center: number,
  motionTo: (index: number, target: MaskedFrame) => Promise<Homography | undefined>,
): (distance: number) => Promise<FillSource[]> {
  const { frame } = window[center] as MaskedFrame;
  const measured = new Map<number, Promise<FillSource[]>>();
  const measure = async (distance: number) => {
    const sources: FillSource[] = [];
    for (const index of [center - distance, center + distance]) {
      const neighbour = window[index];
      if (!neighbour) continue;
      if (neighbour.frame.width !== frame.width || neighbour.frame.height !== frame.height) {
        throw new RangeError(`window frame ${index} is not ${frame.width}x${frame.height}`);
      }
      // Without a trusted motion the frame is tried as static; the ring check drops it if it is not.
      const homography = (await motionTo(index, neighbour)) ?? IDENTITY;
      sources.push({ ...neighbour, motion: homography, distance });
    }
    return sources;
  };
  return (distance) => {
    let sources = measured.get(distance);
    if (!sources) {
      sources = measure(distance);
      measured.set(distance, sources);
    }
    return sources;
  };
}

function writeFill(work: CropWork, output: RgbFrame, synthesized: Uint8Array): void {
  const { rect, maskedPixels, fill, source } = work;
  for (const i of maskedPixels) {
    const pixel = framePixel(rect, output.width, i);
    for (let c = 0; c < 3; c += 1) {
      output.data[pixel * 3 + c] = Math.min(255, Math.max(0, Math.round(fill[i * 3 + c] as number)));
    }
    if (isSynthesised(source[i] as number)) synthesized[pixel] = 255;
  }
}

/**
 * Takes the frame's own estimate of the picture behind a see-through box where nothing better was
 * found. The estimate rests on the box's opacity and colour as measured at its edge, and a few
 * levels off it shows as a band against pixels a neighbour showed; so where neighbours showed the
 * picture under the box too, each channel of the estimate is first mapped by the line that fits it
 * best to what they showed.
 */
function fillFromBehind(work: CropWork, behind: Uint8Array): void {
  const { rect, frame, maskedPixels, source, fill } = work;
  const corrections = behindCorrections(work, behind);
  for (const i of maskedPixels) {
    if (source[i] !== Source.none) continue;
    const pixel = framePixel(rect, frame.width, i);
    if (!behind[pixel]) continue;
    for (let c = 0; c < 3; c += 1) {
      const { gain, offset } = corrections[c] as LinearFit;
      fill[i * 3 + c] = gain * (frame.data[pixel * 3 + c] as number) + offset;
    }
    source[i] = Source.behind;
  }
}

interface LinearFit {
  gain: number;
  offset: number;
}

/** Fewest pixels both estimated behind the box and shown by a neighbour for a correction to be fitted. */
const MIN_CORRECTION_PIXELS = 400;
/** Gains outside this range are not a small miss of the box's opacity: the estimate is left as it is. */
const MAX_CORRECTION_GAIN = 1.5;
/** Spread (variance, levels²) the estimate needs on a channel for a gain to be fitted; else only an offset. */
const MIN_CORRECTION_VARIANCE = 25;

/** Per channel, the least-squares line from the behind estimate to what neighbours showed. */
function behindCorrections(work: CropWork, behind: Uint8Array): LinearFit[] {
  const { rect, frame, maskedPixels, source, fill } = work;
  const sums = [0, 1, 2].map(() => ({ x: 0, y: 0, xx: 0, xy: 0 }));
  let count = 0;
  for (const i of maskedPixels) {
    if (source[i] !== Source.neighbours) continue;
    const pixel = framePixel(rect, frame.width, i);
    if (!behind[pixel]) continue;
    count += 1;
    for (let c = 0; c < 3; c += 1) {
      const x = frame.data[pixel * 3 + c] as number;
      const y = fill[i * 3 + c] as number;
      const sum = sums[c] as (typeof sums)[number];
      sum.x += x;
      sum.y += y;
      sum.xx += x * x;
      sum.xy += x * y;
    }
  }
  const unchanged = { gain: 1, offset: 0 };
  if (count < MIN_CORRECTION_PIXELS) return [unchanged, unchanged, unchanged];
  return sums.map((sum) => {
    const meanX = sum.x / count;
    const meanY = sum.y / count;
    const variance = sum.xx / count - meanX * meanX;
    const gain = variance >= MIN_CORRECTION_VARIANCE ? (sum.xy / count - meanX * meanY) / variance : 1;
    if (!(gain >= 1 / MAX_CORRECTION_GAIN && gain <= MAX_CORRECTION_GAIN)) return unchanged;
    return { gain, offset: meanY - gain * meanX };
  });
}

/**
 * The pixels of `pixels` that are still unfilled, in order, written to the start of `into` (which may
 * be `pixels` itself: no pixel is written before it is read). A plain loop: TypedArray.filter is slow.
 */
function unfilledOf(work: CropWork, pixels: Uint32Array, into: Uint32Array): Uint32Array {
  let count = 0;
  for (const i of pixels) if (work.source[i] === Source.none) into[count++] = i;
  return into.subarray(0, count);
}
