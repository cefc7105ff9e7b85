import { type CropWork, Source } from "./crop";
import { localShifts, type ShiftField } from "./local-shift";
import { movingNearHole } from "./ring-change";
import {
  alignedSources,
  type FillSource,
  fillFromSources,
  fillSource,
  mayShowUnfilled,
  type WeightedSource,
  weightedSource,
} from "./temporal";
import { type Homography, IDENTITY, type MaskedFrame } from "./types";

/**
 * The search of the window for a frame's crops: the part of the fill that does not depend on the
 * previous output, so a worker thread (fill/pool.ts) can do it for frames ahead of the one being
 * written. It writes the crop's `source` and `fill` where the window's frames show the hole.
 */

/** The unmasked pixels around the hole on which sources are checked and seams measured. */
export const RING_WIDTH = 4;

/**
 * Distances pooled at each step of the search among the pictures the window's frames restored behind
 * a see-through box: such a picture carries the frame's noise scaled up by the box (2.2 times under
 * real-street's black@0.55 band), so the median of the nearest four frames a side is taken rather
 * than of the nearest one. On real-street the band's flicker fell from 0.47 to 0.33 grey level
 * (Telea's is 0.29) and inside the masks it gained 0.08 dB; 8 a side took it to 0.30 for a quarter
 * more fill CPU.
 */
const RESTORED_DEPTH = 4;

/** The window's frames at a distance from the centre (both sides), aligned by their camera motion. */
export type SourcesAt = (distance: number) => Promise<FillSource[]>;

export interface WindowSearch {
  /** How many frames on each side of the centre are looked at. */
  radius: number;
  maxError: number;
  /** Whether the centre frame has a see-through box, so the neighbours' restored pictures are looked at too. */
  restored: boolean;
  /** Whether the previous output will be carried over, so pictureMovedOn is wanted where pixels stay unseen. */
  movedOnWanted: boolean;
}

/** What the search found for one crop (its `source`, `fill` and groups hold the pixels and where they came from). */
export interface WindowFind {
  /** Masked pixels no frame of the window showed. */
  unfilled: number;
  /** pictureMovedOn, when it was wanted and some pixel stayed unseen; false otherwise. */
  movedOn: boolean;
}

/** Searches the window for each crop in turn. */
export async function searchWindow(
  works: CropWork[],
  sourcesAt: SourcesAt,
  search: WindowSearch,
): Promise<WindowFind[]> {
  const finds: WindowFind[] = [];
  for (const work of works) finds.push(await searchCrop(work, sourcesAt, search));
  return finds;
}

async function searchCrop(work: CropWork, sourcesAt: SourcesAt, search: WindowSearch): Promise<WindowFind> {
  const { radius, maxError } = search;
  const fromWindow = await fillFromWindow(work, sourcesAt, radius, maxError);
  // Under a see-through box, what the neighbours restored behind it comes next.
  const fromRestored = search.restored
    ? await fillFromWindow(work, restoredSources(sourcesAt), radius, maxError, fromWindow, RESTORED_DEPTH)
    : fromWindow;
  const unfilled = fromRestored.length;
  const movedOn =
    search.movedOnWanted && unfilled > 0 && (await pictureMovedOn(work, sourcesAt, radius, maxError));
  return { unfilled, movedOn };
}

/**
 * Fills the crop from the window, nearest frames first (`depth` distances at a time); frames further
 * out are looked at only while some pixel is still unseen, and only for those pixels. Each step's
 * sources that lined up become a group of the crop (fillFromSources). Returns the pixels none showed.
 */
export async function fillFromWindow(
  work: CropWork,
  sourcesAt: SourcesAt,
  radius: number,
  maxError: number,
  unfilled: Uint32Array = work.maskedPixels,
  depth = 1,
): Promise<Uint32Array> {
  // Each side's latest nudges, which the next frame out on that side starts from (localShifts).
  const seeds = new Map<number, ShiftField>();
  // Whether a frame showed something beside the hole moving on its own: then a frame whose own text
  // covers the unfilled pixels may still show them, moved out from under it.
  let subjectMoves = false;
  let pending = unfilled;
  for (let distance = 1; distance <= radius && pending.length > 0; distance += depth) {
    const reach = Math.min(radius, distance + depth - 1);
    const nearby: FillSource[] = [];
    for (let d = distance; d <= reach; d += 1) nearby.push(...(await sourcesAt(d)));
    // The nearest frames are always looked at, which tells whether anything moves.
    const useful: FillSource[] =
      distance === 1 || subjectMoves
        ? nearby
        : nearby.filter((source) => mayShowUnfilled(work, source, pending));
    const group: WeightedSource[] = alignedSources(work, useful, RING_WIDTH, maxError).map(
      ({ source, weight }) => withLocalMotion(work, source, weight, seeds),
    );
    subjectMoves ||= group.some(
      ({ source, changeNear }) => source.shift !== undefined || changeNear !== undefined,
    );
    if (group.length === 0) continue;
    fillFromSources(work, group, Source.neighbours, pending, depth > 1);
    // The first step copies (maskedPixels belongs to the crop); later ones compact that copy in place.
    pending = unfilledOf(
      work,
      pending,
      pending === work.maskedPixels ? new Uint32Array(pending.length) : pending,
    );
  }
  return pending;
}

/**
 * The source, weighted, with what moves on its own beside the hole: where the ring shows something
 * moving, the source's motion is nudged block by block to follow it (localShifts), and what still
 * moves is left out pixel by pixel (movingNearHole).
 */
function withLocalMotion(
  work: CropWork,
  source: FillSource,
  weight: number,
  seeds: Map<number, ShiftField>,
): WeightedSource {
  const moving = movingNearHole(work, source);
  const shift = moving && localShifts(work, source, seeds.get(source.side));
  if (source.side) {
    if (shift) seeds.set(source.side, shift);
    else seeds.delete(source.side);
  }
  if (!shift) return weightedSource(source, weight, moving);
  const shifted = fillSource(source, source.motion, source.distance, source.mask, shift);
  return weightedSource(shifted, weight, movingNearHole(work, shifted));
}

/** The window's frames that restored a see-through box, with their restored pixels open to borrowing. */
function restoredSources(sourcesAt: SourcesAt): SourcesAt {
  return async (distance) =>
    (await sourcesAt(distance)).flatMap((source) =>
      source.textOnly ? [fillSource(source, source.motion, source.distance, source.textOnly)] : [],
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
  sourcesAt: SourcesAt,
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
export function windowSources(
  window: MaskedFrame[],
  center: number,
  motionTo: (index: number, target: MaskedFrame) => Promise<Homography | undefined>,
): SourcesAt {
  const { frame } = window[center] as MaskedFrame;
  const measure = async (distance: number) => {
    const sources: FillSource[] = [];
    for (const side of [-1, 1]) {
      const index = center + side * distance;
      const neighbour = window[index];
      if (!neighbour) continue;
      if (neighbour.frame.width !== frame.width || neighbour.frame.height !== frame.height) {
        throw new RangeError(`window frame ${index} is not ${frame.width}x${frame.height}`);
      }
      // Without a trusted motion the frame is tried as static; the ring check drops it if it is not.
      const homography = (await motionTo(index, neighbour)) ?? IDENTITY;
      sources.push(fillSource({ ...neighbour, side }, homography, distance, neighbour.mask));
    }
    return sources;
  };
  return onceEach(measure);
}

/** Sources one a step, `count` steps: frames kept from before the window. */
export interface KeptSources {
  count: number;
  sourcesAt: SourcesAt;
}

/** Frames the window no longer holds (nearest first), one a step, each lined up (or dropped) when first asked for. */
export function keptSources<Frame>(
  frames: Frame[],
  lineUp: (frame: Frame) => Promise<FillSource | undefined>,
): KeptSources {
  const sourcesAt = onceEach(async (distance) => {
    const frame = frames[distance - 1];
    const source = frame === undefined ? undefined : await lineUp(frame);
    return source ? [source] : [];
  });
  return { count: frames.length, sourcesAt };
}

/** The sources at each distance as `find` gives them, found once however many crops ask. */
function onceEach(find: SourcesAt): SourcesAt {
  const found = new Map<number, Promise<FillSource[]>>();
  return (distance) => {
    let sources = found.get(distance);
    if (!sources) {
      sources = find(distance);
      found.set(distance, sources);
    }
    return sources;
  };
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
