import type { CropWork } from "./crop";
import { project, sampleBicubic } from "./sample";
import { kthSmallest } from "./select";
import type { FillSource } from "./temporal";

/** Side of the blocks the crop is judged in, in pixels (a power of two: BLOCK_SHIFT). */
const BLOCK_SHIFT = 4;
const BLOCK = 1 << BLOCK_SHIFT;
/** Pixels outside the hole, up to this distance, on which the picture's change is measured. */
const RING_DEPTH = 8;
/** Mean change (levels, largest channel) of the ring near a block above which the picture there moves... */
const MOVING_CHANGE = 8;
/** ...when it is also this many times the ring's median change (resampled fine texture changes too). */
const MOVING_OVER_TYPICAL = 1.5;
/** Lucas-Kanade steps of each block's own shift, and the largest shift (pixels) a block may take. */
const LOCAL_STEPS = 3;
const MAX_LOCAL_SHIFT = 6;
/** A Lucas-Kanade step that moves no block by this much (pixels) ends the steps. */
const SETTLED_SHIFT = 0.1;
/** Shifts below this (pixels) everywhere are not worth resampling the fill for. */
const NEGLIGIBLE_SHIFT = 0.2;

/** Whether a source must not fill a crop pixel: the picture near it differs there. */
export type NearHoleVerdict = (cropPixel: number) => boolean;

/** A per-crop-pixel shift (pixels) added after a source's motion: motion that one homography misses. */
export interface LocalShift {
  x: Float32Array;
  y: Float32Array;
}

/** How a source fits the picture around the hole, block by block. */
export interface LocalFit {
  rejects: NearHoleVerdict;
  shift?: LocalShift;
}

/** The ring pixels of a crop, with the block each lies in and its grey gradient (NaN where unknown). */
interface LocalRing {
  pixels: Uint32Array;
  blocks: Uint32Array;
  gradient: Float32Array;
}

const rings = new WeakMap<CropWork, LocalRing>();

function localRing(work: CropWork): LocalRing {
  const known = rings.get(work);
  if (known) return known;
  const { rect, frame, outside } = work;
  const across = (rect.width >> BLOCK_SHIFT) + 1;
  const picked: number[] = [];
  for (let i = 0; i < outside.length; i += 1) {
    const distance = outside[i] as number;
    if (distance > 0 && distance <= RING_DEPTH) picked.push(i);
  }
  const grey = (x: number, y: number) => {
    const at = (y * frame.width + x) * 3;
    return ((frame.data[at] as number) + (frame.data[at + 1] as number) + (frame.data[at + 2] as number)) / 3;
  };
  const ring = {
    pixels: Uint32Array.from(picked),
    blocks: new Uint32Array(picked.length),
    gradient: new Float32Array(picked.length * 2).fill(Number.NaN),
  };
  picked.forEach((i, k) => {
    const row = Math.floor(i / rect.width);
    const column = i - row * rect.width;
    ring.blocks[k] = (row >> BLOCK_SHIFT) * across + (column >> BLOCK_SHIFT);
    const inside = column > 0 && row > 0 && column < rect.width - 1 && row < rect.height - 1;
    if (inside && outside[i - 1] && outside[i + 1] && outside[i - rect.width] && outside[i + rect.width]) {
      const x = rect.x + column;
      const y = rect.y + row;
      ring.gradient[k * 2] = (grey(x + 1, y) - grey(x - 1, y)) / 2;
      ring.gradient[k * 2 + 1] = (grey(x, y + 1) - grey(x, y - 1)) / 2;
    }
  });
  rings.set(work, ring);
  return ring;
}

/**
 * The blocks within one of a block holding a `pending` crop pixel: the only ones whose verdict is
 * asked for, and whose neighbourhoods the ring pixels of interest lie in (within two).
 */
function blocksNear(pending: Uint32Array, width: number, across: number, down: number): Uint8Array {
  const holding = new Uint8Array(across * down);
  for (const i of pending)
    holding[(Math.floor(i / width) >> BLOCK_SHIFT) * across + ((i % width) >> BLOCK_SHIFT)] = 1;
  const near = new Uint8Array(across * down);
  for (let b = 0; b < across * down; b += 1) {
    if (!holding[b]) continue;
    const bx = b % across;
    const by = Math.floor(b / across);
    for (let ny = Math.max(0, by - 2); ny <= Math.min(down - 1, by + 2); ny += 1) {
      for (let nx = Math.max(0, bx - 2); nx <= Math.min(across - 1, bx + 2); nx += 1)
        near[ny * across + nx] = 1;
    }
  }
  return near;
}

/** The ring pixels lying in the given blocks: far frames are asked about few pixels still unfilled. */
function ringNear(ring: LocalRing, blocks: Uint8Array): LocalRing {
  const kept: number[] = [];
  for (let k = 0; k < ring.pixels.length; k += 1) if (blocks[ring.blocks[k] as number]) kept.push(k);
  if (kept.length === ring.pixels.length) return ring;
  return {
    pixels: Uint32Array.from(kept, (k) => ring.pixels[k] as number),
    blocks: Uint32Array.from(kept, (k) => ring.blocks[k] as number),
    gradient: Float32Array.from(
      kept.flatMap((k) => [ring.gradient[k * 2] as number, ring.gradient[k * 2 + 1] as number]),
    ),
  };
}

/** Sums over each block and its eight neighbours, of `fields` values a block. */
function neighbourhoodSums(sums: Float64Array, fields: number, across: number, down: number): Float64Array {
  const out = new Float64Array(sums.length);
  for (let by = 0; by < down; by += 1) {
    for (let bx = 0; bx < across; bx += 1) {
      const to = (by * across + bx) * fields;
      for (let ny = Math.max(0, by - 1); ny <= Math.min(down - 1, by + 1); ny += 1) {
        for (let nx = Math.max(0, bx - 1); nx <= Math.min(across - 1, bx + 1); nx += 1) {
          const from = (ny * across + nx) * fields;
          for (let f = 0; f < fields; f += 1)
            out[to + f] = (out[to + f] as number) + (sums[from + f] as number);
        }
      }
    }
  }
  return out;
}

/**
 * The source's fit near the hole (`source` aligned by its motion; its own text is not looked at).
 * Each block of the crop first takes its own small shift on top of the motion, by Lucas-Kanade steps
 * on the ring pixels in it and its eight neighbours: the motion of a subject that one homography per
 * frame misses, completed into the hole from its edges. Then a block is rejected where the ring
 * there still differs by more than `limit` (mean of the largest channel's change), or by default
 * beyond what the camera's motion explains elsewhere (MOVING_CHANGE and MOVING_OVER_TYPICAL times
 * the ring's median): a subject moving or turning next to the text, so that what the frame shows
 * inside the hole is out of date there. A block with no ring pixel near takes the whole ring's mean.
 * Undefined when the source shows none of the ring, or with a `limit` no block meets.
 */
export function localFit(
  work: CropWork,
  fillSource: FillSource,
  pending: Uint32Array,
  limit?: number,
): LocalFit | undefined {
  const { rect, frame } = work;
  const across = (rect.width >> BLOCK_SHIFT) + 1;
  const down = (rect.height >> BLOCK_SHIFT) + 1;
  const near = blocksNear(pending, rect.width, across, down);
  const ring = ringNear(localRing(work), near);
  const shifts = new Float32Array(across * down * 2);
  const point = { x: 0, y: 0 };
  const sample = new Float32Array(3);
  /** Samples the source at ring pixel k under its block's shift; false where it shows nothing. */
  const sampleAt = (k: number): boolean => {
    const i = ring.pixels[k] as number;
    const block = ring.blocks[k] as number;
    project(fillSource.motion, rect.x + (i % rect.width), rect.y + Math.floor(i / rect.width), point);
    return sampleBicubic(
      fillSource.frame,
      fillSource.mask,
      point.x + (shifts[block * 2] as number),
      point.y + (shifts[block * 2 + 1] as number),
      sample,
      0,
    );
  };
  const centre = (k: number, c: number) => {
    const i = ring.pixels[k] as number;
    return frame.data[
      ((rect.y + Math.floor(i / rect.width)) * frame.width + rect.x + (i % rect.width)) * 3 + c
    ] as number;
  };
  for (let step = 0; step < LOCAL_STEPS; step += 1) {
    // Per block: xx, xy, yy, xe, ye of the Lucas-Kanade normal equations.
    const terms = new Float64Array(across * down * 5);
    for (let k = 0; k < ring.pixels.length; k += 1) {
      const gx = ring.gradient[k * 2] as number;
      if (Number.isNaN(gx) || !sampleAt(k)) continue;
      const gy = ring.gradient[k * 2 + 1] as number;
      let signed = 0;
      for (let c = 0; c < 3; c += 1) signed += centre(k, c) - (sample[c] as number);
      const at = (ring.blocks[k] as number) * 5;
      terms[at] = (terms[at] as number) + gx * gx;
      terms[at + 1] = (terms[at + 1] as number) + gx * gy;
      terms[at + 2] = (terms[at + 2] as number) + gy * gy;
      terms[at + 3] = (terms[at + 3] as number) + (gx * signed) / 3;
      terms[at + 4] = (terms[at + 4] as number) + (gy * signed) / 3;
    }
    const summed = neighbourhoodSums(terms, 5, across, down);
    let largestStep = 0;
    for (let b = 0; b < across * down; b += 1) {
      const [xx = 0, xy = 0, yy = 0, xe = 0, ye = 0] = summed.subarray(b * 5, b * 5 + 5);
      const determinant = xx * yy - xy * xy;
      // Too little texture in some direction to tell: the block keeps its shift.
      if (!(determinant > 1e-4 * (xx + yy) ** 2)) continue;
      const x = (shifts[b * 2] as number) + (yy * xe - xy * ye) / determinant;
      const y = (shifts[b * 2 + 1] as number) + (xx * ye - xy * xe) / determinant;
      if (Math.hypot(x, y) > MAX_LOCAL_SHIFT) continue;
      largestStep = Math.max(
        largestStep,
        Math.hypot(x - (shifts[b * 2] as number), y - (shifts[b * 2 + 1] as number)),
      );
      shifts[b * 2] = x;
      shifts[b * 2 + 1] = y;
    }
    if (largestStep < SETTLED_SHIFT) break;
  }
  // The change left per block once shifted.
  const sums = new Float64Array(across * down * 2);
  const changes = new Float32Array(ring.pixels.length);
  let sampled = 0;
  let total = 0;
  for (let k = 0; k < ring.pixels.length; k += 1) {
    if (!sampleAt(k)) continue;
    let change = 0;
    for (let c = 0; c < 3; c += 1) change = Math.max(change, Math.abs(centre(k, c) - (sample[c] as number)));
    changes[sampled++] = change;
    total += change;
    const at = (ring.blocks[k] as number) * 2;
    sums[at] = (sums[at] as number) + change;
    sums[at + 1] = (sums[at + 1] as number) + 1;
  }
  if (sampled === 0) return undefined;
  const mean = total / sampled;
  const threshold =
    limit ?? Math.max(MOVING_CHANGE, MOVING_OVER_TYPICAL * kthSmallest(changes, sampled, sampled >> 1));
  const around = neighbourhoodSums(sums, 2, across, down);
  const rejected = new Uint8Array(across * down);
  for (let b = 0; b < across * down; b += 1) {
    const count = around[b * 2 + 1] as number;
    rejected[b] = (count > 0 ? (around[b * 2] as number) / count : mean) > threshold ? 1 : 0;
  }
  if (limit !== undefined && rejected.every((verdict) => verdict === 1)) return undefined;
  const rejects = (cropPixel: number) => {
    const row = Math.floor(cropPixel / rect.width);
    const column = cropPixel - row * rect.width;
    return rejected[(row >> BLOCK_SHIFT) * across + (column >> BLOCK_SHIFT)] === 1;
  };
  const moved = shifts.some((shift) => Math.abs(shift) >= NEGLIGIBLE_SHIFT);
  return moved
    ? { rejects, shift: interpolated(shifts, near, rect.width, rect.height, across) }
    : { rejects };
}

/** The blocks' shifts at the crop pixels of the `near` blocks, bilinear between block centres (no steps at block edges). */
function interpolated(
  shifts: Float32Array,
  near: Uint8Array,
  width: number,
  height: number,
  across: number,
): LocalShift {
  const down = near.length / across;
  const x = new Float32Array(width * height);
  const y = new Float32Array(width * height);
  for (let row = 0; row < height; row += 1) {
    const by = Math.min(down - 1, Math.max(0, (row - BLOCK / 2) / BLOCK));
    const top = Math.floor(by) * across;
    const bottom = Math.min(down - 1, Math.floor(by) + 1) * across;
    const v = by - Math.floor(by);
    for (let column = 0; column < width; column += 1) {
      // Only the blocks near pixels still to fill are asked for (the rest stay 0).
      if (!near[(row >> BLOCK_SHIFT) * across + (column >> BLOCK_SHIFT)]) continue;
      const bx = Math.min(across - 1, Math.max(0, (column - BLOCK / 2) / BLOCK));
      const left = Math.floor(bx);
      const right = Math.min(across - 1, left + 1);
      const u = bx - left;
      const w00 = (1 - v) * (1 - u);
      const w01 = (1 - v) * u;
      const w10 = v * (1 - u);
      const w11 = v * u;
      const a = (top + left) * 2;
      const b = (top + right) * 2;
      const c = (bottom + left) * 2;
      const d = (bottom + right) * 2;
      const i = row * width + column;
      x[i] =
        w00 * (shifts[a] as number) +
        w01 * (shifts[b] as number) +
        w10 * (shifts[c] as number) +
        w11 * (shifts[d] as number);
      y[i] =
        w00 * (shifts[a + 1] as number) +
        w01 * (shifts[b + 1] as number) +
        w10 * (shifts[c + 1] as number) +
        w11 * (shifts[d + 1] as number);
    }
  }
  return { x, y };
}
