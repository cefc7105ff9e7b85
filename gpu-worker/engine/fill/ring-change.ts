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

/**
 * Where the picture just around the hole differs in another frame (`source`, aligned by its motion;
 * its own text is not looked at) beyond what the camera's motion explains: a subject moving or
 * turning next to the text. What that frame shows inside the hole is then out of date there,
 * however well the ring lines up as a whole. The change is measured per block of the crop, from the
 * ring pixels in the block and its eight neighbours (a block with none there takes the whole ring's),
 * and judged per pixel on those measures interpolated between the blocks' centres.
 */
export function movingNearHole(
  work: CropWork,
  { frame: source, mask, motion }: FillSource,
): (cropPixel: number) => boolean {
  const { rect, frame, outside } = work;
  const across = (rect.width >> BLOCK_SHIFT) + 1;
  const down = (rect.height >> BLOCK_SHIFT) + 1;
  const sums = new Float64Array(across * down);
  const counts = new Uint32Array(across * down);
  const changes = new Float32Array(outside.length);
  let sampled = 0;
  let total = 0;
  const point = { x: 0, y: 0 };
  const sample = new Float32Array(3);
  for (let i = 0; i < outside.length; i += 1) {
    const distance = outside[i] as number;
    if (distance <= 0 || distance > RING_DEPTH) continue;
    const row = Math.floor(i / rect.width);
    const column = i - row * rect.width;
    // Every other column: a block's verdict averages hundreds of ring pixels, and half of them
    // decide it as well at half the samples (all five real clips within 0.07 dB of every column).
    if (column & 1) continue;
    const x = rect.x + column;
    const y = rect.y + row;
    project(motion, x, y, point);
    if (!sampleBicubic(source, mask, point.x, point.y, sample, 0)) continue;
    const here = (y * frame.width + x) * 3;
    let change = 0;
    for (let c = 0; c < 3; c += 1) {
      change = Math.max(change, Math.abs((frame.data[here + c] as number) - (sample[c] as number)));
    }
    changes[sampled++] = change;
    total += change;
    const block = (row >> BLOCK_SHIFT) * across + (column >> BLOCK_SHIFT);
    sums[block] = (sums[block] as number) + change;
    counts[block] = (counts[block] as number) + 1;
  }
  if (sampled === 0) return () => false;
  const mean = total / sampled;
  const threshold = Math.max(
    MOVING_CHANGE,
    MOVING_OVER_TYPICAL * kthSmallest(changes, sampled, sampled >> 1),
  );
  // Each block's change over its 3x3 neighbourhood, read at the block's centre.
  const nearChange = new Float32Array(across * down);
  for (let by = 0; by < down; by += 1) {
    for (let bx = 0; bx < across; bx += 1) {
      let sum = 0;
      let count = 0;
      for (let ny = Math.max(0, by - 1); ny <= Math.min(down - 1, by + 1); ny += 1) {
        for (let nx = Math.max(0, bx - 1); nx <= Math.min(across - 1, bx + 1); nx += 1) {
          sum += sums[ny * across + nx] as number;
          count += counts[ny * across + nx] as number;
        }
      }
      nearChange[by * across + bx] = count > 0 ? sum / count : mean;
    }
  }
  // Judged per pixel on the change interpolated between block centres: a verdict per block drew its
  // squares into the fill, where a source taken in one block and left in the next met.
  const half = BLOCK / 2;
  return (cropPixel) => {
    const row = Math.floor(cropPixel / rect.width);
    const column = cropPixel - row * rect.width;
    const fx = Math.min(Math.max((column - half + 0.5) / BLOCK, 0), across - 1);
    const fy = Math.min(Math.max((row - half + 0.5) / BLOCK, 0), down - 1);
    const x0 = Math.floor(fx);
    const y0 = Math.floor(fy);
    const x1 = x0 + 1 < across ? x0 + 1 : x0;
    const y1 = y0 + 1 < down ? y0 + 1 : y0;
    const tx = fx - x0;
    const ty = fy - y0;
    const top =
      (nearChange[y0 * across + x0] as number) * (1 - tx) + (nearChange[y0 * across + x1] as number) * tx;
    const bottom =
      (nearChange[y1 * across + x0] as number) * (1 - tx) + (nearChange[y1 * across + x1] as number) * tx;
    return top * (1 - ty) + bottom * ty > threshold;
  };
}
