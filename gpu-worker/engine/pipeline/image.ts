/** An RGB24 frame or crop in memory. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A rectangle of whole pixels: x0, y0 inclusive, x1, y1 exclusive. */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function contains(rect: Rect, x: number, y: number): boolean {
  return x >= rect.x0 && x < rect.x1 && y >= rect.y0 && y < rect.y1;
}

/** The rectangle shrunk by `by` pixels on every side (grown for a negative `by`). */
export function inset(rect: Rect, by: number): Rect {
  return { x0: rect.x0 + by, y0: rect.y0 + by, x1: rect.x1 - by, y1: rect.y1 - by };
}

/** The smallest rectangle holding both. */
export function union(a: Rect, b: Rect): Rect {
  return {
    x0: Math.min(a.x0, b.x0),
    y0: Math.min(a.y0, b.y0),
    x1: Math.max(a.x1, b.x1),
    y1: Math.max(a.y1, b.y1),
  };
}
