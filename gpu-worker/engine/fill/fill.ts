import type { SizedRect } from "../geometry";
import { BufferPool } from "../media/buffer-pool";
import { deferHeavyRestorations, fillFromBehind } from "./behind";
import { fuseSeams } from "./blend";
import { type CropWork, cropWork, isSynthesised } from "./crop";
import { MotionEstimator } from "./motion";
import { clip, fillRegions, framePixel, grow, maskExtent } from "./regions";
import { type InpaintMethod, inpaintUnfilled } from "./spatial";
import {
  carryOver,
  type LinedUpPrevious,
  linedUpPrevious,
  type PreviousFill,
  previousMotion,
} from "./stabilise";
import { steadyFill } from "./steady";
import { groupShows } from "./temporal";
import { type FillOptions, type Homography, IDENTITY, type MaskedFrame, type RgbFrame } from "./types";
import {
  fillFromWindow,
  type KeptSources,
  RING_WIDTH,
  searchWindow,
  type WindowFind,
  type WindowSearch,
  windowSources,
} from "./window-fill";

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
  /** Whether the fill is held steady against the previous output (steadyFill); off only to measure it. */
  steady?: boolean;
  inpaintRadius?: number;
  inpaintMethod?: InpaintMethod;
  /**
   * The camera motion from the centre frame to window[index] within `roi`; the previous output is
   * then taken to be window[center - 1]. By default each neighbour's motion is estimated here.
   */
  motion?: (index: number, roi: SizedRect) => Promise<Homography | undefined>;
  /** Where the result's frame and plane buffers come from (the caller gives them back); default: new ones. */
  pools?: FramePools;
  /** Searches the window for the crops elsewhere (a worker thread, fill/pool.ts); default: here, in turn. */
  search?: WindowSearcher;
  /**
   * Where the camera motion is measured, when the caller measured the window's steps there already:
   * motionRegion of the centre frame's mask (with the same options). Default: worked out here.
   */
  motionRoi?: SizedRect;
}

/**
 * The window search for a frame's crops, done by someone else: it fills their `source` and `fill`
 * where the window shows the hole; or calls `here`, which searches in this thread.
 */
export type WindowSearcher = (
  works: CropWork[],
  ask: { search: WindowSearch; here: () => Promise<WindowFind[]> },
) => Promise<WindowFind[]>;

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

type FillSettings = Required<Omit<FillFrameOptions, "motion" | "pools" | "search" | "motionRoi">>;

const DEFAULTS = {
  windowRadius: 2,
  margin: 16,
  motionMargin: 160,
  maxAlignmentError: 12,
  fuse: true,
  steady: true,
  inpaintRadius: 5,
  inpaintMethod: "telea",
} satisfies FillSettings;

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
  past?: KeptSources,
): Promise<FillResult> {
  return finishFill(await startFill(window, center, previous !== undefined, options), previous, past);
}

/** How far the crops reach past the mask: the ring the sources are checked on and the context the inpainting reads. */
function cropMargin(settings: Pick<FillSettings, "margin" | "inpaintRadius">): number {
  return Math.max(settings.margin, RING_WIDTH + 1, settings.inpaintRadius + 1);
}

/**
 * Where the camera motion of a frame with this mask is measured: around its crops (the mask's extent
 * grown by the crops' margin), `motionMargin` further; undefined for a frame without text.
 */
export function motionRegion(
  mask: Uint8Array,
  width: number,
  height: number,
  options: Pick<FillFrameOptions, "margin" | "inpaintRadius" | "motionMargin"> = {},
): SizedRect | undefined {
  const extent = maskExtent(mask, width, height);
  if (!extent) return undefined;
  const settings = { ...DEFAULTS, ...options };
  return clip(snapOutwards(grow(extent, cropMargin(settings) + settings.motionMargin)), width, height);
}

/**
 * Motion regions are rounded outwards to this grid: a mask whose extent moves by a pixel from one
 * frame to the next (the letters' soft edges, a box found a pixel lower) measures in the same region
 * as the frame before, whose steps it then reuses (MotionChain keeps a step per region).
 */
const MOTION_GRID = 32;

function snapOutwards(rect: SizedRect): SizedRect {
  const x = Math.floor(rect.x / MOTION_GRID) * MOTION_GRID;
  const y = Math.floor(rect.y / MOTION_GRID) * MOTION_GRID;
  return {
    x,
    y,
    width: Math.ceil((rect.x + rect.width) / MOTION_GRID) * MOTION_GRID - x,
    height: Math.ceil((rect.y + rect.height) / MOTION_GRID) * MOTION_GRID - y,
  };
}

/** A frame whose window was searched (startFill), waiting for the previous output to be finished. */
export interface StartedFill {
  current: MaskedFrame;
  settings: FillSettings;
  pools?: FramePools;
  /** The crops, their `source` and `fill` holding what the window showed. */
  works: CropWork[];
  finds: WindowFind[];
  /** The camera motion from the centre frame to the previous output. */
  towardsPrevious: (previous: PreviousFill) => Promise<Homography>;
  /** The text mask of the frame before, where the window has it: where the previous output is a fill too. */
  previousMask?: Uint8Array;
  /** Frees what the fill holds outside V8's heap (the motion estimator), whether or not it finished. */
  release: () => void;
}

/**
 * The part of fillFrame that does not need the previous output, only whether there will be one
 * (`previousComing`): the crops, and the search of the window for them. Frames ahead of the one
 * being written can be started while it is finished.
 */
export async function startFill(
  window: MaskedFrame[],
  center: number,
  previousComing: boolean,
  options: FillFrameOptions = {},
): Promise<StartedFill> {
  const settings: FillSettings = { ...DEFAULTS, ...options };
  const current = window[center];
  if (!current) throw new RangeError(`window has no frame ${center}`);
  const { frame, mask } = current;
  const previousMask = window[center - 1]?.mask;
  const started = {
    current,
    settings,
    ...(previousMask ? { previousMask } : {}),
    ...(options.pools ? { pools: options.pools } : {}),
    works: [],
    finds: [],
    towardsPrevious: async () => IDENTITY,
    release: () => undefined,
  };
  const regions = await fillRegions(mask, frame.width, frame.height, cropMargin(settings));
  const motionRoi = options.motionRoi ?? motionRegion(mask, frame.width, frame.height, settings);
  if (regions.length === 0 || !motionRoi) return started;

  const given = options.motion;
  const estimator = given ? undefined : await MotionEstimator.create(frame, mask, motionRoi);
  const release = () => estimator?.release();
  try {
    const works: CropWork[] = [];
    for (const rect of regions) works.push(await cropWork(frame, mask, rect));
    const search = {
      radius: settings.windowRadius,
      maxError: settings.maxAlignmentError,
      restored: current.behind !== undefined,
      movedOnWanted: previousComing,
    };
    const motionTo = (index: number, target: MaskedFrame) =>
      given ? given(index, motionRoi) : Promise.resolve(estimator?.track(target.frame, target.mask));
    const here = () => searchWindow(works, windowSources(window, center, motionTo), search);
    const finds = options.search ? await options.search(works, { search, here }) : await here();
    const towardsPrevious = async (previous: PreviousFill) =>
      given
        ? ((await given(center - 1, motionRoi)) ?? IDENTITY)
        : previousMotion(previous, estimator as MotionEstimator);
    return { ...started, works, finds, towardsPrevious, release };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The rest of fillFrame: frames from before the window (`past`, nearest first, lined up with the
 * centre frame) where the window showed nothing, the previous output carried over, the spatial fill,
 * the seams, the output frame.
 */
export async function finishFill(
  started: StartedFill,
  previous?: PreviousFill,
  past?: KeptSources,
): Promise<FillResult> {
  const { current, settings, works, finds } = started;
  const { frame } = current;
  // Without the caller's pools, fresh ones: every buffer is then a new one.
  const { pictures, planes } = started.pools ?? framePools(frame.width, frame.height);
  const data = pictures.take(false);
  data.set(frame.data);
  const output = { width: frame.width, height: frame.height, data };
  const synthesized = planes.take();
  try {
    let towardsPrevious: Homography | undefined;
    let unseen = 0;
    let carried = 0;
    for (const [k, work] of works.entries()) {
      const deferred = current.behind && deferHeavyRestorations(work, current.behind);
      const found = finds[k] as WindowFind;
      const searched = deferred ? { ...found, unfilled: found.unfilled + deferred.count } : found;
      const fromBefore = await fromPast(work, searched, past, settings);
      const { movedOn } = fromBefore;
      const unfilled = fromBefore.unfilled - (deferred ? deferred.putBack() : 0);
      let settle: (() => void) | undefined;
      // The previous output lined up with this crop, once for the carry-over and the steadying.
      let lined: LinedUpPrevious | undefined;
      if (previous && (unfilled > 0 || settings.steady)) {
        towardsPrevious ??= await started.towardsPrevious(previous);
        lined = linedUpPrevious(work, previous, towardsPrevious, {
          ringWidth: RING_WIDTH,
          maxError: settings.maxAlignmentError,
        });
      }
      if (previous && towardsPrevious && unfilled > 0) {
        const carry = carryOver(work, previous, towardsPrevious, lined, movedOn);
        carried += carry.carried;
        settle = carry.settle;
      }
      if (current.behind) fillFromBehind(work, current.behind);
      unseen += await inpaintUnfilled(work, {
        radius: settings.inpaintRadius,
        method: settings.inpaintMethod,
      });
      settle?.();
      if (settings.fuse) fuseSeams(work, groupShows(work), settings.maxAlignmentError);
      if (settings.steady) steadyFill(work, lined, started.previousMask);
      writeFill(work, output, synthesized);
    }
    return { frame: output, unseen, carried, regions: works.map((work) => work.rect), synthesized };
  } finally {
    started.release();
  }
}

/** The window's find for a crop, with what the frames from before the window show of the pixels it left unseen. */
async function fromPast(
  work: CropWork,
  find: WindowFind,
  past: KeptSources | undefined,
  settings: FillSettings,
): Promise<WindowFind> {
  if (find.unfilled === 0 || !past || past.count === 0) return find;
  const unfilled = await fillFromWindow(work, past.sourcesAt, past.count, settings.maxAlignmentError);
  return { ...find, unfilled: unfilled.length };
}

/** Writes the fill of the crop's masked pixels to the output, all but the margin's. */
function writeFill(work: CropWork, output: RgbFrame, synthesized: Uint8Array): void {
  const { rect, maskedPixels, margin, fill, source } = work;
  for (const i of maskedPixels) {
    if (margin[i]) continue;
    const pixel = framePixel(rect, output.width, i);
    for (let c = 0; c < 3; c += 1) {
      output.data[pixel * 3 + c] = Math.min(255, Math.max(0, Math.round(fill[i * 3 + c] as number)));
    }
    if (isSynthesised(source[i] as number)) synthesized[pixel] = 255;
  }
}
