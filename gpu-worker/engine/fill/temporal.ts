import { type CropWork, Source } from "./crop";
import { project, sampleBicubic } from "./sample";
import { scratchPlane } from "./scratch";
import type { Homography, RgbFrame } from "./types";

/** A frame the masked pixels may be taken from, with the motion that aligns it to the centre frame. */
export interface FillSource {
  frame: RgbFrame;
  /** Pixels of `frame` that must not be copied (its own text); undefined when all may be. */
  mask?: Uint8Array;
  /** Maps centre-frame pixels to `frame`. */
  motion: Homography;
  /** Frames between the centre and this one; nearer frames are trusted more. */
  distance: number;
}

export interface WeightedSource {
  source: FillSource;
  weight: number;
}

/**
 * Keeps the sources that line up with the centre frame around the hole: the typical absolute RGB
 * difference on the ring of unmasked pixels within `ringWidth` of the mask must stay under
 * `maxError`. That check is local, so it also rejects frames where the global motion is right but
 * the background near the text moved on its own. Weights fall with temporal distance and error.
 */
export function alignedSources(
  work: CropWork,
  sources: FillSource[],
  ringWidth: number,
  maxError: number,
): WeightedSource[] {
  const aligned: WeightedSource[] = [];
  for (const source of sources) {
    const error = ringError(work, source, ringWidth);
    if (error <= maxError) aligned.push({ source, weight: 1 / (source.distance * (1 + error)) });
  }
  return aligned;
}

/**
 * Fills the masked pixels not filled yet from the nearest sources (in time) that show them: the
 * weighted median when several at that distance do (the frames just before and after).
 */
export function fillFromSources(work: CropWork, sources: WeightedSource[], kind: Source): void {
  if (sources.length === 0) return;
  const combine = new Combiner(sources);
  const { rect, maskedPixels, source, fill } = work;
  for (const i of maskedPixels) {
    if (source[i] !== Source.none) continue;
    if (combine.at(rect.x + (i % rect.width), rect.y + Math.floor(i / rect.width), fill, i * 3))
      source[i] = kind;
  }
}

/**
 * What the same combination gives on the unmasked ring around the hole (NaN where nothing was seen),
 * so the seam blend can measure how far the borrowed pixels are from the frame's own at the edge.
 */
export function estimateRing(work: CropWork, sources: WeightedSource[], ringWidth: number): Float32Array {
  const { rect, outside } = work;
  // Taken by the seam blend at once: a scratch plane (see scratch.ts).
  const estimate = scratchPlane("ring estimate", outside.length * 3, Number.NaN);
  const combine = new Combiner(sources);
  for (let i = 0; i < outside.length; i += 1) {
    const distance = outside[i] as number;
    if (distance > 0 && distance <= ringWidth) {
      combine.at(rect.x + (i % rect.width), rect.y + Math.floor(i / rect.width), estimate, i * 3);
    }
  }
  return estimate;
}

/** Every this many pixels of the ring are compared: plenty for a median, a third of the work. */
const RING_STRIDE = 3;

/**
 * The median over the ring of each pixel's mean absolute RGB difference to the source: a median, so
 * a halo or shadow the mask missed on part of the ring does not condemn a well-aligned source.
 */
function ringError(work: CropWork, fillSource: FillSource, ringWidth: number): number {
  const { rect, outside, frame } = work;
  const sample = new Float32Array(3);
  const point = { x: 0, y: 0 };
  const errors: number[] = [];
  for (let i = 0; i < outside.length; i += RING_STRIDE) {
    const distance = outside[i] as number;
    if (distance <= 0 || distance > ringWidth) continue;
    const x = rect.x + (i % rect.width);
    const y = rect.y + Math.floor(i / rect.width);
    project(fillSource.motion, x, y, point);
    if (!sampleBicubic(fillSource.frame, fillSource.mask, point.x, point.y, sample, 0)) continue;
    const at = (y * frame.width + x) * 3;
    errors.push(
      (Math.abs((frame.data[at] as number) - (sample[0] as number)) +
        Math.abs((frame.data[at + 1] as number) - (sample[1] as number)) +
        Math.abs((frame.data[at + 2] as number) - (sample[2] as number))) /
        3,
    );
  }
  // A source that shows none of the ring cannot be checked, so it is not trusted.
  if (errors.length === 0) return Number.POSITIVE_INFINITY;
  return Float32Array.from(errors).sort()[errors.length >> 1] as number;
}

/**
 * Per-pixel weighted median over the nearest sources that show the pixel, with scratch buffers reused
 * across pixels. Only the nearest are sampled: they differ least from the centre frame (motion,
 * light), and it takes two samples a pixel rather than one per frame of the window.
 */
class Combiner {
  private readonly sources: WeightedSource[];
  private readonly samples: Float32Array;
  private readonly weights: Float32Array;
  private readonly order: Uint16Array;
  private readonly point = { x: 0, y: 0 };

  constructor(sources: WeightedSource[]) {
    this.sources = [...sources].sort((a, b) => a.source.distance - b.source.distance);
    this.samples = new Float32Array(sources.length * 3);
    this.weights = new Float32Array(sources.length);
    this.order = new Uint16Array(sources.length);
  }

  /** Writes the combined colour of centre-frame pixel (x, y) to out[at..at+2]; false if no source saw it. */
  at(x: number, y: number, out: Float32Array, at: number): boolean {
    let count = 0;
    let nearest = Number.POSITIVE_INFINITY;
    for (const { source, weight } of this.sources) {
      if (source.distance > nearest) break;
      project(source.motion, x, y, this.point);
      if (!sampleBicubic(source.frame, source.mask, this.point.x, this.point.y, this.samples, count * 3))
        continue;
      this.weights[count] = weight;
      nearest = source.distance;
      count += 1;
    }
    if (count === 0) return false;
    for (let channel = 0; channel < 3; channel += 1) out[at + channel] = this.median(channel, count);
    return true;
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
