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
 * Where crop pixel (column, row) lies between the centres of the blocks of an `across` × `down` grid:
 * a measure read this way changes smoothly across the crop, where one read per block draws the
 * blocks' squares into whatever it decides.
 */
export function weighBlocks(
  across: number,
  down: number,
  column: number,
  row: number,
  into: BlockWeights,
): void {
  const fx = Math.min(Math.max((column - BLOCK / 2 + 0.5) / BLOCK, 0), across - 1);
  const fy = Math.min(Math.max((row - BLOCK / 2 + 0.5) / BLOCK, 0), down - 1);
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = x0 + 1 < across ? x0 + 1 : x0;
  const y1 = y0 + 1 < down ? y0 + 1 : y0;
  const tx = fx - x0;
  const ty = fy - y0;
  into.k00 = y0 * across + x0;
  into.k10 = y0 * across + x1;
  into.k01 = y1 * across + x0;
  into.k11 = y1 * across + x1;
  into.w00 = (1 - tx) * (1 - ty);
  into.w10 = tx * (1 - ty);
  into.w01 = (1 - tx) * ty;
  into.w11 = tx * ty;
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
