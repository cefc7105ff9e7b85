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
