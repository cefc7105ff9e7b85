import {
  BLOCK_SHIFT,
  blockAxes,
  blockGrid,
  blockWeights,
  readBlocks,
  spreadInward,
  sumAround,
} from "./block-grid";
import type { CropWork } from "./crop";
import { projectShifted } from "./local-shift";
import { isStatic, sampleBilinear } from "./sample";
import { scratchPlane } from "./scratch";
import { kthSmallest } from "./select";
import type { FillSource } from "./temporal";

/** Pixels outside the hole, up to this distance, on which the picture's change is measured. */
const RING_DEPTH = 8;
/** Mean change (levels, largest channel) of the ring near a block above which the picture there moves... */
const MOVING_CHANGE = 8;
/** ...when it is also this many times the ring's median change (resampled fine texture changes too). */
const MOVING_OVER_TYPICAL = 1.5;

/**
 * A change near a pixel this many times the moving threshold says what any earlier frame showed there
 * is out of date, the previous output's fill included (CropWork.movedSince): a subject that walked
 * through, not leaves stirring in the wind or a face talking, over which the old fill stays the best
 * guess. Inside the masks, with the carry-over under a still camera left out wherever some frame
 * passed over showed the pixel: a walker's dark coat carried on over a lawn for 40 frames after she
 * left (held-out ho6-portrait-street) 14.39 to 14.99 dB at 1 time the threshold, 14.90 at 4; but at 1
 * real-handheld's leaves lost 1.83 dB and real-tilt-handle 0.42, at 2 and 3 real-tilt-handle's and
 * real-subject's worst tenths 1.45 and 0.60; at 4 neither moved.
 */
export const OUT_OF_DATE = 4;

/** Where the ring's pixels lie in the crop: each one's column and row. */
interface Ring {
  columns: Int32Array;
  rows: Int32Array;
}

const rings = new WeakMap<CropWork, Ring>();

/**
 * The crop's pixels on which the change is measured, found once per crop: up to RING_DEPTH outside
 * the hole, in every other column (a block's verdict averages hundreds of ring pixels, and half of
 * them decide it as well at half the samples: all five real clips within 0.07 dB of every column).
 * Each source of the window is measured on them, once or twice, and the ring is a few thousand of
 * the crop's tens of thousands of pixels: walking the whole crop per source was most of this check's
 * CPU on a band as wide as the frame.
 */
function ringPixels(work: CropWork): Ring {
  const known = rings.get(work);
  if (known) return known;
  const { rect, outside } = work;
  const picked: number[] = [];
  for (let i = 0; i < outside.length; i += 1) {
    const distance = outside[i] as number;
    if (distance > 0 && distance <= RING_DEPTH && !((i % rect.width) & 1)) picked.push(i);
  }
  const ring = {
    columns: Int32Array.from(picked, (i) => i % rect.width),
    rows: Int32Array.from(picked, (i) => Math.floor(i / rect.width)),
  };
  rings.set(work, ring);
  return ring;
}

/**
 * Where the picture just around the hole differs in another frame (`source`, aligned by its motion;
 * its own text is not looked at) beyond what the camera's motion explains: a subject moving or
 * turning next to the text. What that frame shows inside the hole is then out of date there,
 * however well the ring lines up as a whole. The change is measured per block of the crop, from the
 * ring pixels in the block and its eight neighbours (a block with none there takes the whole ring's,
 * or under a still camera its nearest measured blocks'), and judged per pixel on those measures
 * interpolated between the blocks' centres: the answer is the change near a crop pixel as a multiple
 * of the threshold above which the picture there moves (over 1: moving; see OUT_OF_DATE for what
 * more means). Undefined when nothing moves. The ring is sampled bilinearly: a block's mean change
 * over hundreds of pixels is decided as well as with the fill's bicubic taps (real clips within 0.08
 * dB inside the masks, the synthetic within 0.04) at a quarter of the taps, and this check ran once
 * or twice on every source of every window (on real-city it took 8.1 of the fill's 21.3 CPU-s, 3.8
 * after).
 */
export function movingNearHole(
  work: CropWork,
  { frame: source, mask, motion, shift }: FillSource,
): ((x: number, y: number) => number) | undefined {
  const { rect, frame } = work;
  const ring = ringPixels(work);
  const grid = blockGrid(rect.width, rect.height);
  const { across, down } = grid;
  // Per block: the sum of its ring pixels' change, and their count.
  const sums = new Float64Array(across * down * 2);
  // Read only up to `sampled`, within this call: a scratch plane, not an allocation per source
  // (twice per source where it is nudged).
  const changes = scratchPlane("ring changes", ring.columns.length);
  let sampled = 0;
  let total = 0;
  const point = { x: 0, y: 0 };
  const sample = new Float32Array(3);
  for (let k = 0; k < ring.columns.length; k += 1) {
    const row = ring.rows[k] as number;
    const column = ring.columns[k] as number;
    const x = rect.x + column;
    const y = rect.y + row;
    projectShifted(motion, shift, x, y, point);
    if (!sampleBilinear(source, mask, point, sample)) continue;
    const here = (y * frame.width + x) * 3;
    let change = 0;
    for (let c = 0; c < 3; c += 1) {
      change = Math.max(change, Math.abs((frame.data[here + c] as number) - (sample[c] as number)));
    }
    changes[sampled++] = change;
    total += change;
    const block = (row >> BLOCK_SHIFT) * across + (column >> BLOCK_SHIFT);
    sums[block * 2] = (sums[block * 2] as number) + change;
    sums[block * 2 + 1] = (sums[block * 2 + 1] as number) + 1;
  }
  if (sampled === 0) return undefined;
  const mean = total / sampled;
  const threshold = Math.max(
    MOVING_CHANGE,
    MOVING_OVER_TYPICAL * kthSmallest(changes, sampled, sampled >> 1),
  );
  // Each block's change over its 3x3 neighbourhood, read at the block's centre; under a still camera
  // a block with no ring pixel there (deep in a two-line caption or a band) takes its nearest measured
  // blocks' (see spreadInward).
  const measured = new Uint8Array(across * down);
  const nearChange = new Float32Array(across * down);
  const around = new Float64Array(2);
  for (let by = 0; by < down; by += 1) {
    for (let bx = 0; bx < across; bx += 1) {
      sumAround(sums, 2, grid, bx, by, around);
      const count = around[1] as number;
      const block = by * across + bx;
      nearChange[block] = count > 0 ? (around[0] as number) / count : mean;
      measured[block] = count > 0 ? 1 : 0;
    }
  }
  if (isStatic(motion, rect)) spreadInward(nearChange, measured, grid);
  if (!nearChange.some((change) => change > threshold)) return undefined;
  // Judged per pixel on the change interpolated between block centres: a verdict per block drew its
  // squares into the fill, where a source taken in one block and left in the next met.
  const weights = blockWeights();
  const axes = blockAxes(rect);
  return (x, y) => {
    axes.weigh(x - rect.x, y - rect.y, weights);
    return readBlocks(nearChange, weights) / threshold;
  };
}
