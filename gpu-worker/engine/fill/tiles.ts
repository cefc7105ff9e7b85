/** Side of the tiles a mask is summarised in, in pixels (a power of two: TILE_SHIFT). */
const TILE_SHIFT = 2;

/** Which TILE×TILE tiles of a frame's mask are set on every pixel. */
export interface FullTiles {
  columns: number;
  rows: number;
  /** 1 where every pixel of the tile (inside the frame) is masked. */
  full: Uint8Array;
}

const summaries = new WeakMap<Uint8Array, FullTiles>();

/**
 * The mask's full tiles, worked out once per mask: the search for pixels a far frame shows asks of
 * every block of the hole whether it lands wholly on that frame's text, and a frame is a source for
 * up to forty centre frames.
 */
export function fullTiles(mask: Uint8Array, width: number, height: number): FullTiles {
  const known = summaries.get(mask);
  if (known) return known;
  const columns = (width + (1 << TILE_SHIFT) - 1) >> TILE_SHIFT;
  const rows = (height + (1 << TILE_SHIFT) - 1) >> TILE_SHIFT;
  const full = new Uint8Array(columns * rows).fill(1);
  for (let y = 0; y < height; y += 1) {
    const tileRow = (y >> TILE_SHIFT) * columns;
    for (let x = 0, pixel = y * width; x < width; x += 1, pixel += 1) {
      if (!mask[pixel]) full[tileRow + (x >> TILE_SHIFT)] = 0;
    }
  }
  const tiles = { columns, rows, full };
  summaries.set(mask, tiles);
  return tiles;
}

/**
 * Drops the mask's summary: to be called before its buffer is given back to a pool, since the buffer
 * comes back as another frame's mask and a summary is looked up by the buffer, not by its contents.
 */
export function forgetTiles(mask: Uint8Array): void {
  summaries.delete(mask);
}

/**
 * Whether every pixel of the box [left, right] × [top, bottom] (inclusive, frame pixels) that lies
 * inside the frame falls in a full tile: then no point landing in the box sees past the mask.
 */
export function boxIsMasked(
  tiles: FullTiles,
  left: number,
  top: number,
  right: number,
  bottom: number,
): boolean {
  const { columns, rows, full } = tiles;
  const firstColumn = Math.max(0, left >> TILE_SHIFT);
  const lastColumn = Math.min(columns - 1, right >> TILE_SHIFT);
  const firstRow = Math.max(0, top >> TILE_SHIFT);
  const lastRow = Math.min(rows - 1, bottom >> TILE_SHIFT);
  for (let row = firstRow; row <= lastRow; row += 1) {
    for (let column = firstColumn; column <= lastColumn; column += 1) {
      if (!full[row * columns + column]) return false;
    }
  }
  return true;
}
