import type { SizedRect } from "../geometry";
import type { GreyRegion } from "./motion";
import { project } from "./sample";
import type { Homography } from "./types";

/**
 * Which of two camera motions between a frame and the next lines up the picture right around the
 * text: the homography that fits the most tracked corners follows whatever holds most corners, and
 * where a subject moves on its own before a still background (real-subject: a woman walking past a
 * lamp) that is the subject, at scales of 0.9 to 1.3 between neighbouring frames, so the lamp behind
 * the caption was borrowed from beside it. A similarity fitted to the same tracks is the other
 * candidate; the one whose warped next frame differs less on the unmasked pixels beside the text is
 * kept, as the fill itself later judges its sources on that ring. No motion at all is a third where
 * the ring hardly changes without one: a still camera (motion.ts, STILL_RING).
 */

/** A difference larger than this (grey levels) counts as this much: a subject passing the ring weighs no more. */
const CAPPED_DIFFERENCE = 30;
/** Ring pixels looked at, at most (every n-th is taken past it). */
const MAX_RING_PIXELS = 4000;

/** A frame's grey over the region motion is measured in (motion.ts's GreyRegion, less the frame's size). */
type GreyPicture = Pick<GreyRegion, "grey" | "roi">;

/** The ring: region pixels (indices) that are not text but lie within the text's clearance. */
export function ringPixels(
  usable: Uint8Array,
  textMask: Uint8Array,
  frameWidth: number,
  roi: SizedRect,
): Int32Array {
  const picked: number[] = [];
  for (let y = 0; y < roi.height; y += 1) {
    const start = (roi.y + y) * frameWidth + roi.x;
    for (let x = 0; x < roi.width; x += 1) {
      if (!usable[y * roi.width + x] && !textMask[start + x]) picked.push(y * roi.width + x);
    }
  }
  const stride = Math.max(1, Math.ceil(picked.length / MAX_RING_PIXELS));
  return Int32Array.from(picked.filter((_, k) => k % stride === 0));
}

/**
 * The mean capped grey difference between `from` on the ring and `to` where `motion` puts each ring
 * pixel (bilinear), leaving out pixels that land outside the region or on `to`'s text.
 */
export function ringDifference(
  from: GreyPicture,
  to: GreyPicture,
  toMask: Uint8Array,
  frameWidth: number,
  ring: Int32Array,
  motion: Homography,
): number {
  const { roi } = from;
  const point = { x: 0, y: 0 };
  let sum = 0;
  let count = 0;
  for (const pixel of ring) {
    const row = Math.floor(pixel / roi.width);
    const column = pixel - row * roi.width;
    project(motion, column + roi.x, row + roi.y, point);
    const x = point.x - roi.x;
    const y = point.y - roi.y;
    const left = Math.floor(x);
    const top = Math.floor(y);
    if (left < 0 || top < 0 || left + 1 >= roi.width || top + 1 >= roi.height) continue;
    if (toMask[(Math.round(y) + roi.y) * frameWidth + Math.round(x) + roi.x]) continue;
    const fx = x - left;
    const fy = y - top;
    const at = top * roi.width + left;
    const g = to.grey;
    const value =
      ((g[at] as number) * (1 - fx) + (g[at + 1] as number) * fx) * (1 - fy) +
      ((g[at + roi.width] as number) * (1 - fx) + (g[at + roi.width + 1] as number) * fx) * fy;
    sum += Math.min(CAPPED_DIFFERENCE, Math.abs(value - (from.grey[pixel] as number)));
    count += 1;
  }
  return count > 0 ? sum / count : Number.POSITIVE_INFINITY;
}
