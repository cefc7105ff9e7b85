import { wholePixels } from "../fill/regions";
import type { SizedRect } from "../geometry";
import type { RgbFrame } from "../ocr/ocr";

/** Rows of a line's look; its columns follow the box's proportions, within these bounds. */
const LOOK_ROWS = 8;
const MIN_LOOK_COLUMNS = 8;
const MAX_LOOK_COLUMNS = 64;
/**
 * Share of a stretch's contrast that may differ for two looks to show the same words. Measured on
 * a 36 px caption, the stretch of one or two changed digits differs by 0.6 to 0.86 (0.9 correlation
 * over the whole line: a global measure dilutes one letter), the same words over a background that
 * panned 40 px by 0.005 (on a box) to 0.05 (outlined letters only).
 */
const MAX_STRETCH_DIFFERENCE = 0.25;

/**
 * A line's appearance, cheap enough for every box: its box shrunk to a few rows of mean brightness
 * (means over blocks, so compression noise averages out), with the mean taken away and scaled to
 * unit length, so that a brighter or darker frame compares equal.
 */
export function lineLook(frame: RgbFrame, box: SizedRect): Float32Array {
  const pixels = wholePixels(box, frame.width, frame.height);
  const { x: x0, y: y0 } = pixels;
  const x1 = x0 + pixels.width;
  const y1 = y0 + pixels.height;
  const width = Math.max(1, pixels.width);
  const height = Math.max(1, pixels.height);
  const columns = Math.min(
    MAX_LOOK_COLUMNS,
    Math.max(MIN_LOOK_COLUMNS, Math.round((LOOK_ROWS * width) / height)),
  );
  const sums = new Float32Array(LOOK_ROWS * columns);
  const counts = new Uint32Array(LOOK_ROWS * columns);
  for (let y = y0; y < y1; y++) {
    const row = Math.min(LOOK_ROWS - 1, Math.floor(((y - y0) * LOOK_ROWS) / height));
    for (let x = x0; x < x1; x++) {
      const cell = row * columns + Math.min(columns - 1, Math.floor(((x - x0) * columns) / width));
      const i = (y * frame.width + x) * 3;
      sums[cell] =
        (sums[cell] as number) +
        0.299 * (frame.data[i] as number) +
        0.587 * (frame.data[i + 1] as number) +
        0.114 * (frame.data[i + 2] as number);
      counts[cell] = (counts[cell] as number) + 1;
    }
  }
  const look = sums.map((sum, cell) => sum / Math.max(1, counts[cell] as number));
  const mean = look.reduce((total, value) => total + value, 0) / look.length;
  let norm = 0;
  for (let k = 0; k < look.length; k++) {
    look[k] = (look[k] as number) - mean;
    norm += (look[k] as number) ** 2;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return look.map((value) => value * scale);
}

/**
 * Whether two looks (of the same box) show the same words: on every stretch about a letter wide (as
 * wide as the look is tall), the squared difference is a small share of the two looks' energy there
 * (or of a mean stretch's, where that is more).
 */
export function sameLook(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  const columns = a.length / LOOK_ROWS;
  const stretch = Math.min(columns, LOOK_ROWS);
  const starts = Array.from({ length: Math.ceil((columns - stretch) / (stretch >> 1)) + 1 }, (_, k) =>
    Math.min(k * (stretch >> 1), columns - stretch),
  );
  for (const from of starts) {
    let difference = 0;
    let energy = 0;
    for (let row = 0; row < LOOK_ROWS; row++) {
      for (let column = from; column < from + stretch; column++) {
        const x = a[row * columns + column] as number;
        const y = b[row * columns + column] as number;
        difference += (x - y) ** 2;
        energy += x * x + y * y;
      }
    }
    // A stretch that is mostly background (a gap between words) is held to the line's mean stretch:
    // the picture moving behind it is not a change of words.
    const meanEnergy = (2 * stretch) / columns; // each look has unit energy
    if (difference > MAX_STRETCH_DIFFERENCE * Math.max(energy, meanEnergy)) return false;
  }
  return true;
}
