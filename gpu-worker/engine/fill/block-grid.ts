import type { SizedRect } from "../geometry";

/** Side of the blocks a crop's per-block measures are kept in, in pixels (a power of two: BLOCK_SHIFT). */
export const BLOCK_SHIFT = 4;
export const BLOCK = 1 << BLOCK_SHIFT;

/** Blocks across and down a crop of `width` × `height`. */
export function blockGrid(width: number, height: number): { across: number; down: number } {
  return { across: (width >> BLOCK_SHIFT) + 1, down: (height >> BLOCK_SHIFT) + 1 };
}

/** The four blocks around a pixel and their bilinear weights (filled in place: no allocation per pixel). */
export interface BlockWeights {
  k00: number;
  k10: number;
  k01: number;
  k11: number;
  w00: number;
  w10: number;
  w01: number;
  w11: number;
}

export function blockWeights(): BlockWeights {
  return { k00: 0, k10: 0, k01: 0, k11: 0, w00: 1, w10: 0, w01: 0, w11: 0 };
}

/**
 * Where a crop's pixels lie between the centres of its blocks, worked out once per axis: a measure
 * read this way changes smoothly across the crop, where one read per block draws the blocks' squares
 * into whatever it decides. The fill reads shift fields and block verdicts at every masked pixel for
 * every source, and the divisions and clamps, done per pixel, were most of a read.
 */
export class BlockAxes {
  private readonly across: number;
  private readonly columns: { low: Int32Array; high: Int32Array; t: Float64Array };
  private readonly rows: { low: Int32Array; high: Int32Array; t: Float64Array };

  constructor(width: number, height: number) {
    const { across, down } = blockGrid(width, height);
    this.across = across;
    this.columns = axis(width, across);
    this.rows = axis(height, down);
  }

  /** The four blocks around crop pixel (column, row), which must lie inside the crop, and their bilinear weights. */
  weigh(column: number, row: number, into: BlockWeights): void {
    const { columns, rows, across } = this;
    const x0 = columns.low[column] as number;
    const x1 = columns.high[column] as number;
    const y0 = rows.low[row] as number;
    const y1 = rows.high[row] as number;
    const tx = columns.t[column] as number;
    const ty = rows.t[row] as number;
    into.k00 = y0 * across + x0;
    into.k10 = y0 * across + x1;
    into.k01 = y1 * across + x0;
    into.k11 = y1 * across + x1;
    into.w00 = (1 - tx) * (1 - ty);
    into.w10 = tx * (1 - ty);
    into.w01 = (1 - tx) * ty;
    into.w11 = tx * ty;
  }
}

/** The blocks either side of each of `size` positions along an axis of `blocks`, and the share of the way to the second. */
function axis(size: number, blocks: number): { low: Int32Array; high: Int32Array; t: Float64Array } {
  const low = new Int32Array(size);
  const high = new Int32Array(size);
  const t = new Float64Array(size);
  for (let position = 0; position < size; position += 1) {
    const f = Math.min(Math.max((position - BLOCK / 2 + 0.5) / BLOCK, 0), blocks - 1);
    const first = Math.floor(f);
    low[position] = first;
    high[position] = first + 1 < blocks ? first + 1 : first;
    t[position] = f - first;
  }
  return { low, high, t };
}

// The crop size asked for last: asked again for each pixel and source of a crop, one comparison
// answers it; another size makes new axes, a few hundred numbers.
let lastAxes: { width: number; height: number; axes: BlockAxes } | undefined;

/** The BlockAxes of a crop of `rect`'s size. */
export function blockAxes(rect: SizedRect): BlockAxes {
  if (lastAxes?.width !== rect.width || lastAxes.height !== rect.height) {
    lastAxes = { width: rect.width, height: rect.height, axes: new BlockAxes(rect.width, rect.height) };
  }
  return lastAxes.axes;
}

/** The per-block `values` read at the place `weights` describe. */
export function readBlocks(values: Float32Array, weights: BlockWeights): number {
  return (
    weights.w00 * (values[weights.k00] as number) +
    weights.w10 * (values[weights.k10] as number) +
    weights.w01 * (values[weights.k01] as number) +
    weights.w11 * (values[weights.k11] as number)
  );
}

/** The per-block `values` read at point `k` of a table of four blocks and four weights a point (as weigh() fills them). */
export function readBlocksAt(
  values: Float32Array,
  blocks: Int32Array,
  weights: Float64Array,
  k: number,
): number {
  const at = k * 4;
  return (
    (weights[at] as number) * (values[blocks[at] as number] as number) +
    (weights[at + 1] as number) * (values[blocks[at + 1] as number] as number) +
    (weights[at + 2] as number) * (values[blocks[at + 2] as number] as number) +
    (weights[at + 3] as number) * (values[blocks[at + 3] as number] as number)
  );
}

/**
 * Sums, for each of the `stride` measures kept per block in `values`, the block (bx, by) and its
 * eight neighbours into `into`: a block alone holds too few ring pixels to judge by.
 */
export function sumAround(
  values: Float64Array,
  stride: number,
  grid: { across: number; down: number },
  bx: number,
  by: number,
  into: Float64Array,
): Float64Array {
  const { across, down } = grid;
  into.fill(0);
  for (let ny = Math.max(0, by - 1); ny <= Math.min(down - 1, by + 1); ny += 1) {
    for (let nx = Math.max(0, bx - 1); nx <= Math.min(across - 1, bx + 1); nx += 1) {
      const at = (ny * across + nx) * stride;
      for (let s = 0; s < stride; s += 1) into[s] = (into[s] as number) + (values[at + s] as number);
    }
  }
  return into;
}

/**
 * Gives each block not `known` the mean of its known neighbours (of eight), ring after ring inwards
 * from the known ones, in place; blocks that no known block reaches keep their value. A block deep
 * in a wide hole has no ring pixel in its neighbourhood, and what lies there is most like the nearest
 * measured picture, not the mean of the whole ring.
 */
export function spreadInward(
  values: Float32Array,
  known: Uint8Array,
  grid: { across: number; down: number },
): void {
  const { across, down } = grid;
  let frontier = Int32Array.from(known.keys()).filter((b) => !known[b]);
  // Each round's blocks reached and their means, set only once the round has read its neighbours.
  const reachedBlocks = new Int32Array(frontier.length);
  const reachedValues = new Float32Array(frontier.length);
  while (frontier.length > 0) {
    let reached = 0;
    let remaining = 0;
    for (const b of frontier) {
      const bx = b % across;
      const by = (b - bx) / across;
      let sum = 0;
      let count = 0;
      for (let ny = Math.max(0, by - 1); ny <= Math.min(down - 1, by + 1); ny += 1) {
        for (let nx = Math.max(0, bx - 1); nx <= Math.min(across - 1, bx + 1); nx += 1) {
          const n = ny * across + nx;
          if (!known[n]) continue;
          sum += values[n] as number;
          count += 1;
        }
      }
      if (count > 0) {
        reachedBlocks[reached] = b;
        reachedValues[reached] = sum / count;
        reached += 1;
      } else {
        // Kept for the next round, in order, over the frontier's slots already read.
        frontier[remaining++] = b;
      }
    }
    if (reached === 0) return;
    for (let k = 0; k < reached; k += 1) {
      values[reachedBlocks[k] as number] = reachedValues[k] as number;
      known[reachedBlocks[k] as number] = 1;
    }
    frontier = frontier.subarray(0, remaining);
  }
}
