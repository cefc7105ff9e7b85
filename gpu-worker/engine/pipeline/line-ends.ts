import type { EdgeRect, SizedRect } from "../geometry";
import { luma, type RgbImage } from "./image";
import { MIN_STROKE_CONTRAST, strokeRadius, strokeResponse } from "./strokes";

/**
 * The detector's box of a line often stops short of its first or last characters where they are
 * faint: real-street's see-through "@citynews" is read as "itynews" on every frame, its "@c" over a
 * red door left whole. Past each end of the box, the line is taken to go on while columns carry
 * strokes (strokes.ts) half as strong as its letters' there within the line's rows, few above or
 * below them (letters keep to their band, while poles, window frames and edges in the picture run
 * across it), about as many a column as its letters have, and of their brightness. Only the strokes
 * within the range of the letters' brightness are the end's letters: at their strength the stroke
 * response takes in a white sign behind "@c" too, which was marked whole and smudged by the fill.
 */

/** How far past each end the line is followed, at most, in line heights. */
const REACH = 2.5;
/** The widest run of columns without a stroke that a line may have between letters, in line heights. */
const MAX_GAP = 0.6;
/** Rows looked at above and below the line's band, in line heights. */
const BESIDE = 0.5;
/** Share of the line's own stroke pixels a stroke must reach to count (the weakest of its letters). */
const STROKE_SHARE = 0.5;
/** An extension with more stroke pixels above and below the band than this share of those in it is picture. */
const MAX_OUTSIDE_SHARE = 0.5;
/** Largest difference (luma levels) between the mean brightness of the extension's strokes and the line's. */
const MAX_BRIGHTNESS_DIFFERENCE = 64;
/**
 * Lines taller than this (pixels) are followed no further: their detector boxes hold whole words (the
 * faint ends this is for are handles' and labels'), and a box that took in a chin or collar as well
 * as a short word would be followed along that picture.
 */
const MAX_LINE_HEIGHT = 40;
/**
 * Share of the letters' stroke pixels a column that an extension must carry on average: scattered
 * bright points in the picture (lit windows of towers) bridge the gaps between them but are sparse.
 */
const MIN_DENSITY_SHARE = 0.75;
/** Shorter extensions (line heights) are left to the growth past the box's ends (masks.ts). */
const MIN_EXTENSION = 0.25;

/**
 * Luma levels past the range of the line's own strokes that a stroke of a cut-off end may lie: the
 * picture behind a see-through line shifts its letters' brightness a little, a white sign or a pole
 * behind them (which the stroke response takes in as readily) far more.
 */
const BRIGHTNESS_MARGIN = 32;
/** Share of the line's stroke pixels, at each end of their luma, left out of their range. */
const BRIGHTNESS_TAIL = 0.05;

/** Luma levels, both included. */
export interface LumaRange {
  low: number;
  high: number;
}

/**
 * A stretch of letters past a box's end, with the stroke strength of the line's letters at that end
 * and the brightness of their strokes (widened by BRIGHTNESS_MARGIN).
 */
export interface CutOffEnd {
  rect: SizedRect;
  cut: number;
  brightness: LumaRange;
}

/**
 * The stretches past `box`'s ends that carry letters it cut off (none, one or two, each as tall as
 * the box). They are marked as lines of their own (masks.ts), at the stroke strength of the
 * line's letters at that end: letters over a brighter or busier picture than the rest have strokes
 * of another strength, and one cut for the whole line would leave the weaker part unmarked. Each
 * end is looked at in a strip of its own (a line height of the box and the reach past it): the
 * stroke response costs per pixel, and most lines have nothing past their ends. Undefined for a
 * line too short or too tall to be followed.
 */
export function cutOffEnds(image: RgbImage, box: SizedRect): CutOffEnd[] | undefined {
  const height = Math.round(box.height);
  if (height < 4 || height > MAX_LINE_HEIGHT) return undefined;
  const x0 = Math.max(0, Math.floor(box.x));
  const x1 = Math.min(image.width, Math.ceil(box.x + box.width));
  const band = {
    y0: Math.max(0, Math.floor(box.y)),
    y1: Math.min(image.height, Math.ceil(box.y + box.height)),
  };
  // A cut-off end is shorter than the part that was read.
  const reach = Math.min(Math.round(height * REACH), x1 - x0);
  const ends: CutOffEnd[] = [];
  for (const step of [-1, 1]) {
    const edge = step < 0 ? x0 : x1;
    const outer = Math.max(0, Math.min(image.width, edge + step * reach));
    const inner = Math.max(x0, Math.min(x1, edge - step * height));
    if (outer === edge) continue;
    const letters = { x0: Math.min(inner, edge), x1: Math.max(inner, edge) };
    const end = endPast(image, band, letters, { x0: Math.min(outer, edge), x1: Math.max(outer, edge) }, step);
    if (end) {
      const rect = { x: end.x0, y: box.y, width: end.x1 - end.x0, height: box.height };
      ends.push({ rect, cut: end.cut, brightness: end.brightness });
    }
  }
  return ends;
}

/**
 * The columns of `past` (beside the line's `letters`, on the side `step` points to) that continue
 * the line, with the letters' stroke strength; undefined if none do.
 */
function endPast(
  image: RgbImage,
  band: { y0: number; y1: number },
  letters: { x0: number; x1: number },
  past: { x0: number; x1: number },
  step: number,
): (EdgeRect & { cut: number; brightness: LumaRange }) | undefined {
  const height = band.y1 - band.y0;
  const beside = Math.round(height * BESIDE);
  const rect = {
    x0: Math.min(letters.x0, past.x0),
    x1: Math.max(letters.x1, past.x1),
    y0: Math.max(0, band.y0 - beside),
    y1: Math.min(image.height, band.y1 + beside),
  };
  const values = strokeResponse(image, rect, strokeRadius({ height }));
  const cut = lineCut(values, rect, letters.x0, letters.x1, band.y0, band.y1);
  const columns = columnStrokes(values, rect, band.y0, band.y1, cut);
  const strokes = { image, values, rect, y0: band.y0, y1: band.y1, cut };
  const start = (step < 0 ? past.x1 - 1 : past.x0) - rect.x0;
  const end = lineEnd(columns, start, step, Math.round(height * MAX_GAP));
  if (end === undefined) return undefined;
  const from = step < 0 ? rect.x0 + end : past.x0;
  const to = step < 0 ? past.x1 : rect.x0 + end + 1;
  // Kept where it reaches far enough, and its strokes are as dense and as bright as the letters'.
  const lettersLumas = strokeLumas(strokes, letters.x0, letters.x1);
  const brighter = meanLuma(strokeLumas(strokes, from, to)) - meanLuma(lettersLumas);
  const density = strokeDensity(columns, from - rect.x0, to - rect.x0);
  if (
    to - from < height * MIN_EXTENSION ||
    density < MIN_DENSITY_SHARE * strokeDensity(columns, letters.x0 - rect.x0, letters.x1 - rect.x0) ||
    !(Math.abs(brighter) <= MAX_BRIGHTNESS_DIFFERENCE)
  )
    return undefined;
  const { low, high } = lumaRange(lettersLumas);
  const brightness = { low: low - BRIGHTNESS_MARGIN, high: high + BRIGHTNESS_MARGIN };
  return { x0: from, x1: to, y0: band.y0, y1: band.y1, cut, brightness };
}

/** Stroke pixels in the band per column, over columns [from, to) of the strip. */
function strokeDensity(columns: { inside: Uint16Array }, from: number, to: number): number {
  let sum = 0;
  for (let x = from; x < to; x += 1) sum += columns.inside[x] as number;
  return sum / Math.max(1, to - from);
}

interface Strokes {
  image: RgbImage;
  values: Uint8Array;
  rect: EdgeRect;
  y0: number;
  y1: number;
  cut: number;
}

interface LumaHistogram {
  histogram: Uint32Array;
  count: number;
}

/** Histogram of the luma of the stroke pixels in the band's rows, columns [from, to) of the frame. */
function strokeLumas({ image, values, rect, y0, y1, cut }: Strokes, from: number, to: number): LumaHistogram {
  const width = rect.x1 - rect.x0;
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let y = y0; y < y1; y += 1) {
    for (let x = from; x < to; x += 1) {
      if ((values[(y - rect.y0) * width + (x - rect.x0)] as number) < cut) continue;
      const value = luma(image.data, (y * image.width + x) * 3);
      histogram[value] = (histogram[value] as number) + 1;
      count += 1;
    }
  }
  return { histogram, count };
}

/** The mean of a luma histogram, NaN when it is empty. */
function meanLuma({ histogram, count }: LumaHistogram): number {
  let sum = 0;
  for (let value = 0; value < 256; value += 1) sum += value * (histogram[value] as number);
  return count > 0 ? sum / count : Number.NaN;
}

/** The range of a luma histogram, less BRIGHTNESS_TAIL of its count at each end. */
function lumaRange({ histogram, count }: LumaHistogram): LumaRange {
  const tail = count * BRIGHTNESS_TAIL;
  let low = 0;
  for (let seen = histogram[0] as number; seen <= tail && low < 255; ) seen += histogram[++low] as number;
  let high = 255;
  for (let seen = histogram[255] as number; seen <= tail && high > 0; ) seen += histogram[--high] as number;
  return { low, high };
}

/** The stroke strength that counts as a letter's: half the median of the letters' own stroke pixels. */
function lineCut(values: Uint8Array, rect: EdgeRect, x0: number, x1: number, y0: number, y1: number): number {
  const width = rect.x1 - rect.x0;
  // The response is a byte: its median is read off a histogram, not a sorted copy.
  const histogram = new Uint32Array(256);
  let strong = 0;
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const value = values[(y - rect.y0) * width + (x - rect.x0)] as number;
      if (value < MIN_STROKE_CONTRAST) continue;
      histogram[value] = (histogram[value] as number) + 1;
      strong += 1;
    }
  }
  if (strong === 0) return Number.POSITIVE_INFINITY;
  // The upper median: the value at index strong >> 1 of the strong values in order.
  let seen = 0;
  let median = MIN_STROKE_CONTRAST;
  while (seen + (histogram[median] as number) <= strong >> 1) seen += histogram[median++] as number;
  return Math.max(MIN_STROKE_CONTRAST, median * STROKE_SHARE);
}

/** Per column of `rect`: stroke pixels within the band's rows [y0, y1) and beside it. */
function columnStrokes(values: Uint8Array, rect: EdgeRect, y0: number, y1: number, cut: number) {
  const width = rect.x1 - rect.x0;
  const inside = new Uint16Array(width);
  const outside = new Uint16Array(width);
  for (let y = rect.y0; y < rect.y1; y += 1) {
    const counts = y >= y0 && y < y1 ? inside : outside;
    for (let x = 0; x < width; x += 1) {
      if ((values[(y - rect.y0) * width + x] as number) >= cut) counts[x] = (counts[x] as number) + 1;
    }
  }
  return { inside, outside };
}

/**
 * The farthest column, walking from `start` by `step`, of strokes that continue the line without a
 * gap wider than `maxGap`; undefined if there is none, or if what was walked over is the picture's
 * (more than half as many strokes beside the band as in it).
 */
function lineEnd(
  columns: { inside: Uint16Array; outside: Uint16Array },
  start: number,
  step: number,
  maxGap: number,
): number | undefined {
  const { inside, outside } = columns;
  let end: number | undefined;
  let gap = 0;
  let inBand = 0;
  let besideBand = 0;
  // Strokes beside the band up to the end found: the gap walked past it does not count.
  let besideToEnd = 0;
  for (let x = start; x >= 0 && x < inside.length && gap <= maxGap; x += step) {
    inBand += inside[x] as number;
    besideBand += outside[x] as number;
    if ((inside[x] as number) > 0) {
      end = x;
      besideToEnd = besideBand;
      gap = 0;
    } else gap += 1;
  }
  if (end === undefined) return undefined;
  return besideToEnd <= inBand * MAX_OUTSIDE_SHARE ? end : undefined;
}
