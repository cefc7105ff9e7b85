import { wholePixels } from "../fill/regions";
import type { SizedRect } from "../geometry";
import type { RgbFrame, TextBox, TextLine } from "../ocr/ocr";
import { luma } from "./image";
import { type Reach, widened } from "./read-ends";

/**
 * A line found again after its words moved along its own row: a ticker's words scroll across its
 * band, so its look (a thumbnail of its box) changes between samples, and it was read again on every
 * frame read (real-street: 51 readings a clip, 13 with this; a ticker's take 50 ms each, on the one
 * core the reading pass has). Linked by its appearance instead, as issue 24 asks: the brightness of the earlier line's
 * pixel columns, slid along the row, matches this frame's.
 */

/** The summed luma of each whole pixel column of a box, from column `x` of the frame on (compared by correlation, which no scale changes). */
export interface RowProfile {
  x: number;
  values: Float32Array;
}

/** A line with its box widened by `reach` to its reading, and its profile there (analyse.ts's ReadLine). */
interface ProfiledLine extends TextLine {
  reach: Reach;
  profile: RowProfile;
}

/**
 * Widest a box may be, as a share of the line's when it was read, to keep that reading: a line
 * sliding in shows new words, and is read again each time it is this much wider (a sliding-in "NEW
 * DROP TODAY" kept the "PTODAY" read on its first frames at any growth).
 */
const MAX_GROWTH = 1.25;
/** Largest difference of the centres' heights and of the heights, as a share of the line's height. */
const SAME_ROW = 0.2;
/** Largest slide looked for, as a share of the frame's width: a ticker crosses the frame in seconds, and read frames may be a second apart. */
const MAX_SLIDE = 0.5;
/** Least slide (pixels) that counts as moved: a line that stayed is the other test's (analyse.ts). */
const MIN_SLIDE = 2;
/** Least correlation of the two profiles where they overlap, slid. */
const MIN_CORRELATION = 0.9;
/** Fewest columns the slid profiles must share, as line heights (a few letters at least). */
const MIN_OVERLAP_HEIGHTS = 4;

export function rowProfile(frame: RgbFrame, box: SizedRect): RowProfile {
  const pixels = wholePixels(box, frame.width, frame.height);
  const values = new Float32Array(pixels.width);
  for (let y = pixels.y; y < pixels.y + pixels.height; y++) {
    const row = (y * frame.width + pixels.x) * 3;
    for (let column = 0; column < pixels.width; column++)
      values[column] = (values[column] as number) + luma(frame.data, row + column * 3);
  }
  return { x: pixels.x, values };
}

/** The earlier read line (with a text) whose words the detector's `found` shows on `frame`, slid along its row; undefined where none. */
export function movedAlongRow<Line extends ProfiledLine>(
  earlier: Line[],
  frame: RgbFrame,
  found: TextBox,
): Line | undefined {
  return earlier.find((line) => {
    if (line.text === "") return false;
    // Both boxes as wide as the line's reading made it.
    const box = widened(found, line.reach).box;
    // A line that shows much more of itself than when it was read (sliding in over the frame's edge)
    // has words that reading did not see: it is read again.
    if (!sameRow(line.box, box) || box.width > MAX_GROWTH * line.box.width) return false;
    const now = rowProfile(frame, box);
    const maxSlide = Math.round(MAX_SLIDE * frame.width);
    const minOverlap = MIN_OVERLAP_HEIGHTS * line.box.height;
    for (let slide = -maxSlide; slide <= maxSlide; slide++) {
      if (Math.abs(slide) < MIN_SLIDE) continue;
      if (slidCorrelation(line.profile, now, slide, minOverlap) >= MIN_CORRELATION) return true;
    }
    return false;
  });
}

function sameRow(a: SizedRect, b: SizedRect): boolean {
  const centres = Math.abs(a.y + a.height / 2 - (b.y + b.height / 2));
  return centres <= SAME_ROW * a.height && Math.abs(a.height - b.height) <= SAME_ROW * a.height;
}

/** Correlation of `before` at column x with `now` at x + slide, over the columns both have; 0 where fewer than `minOverlap`. */
function slidCorrelation(before: RowProfile, now: RowProfile, slide: number, minOverlap: number): number {
  const from = Math.max(before.x, now.x - slide);
  const to = Math.min(before.x + before.values.length, now.x + now.values.length - slide);
  const count = to - from;
  if (count < minOverlap) return 0;
  let sumA = 0;
  let sumB = 0;
  let sumAA = 0;
  let sumBB = 0;
  let sumAB = 0;
  for (let x = from; x < to; x++) {
    const a = before.values[x - before.x] as number;
    const b = now.values[x + slide - now.x] as number;
    sumA += a;
    sumB += b;
    sumAA += a * a;
    sumBB += b * b;
    sumAB += a * b;
  }
  const varianceA = sumAA - (sumA * sumA) / count;
  const varianceB = sumBB - (sumB * sumB) / count;
  const covariance = sumAB - (sumA * sumB) / count;
  return varianceA > 0 && varianceB > 0 ? covariance / Math.sqrt(varianceA * varianceB) : 0;
}
