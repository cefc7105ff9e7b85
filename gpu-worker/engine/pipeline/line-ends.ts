import type { EdgeRect, SizedRect } from "../geometry";
import { luma, type RgbImage } from "./image";
import { strokeResponse } from "./strokes";

/**
 * The detector's box of a line often stops short of its first or last characters where they are
 * faint: real-street's see-through "@citynews" is read as "itynews" on every frame, its "@c" over a
 * red door left whole. Past each end of the box, the line is taken to go on while columns carry
 * strokes (strokes.ts) as strong as the line's own within the line's rows, few above or below them
 * (letters keep to their band, while poles, window frames and edges in the picture run across it),
 * and of the letters' brightness.
 */

/** How far past each end the line is followed, at most, in line heights. */
const REACH = 2.5;
/** The widest run of columns without a stroke that a line may have between letters, in line heights. */
const MAX_GAP = 0.6;
/** Rows looked at above and below the line's band, in line heights. */
const BESIDE = 0.5;
/** Top-hat response (grey levels) a stroke pixel needs at least, as for the letters themselves. */
const MIN_STROKE_CONTRAST = 12;
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
/** Shorter extensions (line heights) are left to the growth past the box's ends (masks.ts). */
const MIN_EXTENSION = 0.25;

/**
 * The stretches past `box`'s ends that carry letters it cut off (none, one or two, each as tall as
 * the box). They are marked as lines of their own (masks.ts): letters over a brighter or busier
 * picture than the rest have strokes of another strength, and one cut for the whole line would
 * leave the weaker part unmarked.
 */
export function cutOffEnds(image: RgbImage, box: SizedRect): { ends: SizedRect[]; cut: number } {
  const height = Math.round(box.height);
  const none = { ends: [], cut: Number.POSITIVE_INFINITY };
  if (height < 4 || height > MAX_LINE_HEIGHT) return none;
  const x0 = Math.max(0, Math.floor(box.x));
  const x1 = Math.min(image.width, Math.ceil(box.x + box.width));
  const y0 = Math.max(0, Math.floor(box.y));
  const y1 = Math.min(image.height, Math.ceil(box.y + box.height));
  const beside = Math.round(height * BESIDE);
  // A cut-off end is shorter than the part that was read.
  const reach = Math.min(Math.round(height * REACH), Math.round(box.width));
  const rect = {
    x0: Math.max(0, x0 - reach),
    x1: Math.min(image.width, x1 + reach),
    y0: Math.max(0, y0 - beside),
    y1: Math.min(image.height, y1 + beside),
  };
  if (rect.x0 === x0 && rect.x1 === x1) return none;
  const values = strokeResponse(image, rect, Math.max(1, Math.round(height * 0.12)));
  const cut = lineCut(values, rect, x0, x1, y0, y1);
  const columns = columnStrokes(values, rect, y0, y1, cut);
  const strokes = { image, values, rect, y0, y1, cut };
  const lineBrightness = strokeBrightness(strokes, x0, x1);
  const maxGap = Math.round(height * MAX_GAP);
  const ends: SizedRect[] = [];
  // A stretch is kept where it reaches far enough and its strokes are as bright as the line's.
  const keep = (from: number, to: number) => {
    const bright = strokeBrightness(strokes, from, to);
    if (to - from >= height * MIN_EXTENSION && Math.abs(bright - lineBrightness) <= MAX_BRIGHTNESS_DIFFERENCE)
      ends.push({ x: from, y: box.y, width: to - from, height: box.height });
  };
  const left = lineEnd(columns, x0 - rect.x0 - 1, -1, maxGap);
  if (left !== undefined) keep(rect.x0 + left, x0);
  const right = lineEnd(columns, x1 - rect.x0, 1, maxGap);
  if (right !== undefined) keep(x1, rect.x0 + right + 1);
  return { ends, cut };
}

interface Strokes {
  image: RgbImage;
  values: Uint8Array;
  rect: EdgeRect;
  y0: number;
  y1: number;
  cut: number;
}

/** Mean luma of the stroke pixels in the band's rows, columns [from, to) of the frame. */
function strokeBrightness({ image, values, rect, y0, y1, cut }: Strokes, from: number, to: number): number {
  const width = rect.x1 - rect.x0;
  let sum = 0;
  let count = 0;
  for (let y = y0; y < y1; y += 1) {
    for (let x = from; x < to; x += 1) {
      if ((values[(y - rect.y0) * width + (x - rect.x0)] as number) < cut) continue;
      sum += luma(image.data, (y * image.width + x) * 3);
      count += 1;
    }
  }
  return count > 0 ? sum / count : Number.NaN;
}

/** The stroke strength that counts as a letter's: half the median of the line's own stroke pixels. */
function lineCut(values: Uint8Array, rect: EdgeRect, x0: number, x1: number, y0: number, y1: number): number {
  const width = rect.x1 - rect.x0;
  const strong: number[] = [];
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const value = values[(y - rect.y0) * width + (x - rect.x0)] as number;
      if (value >= MIN_STROKE_CONTRAST) strong.push(value);
    }
  }
  if (strong.length === 0) return Number.POSITIVE_INFINITY;
  strong.sort((a, b) => a - b);
  return Math.max(MIN_STROKE_CONTRAST, (strong[strong.length >> 1] as number) * STROKE_SHARE);
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
 * (as many strokes beside the band as in it).
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
