import type { SizedRect } from "../geometry";
import {
  BLOCK_SHIFT,
  blockAxes,
  blockGrid,
  blockWeights,
  readBlocks,
  readBlocksAt,
  sumAround,
} from "./block-grid";
import type { CropWork } from "./crop";
import { meanGrey as grey, project } from "./sample";
import type { FillSource } from "./temporal";
import type { Homography } from "./types";

/** Pixels outside the hole, up to this distance, whose alignment is measured. */
const RING_DEPTH = 8;
/** Lucas-Kanade steps per block. */
const STEPS = 2;
/**
 * Largest shift a block may take, in pixels: beyond it one camera motion plus a nudge is the wrong
 * model. A field this large is reached only step by step, each farther frame starting from the
 * nearer one's (real-subject kept 22.87 dB inside the masks at 12, 22.68 at 8).
 */
const MAX_LOCAL_SHIFT = 12;
/**
 * Damping of the steps, as a share of the gradients' energy: along an edge (a lamp's side) the
 * picture says nothing about the shift, and the step there stays near nought instead of wandering.
 */
const DAMPING = 0.1;
/**
 * A block keeps its shift only where it leaves at most this share of the error before it: a shift
 * that helps a little is mostly fitting noise, and took 0.6 dB off the still sign clip's worst tenth
 * (kept at any gain) where real-subject lost 0.17 dB by the rule.
 */
const KEPT_ERROR_SHARE = 0.75;

/**
 * A translation per block of a crop, added after a source's camera motion: where a subject moves on
 * its own beside the hole, the frames around show it displaced by a few pixels from where one motion
 * per frame puts it. Measured on the unmasked ring around the hole and read between the blocks'
 * centres, so inside the hole it carries on the motion its edges show (the flow-guided recipe's
 * completed motion field, at block resolution).
 */
export interface ShiftField {
  rect: SizedRect;
  across: number;
  down: number;
  dx: Float32Array;
  dy: Float32Array;
  /** The largest shift the field adds anywhere, in pixels along either axis. */
  reach: number;
}

const weights = blockWeights();

/** Adds the field's shift at centre-frame pixel (x, y) to `point`. */
function addShift(field: ShiftField, x: number, y: number, point: { x: number; y: number }): void {
  blockAxes(field.rect).weigh(x - field.rect.x, y - field.rect.y, weights);
  point.x += readBlocks(field.dx, weights);
  point.y += readBlocks(field.dy, weights);
}

/** Where centre-frame pixel (x, y) lands in a source: its camera motion, then its nudges if it has any. */
export function projectShifted(
  motion: Homography,
  shift: ShiftField | undefined,
  x: number,
  y: number,
  into: { x: number; y: number },
): void {
  project(motion, x, y, into);
  if (shift) addShift(shift, x, y, into);
}

interface RingPoints {
  x: Int32Array;
  y: Int32Array;
  grey: Float32Array;
  gx: Float32Array;
  gy: Float32Array;
  block: Int32Array;
  /** Each point's four blocks and their weights (BlockAxes), four to a point: the field is read there at every step. */
  blocks: Int32Array;
  blockWeights: Float64Array;
}

/**
 * What each block keeps of its ring pixels, at these offsets: the sums of gx², gx·gy, gy², gx·e,
 * gy·e and e² (grey gradient g, error e), and their count.
 */
const [XX, XY, YY, XE, YE, EE, COUNT, MOMENTS] = [0, 1, 2, 3, 4, 5, 6, 7] as const;

const ringsOf = new WeakMap<CropWork, RingPoints>();

/**
 * Half the ring's pixels whose four neighbours are unmasked too, with the centre frame's grey and
 * gradient: gathered once per crop, for every source measured on it.
 */
function ringPoints(work: CropWork, across: number): RingPoints {
  const known = ringsOf.get(work);
  if (known) return known;
  const { rect, frame, outside } = work;
  const picked: number[] = [];
  for (let i = 0; i < outside.length; i += 1) {
    const distance = outside[i] as number;
    if (distance <= 0 || distance > RING_DEPTH) continue;
    const column = i % rect.width;
    const row = (i - column) / rect.width;
    // Half the ring, in a checkerboard: a block's neighbourhood holds hundreds of its pixels.
    if ((column + row) & 1) continue;
    if (column === 0 || row === 0 || column === rect.width - 1 || row === rect.height - 1) continue;
    if (!(outside[i - 1] && outside[i + 1] && outside[i - rect.width] && outside[i + rect.width])) continue;
    picked.push(i);
  }
  const points: RingPoints = {
    x: new Int32Array(picked.length),
    y: new Int32Array(picked.length),
    grey: new Float32Array(picked.length),
    gx: new Float32Array(picked.length),
    gy: new Float32Array(picked.length),
    block: new Int32Array(picked.length),
    blocks: new Int32Array(picked.length * 4),
    blockWeights: new Float64Array(picked.length * 4),
  };
  const axes = blockAxes(rect);
  picked.forEach((i, k) => {
    const column = i % rect.width;
    const row = (i - column) / rect.width;
    const x = rect.x + column;
    const y = rect.y + row;
    const pixel = y * frame.width + x;
    points.x[k] = x;
    points.y[k] = y;
    points.grey[k] = grey(frame.data, pixel);
    points.gx[k] = (grey(frame.data, pixel + 1) - grey(frame.data, pixel - 1)) / 2;
    points.gy[k] = (grey(frame.data, pixel + frame.width) - grey(frame.data, pixel - frame.width)) / 2;
    points.block[k] = (row >> BLOCK_SHIFT) * across + (column >> BLOCK_SHIFT);
    axes.weigh(column, row, weights);
    points.blocks.set([weights.k00, weights.k10, weights.k01, weights.k11], k * 4);
    points.blockWeights.set([weights.w00, weights.w10, weights.w01, weights.w11], k * 4);
  });
  ringsOf.set(work, points);
  return points;
}

/**
 * The shift field that lines `source` (a frame and the motion to it) up with the crop's centre frame
 * around the hole, block by block: damped Lucas-Kanade steps on the ring pixels of each block and its
 * eight neighbours, a block's shift kept only where it takes a quarter of the error there away (the
 * error with no shift at all). The steps start from `seed`, the field of the frame one nearer the
 * centre on the same side, where it has one: a subject that keeps moving is a few pixels further on
 * in each frame, and two steps from nought reach only the nearest frames (real-subject's neckline,
 * moving about 3 px a frame under "SAID", was filled with the dress). Undefined when no block moved.
 */
export function localShifts(work: CropWork, source: FillSource, seed?: ShiftField): ShiftField | undefined {
  const { rect } = work;
  const { across, down } = blockGrid(rect.width, rect.height);
  const points = ringPoints(work, across);
  if (points.x.length === 0) return undefined;
  const blocks = across * down;
  const field: ShiftField = {
    rect,
    across,
    down,
    dx: new Float32Array(blocks),
    dy: new Float32Array(blocks),
    reach: 0,
  };
  const sums = new Float64Array(blocks * MOMENTS);
  const { width, height } = source.frame;
  const sourceData = source.frame.data;
  const { mask } = source;
  // Where the camera motion alone takes each point: the steps only change the field added to it.
  const carried = projectedPoints(points, source.motion);
  const { blocks: around, blockWeights: aroundWeights } = points;
  const measure = () => {
    sums.fill(0);
    for (let k = 0; k < points.x.length; k += 1) {
      // The field read between the block centres, as addShift reads it (the same sums in the same order).
      const px = (carried[k * 2] as number) + readBlocksAt(field.dx, around, aroundWeights, k);
      const py = (carried[k * 2 + 1] as number) + readBlocksAt(field.dy, around, aroundWeights, k);
      // Bilinear, in grey: a step needs the error, not the sharp sample the fill takes.
      if (!(px >= 0 && py >= 0 && px < width - 1 && py < height - 1)) continue;
      const left = Math.floor(px);
      const top = Math.floor(py);
      const tap = top * width + left;
      if (mask && (mask[tap] || mask[tap + 1] || mask[tap + width] || mask[tap + width + 1])) continue;
      const tx = px - left;
      const ty = py - top;
      const sampled =
        (grey(sourceData, tap) * (1 - tx) + grey(sourceData, tap + 1) * tx) * (1 - ty) +
        (grey(sourceData, tap + width) * (1 - tx) + grey(sourceData, tap + width + 1) * tx) * ty;
      const error = (points.grey[k] as number) - sampled;
      const gx = points.gx[k] as number;
      const gy = points.gy[k] as number;
      const at = (points.block[k] as number) * MOMENTS;
      sums[at + XX] = (sums[at + XX] as number) + gx * gx;
      sums[at + XY] = (sums[at + XY] as number) + gx * gy;
      sums[at + YY] = (sums[at + YY] as number) + gy * gy;
      sums[at + XE] = (sums[at + XE] as number) + gx * error;
      sums[at + YE] = (sums[at + YE] as number) + gy * error;
      sums[at + EE] = (sums[at + EE] as number) + error * error;
      sums[at + COUNT] = (sums[at + COUNT] as number) + 1;
    }
  };
  const near = new Float64Array(MOMENTS);
  const grid = { across, down };
  measure();
  // Where no ring pixel was measured before the steps, any error measured after them is a gain.
  const before = blockErrors(sums, grid, Number.POSITIVE_INFINITY);
  if (seed) {
    field.dx.set(seed.dx);
    field.dy.set(seed.dy);
    measure();
  }
  for (let step = 0; step < STEPS; step += 1) {
    for (let by = 0; by < down; by += 1) {
      for (let bx = 0; bx < across; bx += 1) {
        sumAround(sums, MOMENTS, grid, bx, by, near);
        const count = near[COUNT] as number;
        if (!count) continue;
        const b = by * across + bx;
        const xx = near[XX] as number;
        const xy = near[XY] as number;
        const yy = near[YY] as number;
        const xe = near[XE] as number;
        const ye = near[YE] as number;
        const damping = DAMPING * (xx + yy) + count;
        const a = xx + damping;
        const d = yy + damping;
        const determinant = a * d - xy * xy;
        if (!(determinant > 0)) continue;
        const sx = (d * xe - xy * ye) / determinant;
        const sy = (a * ye - xy * xe) / determinant;
        field.dx[b] = Math.min(MAX_LOCAL_SHIFT, Math.max(-MAX_LOCAL_SHIFT, (field.dx[b] as number) + sx));
        field.dy[b] = Math.min(MAX_LOCAL_SHIFT, Math.max(-MAX_LOCAL_SHIFT, (field.dy[b] as number) + sy));
      }
    }
    measure();
  }
  const after = blockErrors(sums, grid, Number.NaN);
  let moved = false;
  for (let b = 0; b < blocks; b += 1) {
    if (!((after[b] as number) < KEPT_ERROR_SHARE * (before[b] as number))) {
      field.dx[b] = 0;
      field.dy[b] = 0;
    } else if (field.dx[b] || field.dy[b]) {
      moved = true;
      field.reach = Math.max(field.reach, Math.abs(field.dx[b] as number), Math.abs(field.dy[b] as number));
    }
  }
  field.reach = Math.ceil(field.reach);
  return moved ? field : undefined;
}

/** Where `motion` takes each of the ring's points, x and y interleaved. */
function projectedPoints(points: RingPoints, motion: Homography): Float64Array {
  const moved = new Float64Array(points.x.length * 2);
  const point = { x: 0, y: 0 };
  for (let k = 0; k < points.x.length; k += 1) {
    project(motion, points.x[k] as number, points.y[k] as number, point);
    moved[k * 2] = point.x;
    moved[k * 2 + 1] = point.y;
  }
  return moved;
}

/** Each block's mean squared error over its 3x3 neighbourhood, `empty` where no ring pixel was measured. */
function blockErrors(
  sums: Float64Array,
  grid: { across: number; down: number },
  empty: number,
): Float64Array {
  const errors = new Float64Array(grid.across * grid.down);
  const near = new Float64Array(MOMENTS);
  for (let by = 0; by < grid.down; by += 1) {
    for (let bx = 0; bx < grid.across; bx += 1) {
      sumAround(sums, MOMENTS, grid, bx, by, near);
      const count = near[COUNT] as number;
      errors[by * grid.across + bx] = count ? (near[EE] as number) / count : empty;
    }
  }
  return errors;
}
