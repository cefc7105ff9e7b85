import { sameRect, union, wholePixels } from "../fill/regions";
import { overlaps, type SizedRect } from "../geometry";
import { GRID_COLUMNS, GRID_ROWS } from "./signatures";

/**
 * A cell whose mean brightness moved more than this (grey levels) since it was last searched for
 * text is searched again: a caption of 15 pixels arriving in a cell moves its mean by more, the
 * noise of a re-encoded still picture by 1 or 2.
 */
const CELL_CHANGE = 3;
/** Past this share of the frame changed, searching crops costs about what the whole frame does. */
const MAX_CROPPED_SHARE = 0.5;

/** Rectangles merged until none overlaps another. */
function merged(rects: SizedRect[]): SizedRect[] {
  const out = [...rects];
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) {
      if (overlaps(out[i] as SizedRect, out[j] as SizedRect)) {
        out[i] = union(out[i] as SizedRect, out[j] as SizedRect);
        out.splice(j, 1);
        j = i; // the grown rectangle may now overlap one already passed
      }
    }
  }
  return out;
}

/** The pixel rectangle of cells c0..c1 x r0..r1 on a frame of this size. */
function cellRect(c0: number, r0: number, c1: number, r1: number, width: number, height: number) {
  const x = Math.floor((c0 * width) / GRID_COLUMNS);
  const y = Math.floor((r0 * height) / GRID_ROWS);
  return {
    x,
    y,
    width: Math.ceil(((c1 + 1) * width) / GRID_COLUMNS) - x,
    height: Math.ceil(((r1 + 1) * height) / GRID_ROWS) - y,
  };
}

/**
 * Where a frame must be searched for text again, given each cell's signature when it was last
 * searched (`searched`) and the boxes found then (`boxes`): rectangles around the cells that changed
 * since, a cell wider on each side, grown to hold whole any box they touch (a line is found whole or
 * not at all). Null when so much changed that the whole frame is cheaper; empty when nothing did.
 */
export function changedRegions(
  searched: Uint8Array,
  current: Uint8Array,
  boxes: SizedRect[],
  width: number,
  height: number,
): SizedRect[] | null {
  const cells: SizedRect[] = [];
  for (let r = 0; r < GRID_ROWS; r++) {
    for (let c = 0; c < GRID_COLUMNS; c++) {
      const at = r * GRID_COLUMNS + c;
      if (Math.abs((searched[at] as number) - (current[at] as number)) <= CELL_CHANGE) continue;
      cells.push(
        cellRect(
          Math.max(0, c - 1),
          Math.max(0, r - 1),
          Math.min(GRID_COLUMNS - 1, c + 1),
          Math.min(GRID_ROWS - 1, r + 1),
          width,
          height,
        ),
      );
    }
  }
  if (cells.length > MAX_CROPPED_SHARE * GRID_COLUMNS * GRID_ROWS) return null;
  let regions = merged(cells);
  for (;;) {
    const grown = merged(
      regions.map((region) => boxes.filter((box) => overlaps(box, region)).reduce(union, region)),
    );
    if (grown.length === regions.length && grown.every((region, k) => sameRect(region, regions[k]))) break;
    regions = grown;
  }
  const pixels = regions.map((region) => wholePixels(region, width, height));
  const area = pixels.reduce((sum, { width: w, height: h }) => sum + w * h, 0);
  return area > MAX_CROPPED_SHARE * width * height ? null : pixels;
}

/** The signature as searched after a search of `regions` (null: the whole frame) on a frame with `current`. */
export function searchedAfter(
  searched: Uint8Array,
  current: Uint8Array,
  regions: SizedRect[] | null,
  width: number,
  height: number,
): Uint8Array {
  if (regions === null) return current;
  const next = Uint8Array.from(searched);
  for (let r = 0; r < GRID_ROWS; r++) {
    for (let c = 0; c < GRID_COLUMNS; c++) {
      const cell = cellRect(c, r, c, r, width, height);
      if (regions.some((region) => contains(region, cell))) {
        next[r * GRID_COLUMNS + c] = current[r * GRID_COLUMNS + c] as number;
      }
    }
  }
  return next;
}

function contains(outer: SizedRect, inner: SizedRect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}
