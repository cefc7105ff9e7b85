import type { SizedRect } from "../geometry";
import type { Homography, RgbFrame } from "./types";

/** Taps with less weight than this are ignored, so integer shifts never read the pixel beside. */
const NEGLIGIBLE = 1e-3;

/** Where pixel (x, y) lands under the homography, written to `into` (no allocation per pixel). */
export function project(h: Homography, x: number, y: number, into: { x: number; y: number }): void {
  const w = h[6] * x + h[7] * y + h[8];
  into.x = (h[0] * x + h[1] * y + h[2]) / w;
  into.y = (h[3] * x + h[4] * y + h[5]) / w;
}

/** The mean of an RGB pixel's three channels (`pixel` counts pixels, not bytes). */
export function meanGrey(data: Uint8Array, pixel: number): number {
  return (
    ((data[pixel * 3] as number) + (data[pixel * 3 + 1] as number) + (data[pixel * 3 + 2] as number)) / 3
  );
}

/** Catmull-Rom weights of the four taps around a point `t` (0..1) past the second one. */
function catmullRom(t: number, into: Float64Array): void {
  const t2 = t * t;
  const t3 = t2 * t;
  into[0] = (-t3 + 2 * t2 - t) / 2;
  into[1] = (3 * t3 - 5 * t2 + 2) / 2;
  into[2] = (-3 * t3 + 4 * t2 + t) / 2;
  into[3] = (t3 - t2) / 2;
}

/** The four tap positions around `start` (the second tap) along an axis of `size`, the edge repeated. */
function taps(start: number, size: number, into: Int32Array): void {
  into[0] = start > 0 ? start - 1 : 0;
  into[1] = start;
  into[2] = start + 1 < size ? start + 1 : size - 1;
  into[3] = start + 2 < size ? start + 2 : size - 1;
}

const columnWeights = new Float64Array(4);
const rowWeights = new Float64Array(4);
const columns = new Int32Array(4);
const rows = new Int32Array(4);

/** Whether (x, y) lies inside the frame and the pixel nearest to it is not `blocked`. */
export function nearestIsClear(
  frame: RgbFrame,
  blocked: Uint8Array | undefined,
  x: number,
  y: number,
): boolean {
  const { width, height } = frame;
  if (!(x >= 0 && y >= 0 && x <= width - 1 && y <= height - 1)) return false;
  return !blocked?.[Math.round(y) * width + Math.round(x)];
}

/**
 * Bicubic (Catmull-Rom) sample of `frame` at (x, y) into out[at..at+2]: sharper than bilinear, which
 * matters most where a fill is carried over and resampled frame after frame. Taps past the frame's
 * edge repeat the edge. Returns false when the point lies outside the frame or a tap it reads is
 * `blocked`. The fill's innermost call (tens of millions a clip): no allocation, no closure.
 */
export function sampleBicubic(
  frame: RgbFrame,
  blocked: Uint8Array | undefined,
  x: number,
  y: number,
  out: Float32Array,
  at: number,
): boolean {
  // Most points that are blocked are deep inside a mask: one look saves computing the weights.
  if (!nearestIsClear(frame, blocked, x, y)) return false;
  const { width, height, data } = frame;
  const left = Math.floor(x);
  const top = Math.floor(y);
  catmullRom(x - left, columnWeights);
  catmullRom(y - top, rowWeights);
  taps(left, width, columns);
  taps(top, height, rows);
  let r = 0;
  let g = 0;
  let b = 0;
  for (let j = 0; j < 4; j += 1) {
    const rowWeight = rowWeights[j] as number;
    if (rowWeight < NEGLIGIBLE && rowWeight > -NEGLIGIBLE) continue;
    const row = (rows[j] as number) * width;
    for (let i = 0; i < 4; i += 1) {
      const weight = rowWeight * (columnWeights[i] as number);
      if (weight < NEGLIGIBLE && weight > -NEGLIGIBLE) continue;
      const tap = row + (columns[i] as number);
      if (blocked !== undefined && blocked[tap] !== 0) return false;
      const byte = tap * 3;
      r += weight * (data[byte] as number);
      g += weight * (data[byte + 1] as number);
      b += weight * (data[byte + 2] as number);
    }
  }
  out[at] = r;
  out[at + 1] = g;
  out[at + 2] = b;
  return true;
}

/**
 * Bilinear sample of `frame` at `point` into out[0..2]: a quarter of the bicubic's taps, for
 * measures that average many pixels rather than pictures that are shown. False when the point's
 * four taps are not all inside the frame and clear of `blocked`.
 */
export function sampleBilinear(
  frame: RgbFrame,
  blocked: Uint8Array | undefined,
  { x, y }: { x: number; y: number },
  out: Float32Array,
): boolean {
  const { width, height, data } = frame;
  if (!(x >= 0 && y >= 0 && x < width - 1 && y < height - 1)) return false;
  const left = Math.floor(x);
  const top = Math.floor(y);
  const tap = top * width + left;
  if (blocked && (blocked[tap] || blocked[tap + 1] || blocked[tap + width] || blocked[tap + width + 1])) {
    return false;
  }
  const tx = x - left;
  const ty = y - top;
  const w00 = (1 - tx) * (1 - ty);
  const w10 = tx * (1 - ty);
  const w01 = (1 - tx) * ty;
  const w11 = tx * ty;
  const a = tap * 3;
  const b = a + 3;
  const c = a + width * 3;
  const d = c + 3;
  for (let channel = 0; channel < 3; channel += 1) {
    out[channel] =
      w00 * (data[a + channel] as number) +
      w10 * (data[b + channel] as number) +
      w01 * (data[c + channel] as number) +
      w11 * (data[d + channel] as number);
  }
  return true;
}

/** Below this displacement, in pixels anywhere in a crop, the background counts as static. */
const STATIC_MOTION = 0.25;

/** Whether the motion moves no corner of `rect` by more than STATIC_MOTION. */
export function isStatic(motion: Homography, rect: SizedRect): boolean {
  const point = { x: 0, y: 0 };
  for (const [x, y] of [
    [rect.x, rect.y],
    [rect.x + rect.width, rect.y],
    [rect.x, rect.y + rect.height],
    [rect.x + rect.width, rect.y + rect.height],
  ] as const) {
    project(motion, x, y, point);
    if (Math.hypot(point.x - x, point.y - y) > STATIC_MOTION) return false;
  }
  return true;
}
