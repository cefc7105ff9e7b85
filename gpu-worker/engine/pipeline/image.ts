import type { EdgeRect } from "../geometry";
/** An RGB24 frame or crop in memory. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A pixel's luma (BT.601 weights, 8-bit fixed point) from the RGB24 triple at data[i..i+2]. */
export const luma = (data: Uint8Array, i: number) =>
  (77 * (data[i] as number) + 150 * (data[i + 1] as number) + 29 * (data[i + 2] as number)) >> 8;

export function contains(rect: EdgeRect, x: number, y: number): boolean {
  return x >= rect.x0 && x < rect.x1 && y >= rect.y0 && y < rect.y1;
}

/** The rectangle shrunk by `by` pixels on every side (grown for a negative `by`). */
export function inset(rect: EdgeRect, by: number): EdgeRect {
  return { x0: rect.x0 + by, y0: rect.y0 + by, x1: rect.x1 - by, y1: rect.y1 - by };
}

/** The smallest rectangle holding both. */
export function union(a: EdgeRect, b: EdgeRect): EdgeRect {
  return {
    x0: Math.min(a.x0, b.x0),
    y0: Math.min(a.y0, b.y0),
    x1: Math.max(a.x1, b.x1),
    y1: Math.max(a.y1, b.y1),
  };
}

/** Per-channel histograms of 8-bit colours: medians and ranges without sorting. */
export class ColourHistogram {
  private readonly channels = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  count = 0;

  add(r: number, g: number, b: number): void {
    const [red, green, blue] = this.channels as [Uint32Array, Uint32Array, Uint32Array];
    red[r] = (red[r] as number) + 1;
    green[g] = (green[g] as number) + 1;
    blue[b] = (blue[b] as number) + 1;
    this.count++;
  }

  /** Per channel, the smallest value with at least `share` of the colours at or below it. */
  percentile(share: number): [number, number, number] {
    return this.channels.map((histogram) => {
      let seen = 0;
      for (let value = 0; value < 256; value++) {
        seen += histogram[value] as number;
        if (seen >= share * this.count) return value;
      }
      return 255;
    }) as [number, number, number];
  }
}
