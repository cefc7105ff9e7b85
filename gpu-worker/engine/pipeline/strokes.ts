import type { EdgeRect } from "../geometry";
import type { RgbImage } from "./image";

/** Top-hat response (grey levels) a stroke pixel needs at least. */
export const MIN_STROKE_CONTRAST = 12;

/** The radius of the stroke response's window for a line of letters: a little wider than a stroke. */
export function strokeRadius(line: { height: number }): number {
  return Math.max(1, Math.round(line.height * 0.12));
}

/**
 * Letters told from a busy background by their strokes rather than their colour: a see-through
 * handle (white at 60 %) over a brick wall, a door and a van differs from the median around its box
 * in most of its pixels, so a cut on that difference marks the whole box. A stroke is thin: what a
 * morphological opening (or closing, for dark letters) with a window wider than the stroke takes
 * away is the letters, while walls, doors and vans, wider than the window, stay (the top-hat).
 * Returns per pixel of `rect` the top-hat response of the stronger polarity, in grey levels.
 */
export function strokeResponse(image: RgbImage, rect: EdgeRect, radius: number): Uint8Array {
  const margin = radius * 2;
  const outer = {
    x0: Math.max(0, rect.x0 - margin),
    y0: Math.max(0, rect.y0 - margin),
    x1: Math.min(image.width, rect.x1 + margin),
    y1: Math.min(image.height, rect.y1 + margin),
  };
  const width = outer.x1 - outer.x0;
  const height = outer.y1 - outer.y0;
  const grey = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = ((outer.y0 + y) * image.width + outer.x0 + x) * 3;
      grey[y * width + x] = Math.round(
        0.299 * (image.data[i] as number) +
          0.587 * (image.data[i + 1] as number) +
          0.114 * (image.data[i + 2] as number),
      );
    }
  }
  // Opening: min then max; closing: max then min (square windows, each pass separable).
  const filter = (plane: Uint8Array, max: boolean) => rank(plane, width, height, radius, max);
  const opened = filter(filter(grey, false), true);
  const closed = filter(filter(grey, true), false);
  const rectWidth = rect.x1 - rect.x0;
  const bright = new Uint8Array(rectWidth * (rect.y1 - rect.y0));
  const dark = new Uint8Array(bright.length);
  let brightSum = 0;
  let darkSum = 0;
  for (let y = rect.y0; y < rect.y1; y += 1) {
    for (let x = rect.x0; x < rect.x1; x += 1) {
      const at = (y - outer.y0) * width + (x - outer.x0);
      const k = (y - rect.y0) * rectWidth + (x - rect.x0);
      bright[k] = (grey[at] as number) - (opened[at] as number);
      dark[k] = (closed[at] as number) - (grey[at] as number);
      brightSum += bright[k] as number;
      darkSum += dark[k] as number;
    }
  }
  return brightSum >= darkSum ? bright : dark;
}

/** A square minimum (or, with `max`, maximum) filter of radius `radius`: a pass along the rows, then one down the columns. */
function rank(plane: Uint8Array, width: number, height: number, radius: number, max: boolean): Uint8Array {
  const rows = new Uint8Array(plane.length);
  for (let y = 0; y < height; y += 1) rankLine(plane, rows, y * width, 1, width, radius, max);
  const out = new Uint8Array(plane.length);
  for (let x = 0; x < width; x += 1) rankLine(rows, out, x, width, height, radius, max);
  return out;
}

/**
 * The filter along one line of `length` pixels starting at `start`, `step` apart. No callback per
 * pixel: the letters' ends (line-ends.ts) run it on every frame of every short line.
 */
function rankLine(
  from: Uint8Array,
  to: Uint8Array,
  start: number,
  step: number,
  length: number,
  radius: number,
  max: boolean,
): void {
  const sign = max ? -1 : 1;
  for (let i = 0; i < length; i += 1) {
    let value = from[start + i * step] as number;
    const last = Math.min(length - 1, i + radius);
    for (let d = Math.max(0, i - radius); d <= last; d += 1) {
      const other = from[start + d * step] as number;
      // Smaller for a minimum, larger for a maximum.
      if (sign * (other - value) < 0) value = other;
    }
    to[start + i * step] = value;
  }
}
