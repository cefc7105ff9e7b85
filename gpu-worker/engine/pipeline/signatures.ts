/**
 * A frame's coarse signature: the mean brightness of each cell of a 32x18 grid. Cheap to compute on
 * every frame; comparing two frames' signatures shows where the picture changed (a caption
 * appearing, a scene cut) without running a model.
 */
export const GRID_COLUMNS = 32;
export const GRID_ROWS = 18;

export function frameSignature(data: Uint8Array, width: number, height: number): Uint8Array {
  const sums = new Float64Array(GRID_COLUMNS * GRID_ROWS);
  const counts = new Uint32Array(GRID_COLUMNS * GRID_ROWS);
  // Every second row and column is plenty for a mean.
  for (let y = 0; y < height; y += 2) {
    const row = Math.min(GRID_ROWS - 1, Math.floor((y * GRID_ROWS) / height));
    for (let x = 0; x < width; x += 2) {
      const cell = row * GRID_COLUMNS + Math.min(GRID_COLUMNS - 1, Math.floor((x * GRID_COLUMNS) / width));
      const i = (y * width + x) * 3;
      sums[cell] =
        (sums[cell] as number) +
        0.299 * (data[i] as number) +
        0.587 * (data[i + 1] as number) +
        0.114 * (data[i + 2] as number);
      counts[cell] = (counts[cell] as number) + 1;
    }
  }
  return Uint8Array.from(sums, (sum, cell) => Math.round(sum / Math.max(1, counts[cell] as number)));
}

export interface CellRange {
  c0: number;
  r0: number;
  c1: number;
  r1: number;
}

/** Grid cells covering a box given in the coordinates of a frame of this size. */
export function cellsOf(
  box: { x: number; y: number; width: number; height: number },
  width: number,
  height: number,
): CellRange {
  const column = (x: number) =>
    Math.min(GRID_COLUMNS - 1, Math.max(0, Math.floor((x * GRID_COLUMNS) / width)));
  const row = (y: number) => Math.min(GRID_ROWS - 1, Math.max(0, Math.floor((y * GRID_ROWS) / height)));
  return { c0: column(box.x), r0: row(box.y), c1: column(box.x + box.width), r1: row(box.y + box.height) };
}

/** Mean absolute change of the cells between two signatures. */
export function cellChange(a: Uint8Array, b: Uint8Array, cells?: CellRange): number {
  const range = cells ?? { c0: 0, r0: 0, c1: GRID_COLUMNS - 1, r1: GRID_ROWS - 1 };
  let total = 0;
  let count = 0;
  for (let r = range.r0; r <= range.r1; r++) {
    for (let c = range.c0; c <= range.c1; c++) {
      total += Math.abs((a[r * GRID_COLUMNS + c] as number) - (b[r * GRID_COLUMNS + c] as number));
      count++;
    }
  }
  return count ? total / count : 0;
}

/**
 * Share of cells that changed suddenly between `previous` and `current`: by more than `threshold`, and
 * far more than they changed the frame before (`older` to `previous`). Something appeared or left (a
 * caption, a word, a cut); the steady change of a camera move does not count.
 */
export function suddenChangeShare(
  older: Uint8Array | undefined,
  previous: Uint8Array,
  current: Uint8Array,
  threshold = 10,
): number {
  let sudden = 0;
  for (let i = 0; i < current.length; i++) {
    const now = Math.abs((current[i] as number) - (previous[i] as number));
    const before = older ? Math.abs((previous[i] as number) - (older[i] as number)) : 0;
    if (now > threshold && now > 2 * before + threshold / 2) sudden++;
  }
  return sudden / current.length;
}
