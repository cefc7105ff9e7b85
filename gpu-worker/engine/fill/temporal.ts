import { type CropWork, Source } from "./crop";
import { fitLight, lightAt } from "./light-ramp";
import { projectShifted, type ShiftField } from "./local-shift";
import { compose } from "./motion-chain";
import { framePixel } from "./regions";
import { OUT_OF_DATE } from "./ring-change";
import { isStatic, meanGrey, nearestIsClear, project, sampleBicubic } from "./sample";
import { scratchPlane } from "./scratch";
import { kthSmallest } from "./select";
import { boxIsMasked, type FullTiles, fullTiles } from "./tiles";
import { type Homography, homography, type RgbFrame } from "./types";

/** A frame the masked pixels may be taken from, with the motion that aligns it to the centre frame. */
export interface FillSource {
  frame: RgbFrame;
  /** Pixels of `frame` that must not be copied (its own text); undefined when all may be. */
  mask?: Uint8Array;
  /** Maps centre-frame pixels to `frame`. */
  motion: Homography;
  /** Frames between the centre and this one; nearer frames are trusted more. */
  distance: number;
  /** `mask` less the see-through box pixels whose picture the frame restored (see MaskedFrame). */
  textOnly?: Uint8Array;
  /** The frame's number in the video, where the window knows it (the pool hands sources back by it). */
  index?: number;
  /** Nudges after `motion` where something beside the hole moves on its own (see local-shift.ts). */
  shift?: ShiftField;
  /** -1 for a frame before the centre, 1 after it, 0 where it is not known. */
  side: number;
  /**
   * Levels added to what the frame shows, per channel, to bring its light to the centre frame's: the
   * median difference on the ring around the hole (lineUp), undefined until it is lined up.
   */
  light?: Float32Array;
}

/**
 * A FillSource built with every field, in one order. The hot loops read sources by the millions, and
 * V8 compiles them for the object shapes it has seen: each new shape (a spread of a frame with or
 * without `textOnly`, a source without `mask`) threw that code away and compiled it again, some
 * twenty times a clip for the largest functions.
 */
export function fillSource(
  of: { frame: RgbFrame; textOnly?: Uint8Array; index?: number; side?: number; light?: Float32Array },
  motion: Homography,
  distance: number,
  mask: Uint8Array | undefined,
  shift?: ShiftField,
  light = of.light,
): FillSource {
  return {
    frame: of.frame,
    mask,
    motion,
    distance,
    textOnly: of.textOnly,
    index: of.index,
    shift,
    side: of.side ?? 0,
    light,
  };
}

/** A WeightedSource with every field, for the same reason as fillSource. */
export function weightedSource(
  source: FillSource,
  weight: number,
  changeNear?: (x: number, y: number) => number,
): WeightedSource {
  return { source, weight, changeNear };
}

/** Sources combined in one step of the fill, as fillFromSources combined them. */
export interface SourceGroup {
  sources: WeightedSource[];
  pooled: boolean;
}

export interface WeightedSource {
  source: FillSource;
  weight: number;
  /**
   * How far the picture around the hole near centre-frame pixel (x, y) of the crop differs in this
   * source beyond the camera's motion, as a multiple of the threshold (movingNearHole): over 1,
   * something moved there on its own and the source is not used for that pixel.
   */
  changeNear?: (x: number, y: number) => number;
}

/**
 * Keeps the sources that line up with the centre frame around the hole: the typical absolute RGB
 * difference on the ring of unmasked pixels within `ringWidth` of the mask must stay under
 * `maxError`. That check is local, so it also rejects frames where the global motion is right but
 * the background near the text moved on its own. Each source's motion is first corrected by the
 * ring's own alignment (lineUp). Weights fall with temporal distance and error.
 */
export function alignedSources(
  work: CropWork,
  sources: FillSource[],
  ringWidth: number,
  maxError: number,
): WeightedSource[] {
  const aligned: WeightedSource[] = [];
  for (const given of sources) {
    const { source, error } = lineUp(ringOf(work, ringWidth), given, maxError);
    if (error <= maxError) aligned.push(weightedSource(source, 1 / (source.distance * (1 + error))));
  }
  return aligned;
}

/**
 * Whether a source could show any of the crop's `unfilled` pixels. One that has not moved against the
 * crop shows exactly the pixels its own text leaves clear, so a source whose text covers all of them
 * is known useless without sampling: a caption held over a still shot would otherwise be looked up in
 * every frame of the window. It holds only where nothing beside the hole moves on its own (the
 * window's search asks it only then).
 */
export function mayShowUnfilled(work: CropWork, fillSource: FillSource, unfilled: Uint32Array): boolean {
  const { mask, motion, frame } = fillSource;
  if (!mask || !isStatic(motion, work.rect)) return true;
  const { rect } = work;
  for (const i of unfilled) {
    if (!mask[framePixel(rect, frame.width, i)]) return true;
  }
  return false;
}

/**
 * Fills the masked pixels not filled yet (of `pixels`, by default all) from the nearest sources (in
 * time) that show them: the weighted median when several at that distance do (the frames just
 * before and after); `pooled`: of every source given that shows it. Only the nearest two are
 * checked against each other (Combiner.disagree); a median of more frames outvotes what moved in one
 * of them. The sources become one of the crop's groups, and the pixels they filled are marked as its.
 */
export function fillFromSources(
  work: CropWork,
  sources: WeightedSource[],
  kind: Source,
  pixels = work.maskedPixels,
  pooled = false,
): void {
  if (sources.length === 0) return;
  const combine = new Combiner(sources, pooled, work.movedSince);
  const { rect, source, fill, group } = work;
  work.groups.push({ sources, pooled });
  const id = work.groups.length;
  const blocksAcross = (rect.width >> BLOCK_SHIFT) + 1;
  // Per block of the crop: 0 not looked at yet, 1 some source may show it, 2 none can.
  const blockState = new Uint8Array(blocksAcross * ((rect.height >> BLOCK_SHIFT) + 1));
  // Rows followed as the pixels (in crop order) go by, rather than divided out per pixel.
  let row = 0;
  let rowStart = 0;
  for (const i of pixels) {
    if (source[i] !== Source.none) continue;
    if (i < rowStart || i >= rowStart + rect.width) {
      row = Math.floor(i / rect.width);
      rowStart = row * rect.width;
    }
    const column = i - rowStart;
    const block = (row >> BLOCK_SHIFT) * blocksAcross + (column >> BLOCK_SHIFT);
    if (blockState[block] === 0) {
      const left = rect.x + ((column >> BLOCK_SHIFT) << BLOCK_SHIFT);
      const top = rect.y + ((row >> BLOCK_SHIFT) << BLOCK_SHIFT);
      blockState[block] = combine.blockHidden(left, top, 1 << BLOCK_SHIFT) ? 2 : 1;
    }
    if (blockState[block] === 2) continue;
    const x = rect.x + column;
    const y = rect.y + row;
    if (combine.landsClear(x, y) && combine.at(x, y, fill, i * 3, i)) {
      source[i] = kind;
      group[i] = id;
    }
  }
}

/**
 * Largest difference (levels, any channel) between what the frames on either side show at a pixel
 * for them to be taken as showing the same still background: compression noise and light changes
 * stay well under it, a moving subject does not.
 */
const MAX_SOURCE_DISAGREEMENT = 28;

/**
 * Pixels are first tested in blocks of this many (log2) a side: far frames show few of the pixels
 * still unfilled, and the inside of a wide box is rejected a block at a time.
 */
const BLOCK_SHIFT = 3;

/** What a group's sources show at a crop pixel (read before the next call), undefined where they show nothing there. */
export type GroupShows = (group: number, cropPixel: number) => Float32Array | undefined;

/**
 * What each of the crop's groups shows at unmasked pixels beside the hole, combined as the group
 * combined its pixels, worked out when first asked: the seam blend measures each borrowed pixel at
 * the hole's edge against the frames it was borrowed from. Measured against whichever frames were
 * nearest, a far frame that alone showed part of the hole (real-red-band's hook, filled 64 frames on
 * from the top of a vignetted sky) kept its darker light against the frame.
 */
export function groupShows(work: CropWork): GroupShows {
  const { rect, groups } = work;
  const combiners = new Map<number, Combiner>();
  // Per (pixel, group) asked: where its colour lies in `colours`, or -1 where the group shows nothing.
  // Asked once or more for each ring pixel beside a borrowed one, every frame: one growing plane, not
  // a small array per answer.
  const shown = new Map<number, number>();
  let colours = new Float32Array(3 * 256);
  let stored = 0;
  const answer = new Float32Array(3);
  return (group, cropPixel) => {
    // A crop has far fewer than 2^16 groups (Uint16Array), and cropPixel * 2^16 stays exact.
    const key = cropPixel * 0x10000 + group;
    let at = shown.get(key);
    if (at === undefined) {
      let combine = combiners.get(group);
      if (!combine) {
        const { sources, pooled } = groups[group - 1] as SourceGroup;
        combine = new Combiner(sources, pooled);
        combiners.set(group, combine);
      }
      if (stored + 3 > colours.length) {
        const grown = new Float32Array(colours.length * 2);
        grown.set(colours);
        colours = grown;
      }
      const x = rect.x + (cropPixel % rect.width);
      const y = rect.y + Math.floor(cropPixel / rect.width);
      at = combine.at(x, y, colours, stored) ? stored : -1;
      if (at >= 0) stored += 3;
      shown.set(key, at);
    }
    if (at < 0) return undefined;
    for (let c = 0; c < 3; c += 1) answer[c] = colours[at + c] as number;
    return answer;
  };
}

/** Every this many pixels of the ring are compared: plenty for a median, a third of the work. */
const RING_STRIDE = 3;
/**
 * At most this many ring pixels are compared, spread evenly: a long line's glyphs make a ring of
 * many thousands, and each of the window's frames is checked on it.
 */
const MAX_RING_POINTS = 1000;

/**
 * The unmasked pixels around the hole that each source is checked on (every RING_STRIDE-th within
 * `width` of the mask, at most MAX_RING_POINTS), gathered once per crop: their positions, colours and, where all four
 * neighbours are unmasked too, the grey gradient (NaN elsewhere).
 */
interface Ring {
  width: number;
  x: Int32Array;
  y: Int32Array;
  colour: Float32Array;
  gradient: Float32Array;
}

const rings = new WeakMap<CropWork, Ring>();

function ringOf(work: CropWork, width: number): Ring {
  const known = rings.get(work);
  if (known?.width === width) return known;
  const { rect, outside, frame } = work;
  const grey = (pixel: number) => meanGrey(frame.data, pixel);
  const candidates: number[] = [];
  for (let i = 0; i < outside.length; i += RING_STRIDE) {
    const distance = outside[i] as number;
    if (distance > 0 && distance <= width) candidates.push(i);
  }
  const step = Math.ceil(candidates.length / MAX_RING_POINTS);
  const picked = step > 1 ? candidates.filter((_, k) => k % step === 0) : candidates;
  const ring = {
    width,
    x: new Int32Array(picked.length),
    y: new Int32Array(picked.length),
    colour: new Float32Array(picked.length * 3),
    gradient: new Float32Array(picked.length * 2).fill(Number.NaN),
  };
  picked.forEach((i, k) => {
    const column = i % rect.width;
    const row = Math.floor(i / rect.width);
    const x = rect.x + column;
    const y = rect.y + row;
    const pixel = y * frame.width + x;
    ring.x[k] = x;
    ring.y[k] = y;
    for (let c = 0; c < 3; c += 1) ring.colour[k * 3 + c] = frame.data[pixel * 3 + c] as number;
    const inside = column > 0 && row > 0 && column < rect.width - 1 && row < rect.height - 1;
    if (inside && outside[i - 1] && outside[i + 1] && outside[i - rect.width] && outside[i + rect.width]) {
      ring.gradient[k * 2] = (grey(pixel + 1) - grey(pixel - 1)) / 2;
      ring.gradient[k * 2 + 1] = (grey(pixel + frame.width) - grey(pixel - frame.width)) / 2;
    }
  });
  rings.set(work, ring);
  return ring;
}

/**
 * How a source lines up with the centre frame on the ring. `error`: the median over the ring of each
 * pixel's mean absolute RGB difference (a median, so a halo or shadow the mask missed on part of the
 * ring does not condemn a well-aligned source). `shift`: one Lucas-Kanade step, the translation that,
 * added after the source's motion, best matches it in grey levels with the centre frame's gradients;
 * undefined when the ring has too little texture in some direction or the step would be implausible.
 * `count`: the ring pixels the source showed, whose differences ringLight reads for a fit kept.
 */
function ringFit(
  ring: Ring,
  fillSource: FillSource,
): { error: number; shift?: { x: number; y: number }; count: number } {
  const sample = new Float32Array(3);
  const point = { x: 0, y: 0 };
  // Each ring pixel's error, as float32 (the median is taken of those), and its differences per channel.
  const errors = scratchPlane("ring errors", ring.x.length);
  const differences = ringDifferences(ring.x.length);
  const [xs, ys] = ringPlaces(ring.x.length) as [Float32Array, Float32Array];
  let count = 0;
  let xx = 0;
  let xy = 0;
  let yy = 0;
  let xe = 0;
  let ye = 0;
  for (let k = 0; k < ring.x.length; k += 1) {
    project(fillSource.motion, ring.x[k] as number, ring.y[k] as number, point);
    if (!sampleBicubic(fillSource.frame, fillSource.mask, point.x, point.y, sample, 0)) continue;
    let absolute = 0;
    let signed = 0;
    for (let c = 0; c < 3; c += 1) {
      const difference = (ring.colour[k * 3 + c] as number) - (sample[c] as number);
      absolute += Math.abs(difference);
      signed += difference;
      (differences[c] as Float32Array)[count] = difference;
    }
    xs[count] = ring.x[k] as number;
    ys[count] = ring.y[k] as number;
    errors[count++] = absolute / 3;
    const gx = ring.gradient[k * 2] as number;
    if (Number.isNaN(gx)) continue;
    const gy = ring.gradient[k * 2 + 1] as number;
    xx += gx * gx;
    xy += gx * gy;
    yy += gy * gy;
    xe += (gx * signed) / 3;
    ye += (gy * signed) / 3;
  }
  // A source that shows none of the ring cannot be checked, so it is not trusted.
  if (count === 0) return { error: Number.POSITIVE_INFINITY, count };
  const error = kthSmallest(errors, count, count >> 1);
  const determinant = xx * yy - xy * xy;
  if (!(determinant > 1e-4 * (xx + yy) ** 2)) return { error, count };
  const x = (yy * xe - xy * ye) / determinant;
  const y = (xx * ye - xy * xe) / determinant;
  return Math.abs(x) <= MAX_SHIFT && Math.abs(y) <= MAX_SHIFT
    ? { error, shift: { x, y }, count }
    : { error, count };
}

/** The per-channel differences (centre less source) of the last ringFit's ring pixels: scratch planes. */
function ringDifferences(length: number): Float32Array[] {
  return [0, 1, 2].map((c) => scratchPlane(`ring differences ${c}`, length));
}

/** Where the last ringFit's differences were measured (centre-frame x and y): scratch planes. */
function ringPlaces(length: number): Float32Array[] {
  return [scratchPlane("ring x", length), scratchPlane("ring y", length)];
}

/**
 * The light of the source the last ringFit measured (FillSource.light, fitLight) from its `count`
 * differences, `distance` frames from the centre; undefined where it saw none of the ring. Taken
 * only for a fit that is kept, before the next ringFit writes over its differences.
 */
function ringLight(ring: Ring, count: number, distance: number): Float32Array | undefined {
  if (count === 0) return undefined;
  const [xs, ys] = ringPlaces(ring.x.length) as [Float32Array, Float32Array];
  return fitLight(ringDifferences(ring.x.length), xs, ys, count, distance);
}

/** Lucas-Kanade steps at most: the second takes out most of what the first's linearisation left. */
const LINE_UP_STEPS = 2;
/** Largest correction the ring's alignment may make to the camera motion, in pixels. */
const MAX_SHIFT = 2;

/**
 * The source, with its motion corrected by the ring's own alignment where that lines it up better:
 * composed over many frames, the camera motion drifts by a fraction of a pixel, which shows as a
 * seam or a doubled texture in the fill. A source far off on the ring (another shot, a picture that
 * changed) is not worth the steps. The source comes with its light measured on the ring
 * (FillSource.light): a frame seconds away shows the same scene lit a little differently, or at
 * another place in a vignetted picture (real-red-band's hook, filled 35 to 64 frames on under a
 * turning camera, came out 8 levels darker than the sky around it, its letters a dark ghost).
 */
function lineUp(ring: Ring, given: FillSource, maxError: number): { source: FillSource; error: number } {
  let fit = ringFit(ring, given);
  let best = { source: given, error: fit.error, light: ringLight(ring, fit.count, given.distance) };
  for (let step = 0; step < LINE_UP_STEPS && fit.shift && best.error <= 2 * maxError; step += 1) {
    // The shift is added after the projection: T(shift)·motion.
    const shift = homography([1, 0, fit.shift.x, 0, 1, fit.shift.y, 0, 0, 1]);
    const shifted = fillSource(
      best.source,
      compose(shift, best.source.motion),
      best.source.distance,
      best.source.mask,
    );
    fit = ringFit(ring, shifted);
    if (!(fit.error < best.error)) break;
    best = { source: shifted, error: fit.error, light: ringLight(ring, fit.count, given.distance) };
  }
  const { source } = best;
  return {
    source: fillSource(source, source.motion, source.distance, source.mask, source.shift, best.light),
    error: best.error,
  };
}

/**
 * Per-pixel weighted median over the nearest sources that show the pixel, with scratch buffers reused
 * across pixels. Unless `pooled`, only the nearest are sampled: they differ least from the centre
 * frame (motion, light), and it takes two samples a pixel rather than one per frame of the window.
 */
class Combiner {
  private readonly sources: WeightedSource[];
  private readonly samples: Float32Array;
  private readonly weights: Float32Array;
  private readonly order: Uint16Array;
  private readonly point = { x: 0, y: 0 };
  private tiles?: Array<FullTiles | undefined>;
  private readonly pooled: boolean;
  /** Where a source that shows a crop pixel is passed over for a change far beyond the threshold near it. */
  private readonly movedSince?: Uint8Array;

  constructor(sources: WeightedSource[], pooled = false, movedSince?: Uint8Array) {
    this.pooled = pooled;
    this.movedSince = movedSince;
    this.sources = [...sources].sort((a, b) => a.source.distance - b.source.distance);
    this.samples = new Float32Array(sources.length * 3);
    this.weights = new Float32Array(sources.length);
    this.order = new Uint16Array(sources.length);
  }

  /**
   * Whether (x, y) lands on a pixel some source's own text leaves clear: the cheap half of what at()
   * checks, done first. Far sources show few of the pixels still unfilled, and most are rejected
   * here without the bicubic sampling.
   */
  landsClear(x: number, y: number): boolean {
    for (const { source } of this.sources) {
      projectShifted(source.motion, source.shift, x, y, this.point);
      if (nearestIsClear(source.frame, source.mask, this.point.x, this.point.y)) return true;
    }
    return false;
  }

  /**
   * Whether no pixel of the block [left, left + size) × [top, top + size) can land clear in any
   * source: each source's projection of the block falls outside the frame or wholly on its text.
   */
  blockHidden(left: number, top: number, size: number): boolean {
    const { point } = this;
    // Each mask's summary is looked up once per combination, not once per block.
    this.tiles ??= this.sources.map(({ source: { mask, frame } }) =>
      mask ? fullTiles(mask, frame.width, frame.height) : undefined,
    );
    for (let k = 0; k < this.sources.length; k += 1) {
      const { frame, motion, shift } = (this.sources[k] as WeightedSource).source;
      const reach = shift ? shift.reach : 0;
      const tiles = this.tiles[k];
      let minX = Number.POSITIVE_INFINITY;
      let minY = Number.POSITIVE_INFINITY;
      let maxX = Number.NEGATIVE_INFINITY;
      let maxY = Number.NEGATIVE_INFINITY;
      // A homography takes a rectangle to a quadrilateral: its corners bound it.
      for (let corner = 0; corner < 4; corner += 1) {
        project(motion, left + (corner & 1) * (size - 1), top + (corner >> 1) * (size - 1), point);
        minX = Math.min(minX, point.x);
        minY = Math.min(minY, point.y);
        maxX = Math.max(maxX, point.x);
        maxY = Math.max(maxY, point.y);
      }
      // A point at infinity (or NaN) in the block: leave it to the per-pixel test.
      if (!Number.isFinite(minX + minY + maxX + maxY)) return false;
      const boxLeft = Math.floor(minX) - reach;
      const boxTop = Math.floor(minY) - reach;
      const boxRight = Math.ceil(maxX) + reach;
      const boxBottom = Math.ceil(maxY) + reach;
      if (boxRight < 0 || boxBottom < 0 || boxLeft >= frame.width || boxTop >= frame.height) continue;
      if (!tiles || !boxIsMasked(tiles, boxLeft, boxTop, boxRight, boxBottom)) return false;
    }
    return true;
  }

  /**
   * Writes the combined colour of centre-frame pixel (x, y) to out[at..at+2]; false if no source saw
   * it. With `cropPixel`, sources that moved near that pixel of the crop are passed over.
   */
  at(x: number, y: number, out: Float32Array, at: number, cropPixel?: number): boolean {
    let count = 0;
    let nearest = Number.POSITIVE_INFINITY;
    for (const { source, weight, changeNear } of this.sources) {
      if (!this.pooled && source.distance > nearest) break;
      const change = cropPixel === undefined || !changeNear ? 0 : changeNear(x, y);
      if (change > 1) {
        if (change > OUT_OF_DATE) this.markOutOfDate(source, x, y, cropPixel as number);
        continue;
      }
      projectShifted(source.motion, source.shift, x, y, this.point);
      if (!sampleBicubic(source.frame, source.mask, this.point.x, this.point.y, this.samples, count * 3))
        continue;
      const { light } = source;
      if (light) {
        for (let channel = 0; channel < 3; channel += 1)
          this.samples[count * 3 + channel] =
            (this.samples[count * 3 + channel] as number) + lightAt(light, channel, x, y);
      }
      this.weights[count] = weight;
      nearest = source.distance;
      count += 1;
    }
    if (count === 0 || (!this.pooled && this.disagree(count))) return false;
    for (let channel = 0; channel < 3; channel += 1) out[at + channel] = this.median(channel, count);
    return true;
  }

  /** Marks a crop pixel out of date (CropWork.movedSince) where the source passed over shows it. */
  private markOutOfDate(source: FillSource, x: number, y: number, cropPixel: number): void {
    if (!this.movedSince) return;
    projectShifted(source.motion, source.shift, x, y, this.point);
    if (nearestIsClear(source.frame, source.mask, this.point.x, this.point.y)) this.movedSince[cropPixel] = 1;
  }

  /**
   * Whether the frames before and after (the samples of one distance) show different things at the
   * pixel: something moved there on its own (a turning head, a passer-by), and copying either would
   * smear it across the hole. Such a pixel is left to farther frames, and in the end to the spatial fill.
   */
  private disagree(count: number): boolean {
    const { samples } = this;
    for (let k = 1; k < count; k += 1) {
      for (let channel = 0; channel < 3; channel += 1) {
        const difference = (samples[k * 3 + channel] as number) - (samples[channel] as number);
        if (difference > MAX_SOURCE_DISAGREEMENT || difference < -MAX_SOURCE_DISAGREEMENT) return true;
      }
    }
    return false;
  }

  // No closures in here: it runs per masked pixel and channel, and tsx wraps every closure it makes.
  private median(channel: number, count: number): number {
    const { samples, weights, order } = this;
    let total = 0;
    for (let k = 0; k < count; k += 1) {
      order[k] = k;
      total += weights[k] as number;
      // Insertion sort: a handful of samples.
      for (let j = k; j > 0; j -= 1) {
        const before = order[j - 1] as number;
        const here = order[j] as number;
        if ((samples[before * 3 + channel] as number) <= (samples[here * 3 + channel] as number)) break;
        order[j] = before;
        order[j - 1] = here;
      }
    }
    const half = total / 2;
    let below = 0;
    for (let k = 0; k < count; k += 1) {
      const value = samples[(order[k] as number) * 3 + channel] as number;
      below += weights[order[k] as number] as number;
      // Exactly half the weight on each side: the two middle samples are averaged.
      if (Math.abs(below - half) < 1e-9 * total && k + 1 < count) {
        return (value + (samples[(order[k + 1] as number) * 3 + channel] as number)) / 2;
      }
      if (below > half) return value;
    }
    return samples[(order[count - 1] as number) * 3 + channel] as number;
  }
}
