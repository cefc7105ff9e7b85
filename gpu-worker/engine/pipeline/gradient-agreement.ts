import { meanGrey } from "../fill/sample";
import type { SizedRect } from "../geometry";
import type { RgbFrame } from "../ocr/ocr";

/**
 * How alike two frames look inside a box, by the gradients there: what tells a frame showing a line
 * from one showing the picture alone, without the detector (screen-fixed.ts, line-gaps.ts).
 */

/**
 * A frame's grey (the mean of its channels, as the fill reads it) inside a box and a pixel around
 * it, within the frame: the gradients inside the box need no more. A line's box is a few thousand
 * of an analysis frame's 230,000 pixels.
 */
export interface GreyPatch {
  /** The box the gradients are compared in, one pixel in from the frame's edge. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** The patch's columns and rows in the frame ([left, left + width) × [top, …)), and its grey. */
  left: number;
  top: number;
  width: number;
  grey: Float32Array;
}

export function greyPatch({ width, height, data }: RgbFrame, box: SizedRect): GreyPatch {
  const x0 = Math.max(1, Math.floor(box.x));
  const y0 = Math.max(1, Math.floor(box.y));
  const x1 = Math.min(width - 1, Math.ceil(box.x + box.width));
  const y1 = Math.min(height - 1, Math.ceil(box.y + box.height));
  const left = x0 - 1;
  const top = y0 - 1;
  const patchWidth = Math.max(0, x1 + 1 - left);
  const rows = Math.max(0, y1 + 1 - top);
  const grey = new Float32Array(patchWidth * rows);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < patchWidth; x++)
      grey[y * patchWidth + x] = meanGrey(data, (top + y) * width + left + x);
  }
  return { x0, y0, x1, y1, left, top, width: patchWidth, grey };
}

/** Correlation of two patches' gradient magnitudes inside their box (the same box in both). */
export function gradientAgreement(a: GreyPatch, b: GreyPatch): number {
  const { x0, y0, x1, y1, left, top, width } = a;
  const magnitude = (grey: Float32Array, p: number) =>
    Math.hypot(
      (grey[p + 1] as number) - (grey[p - 1] as number),
      (grey[p + width] as number) - (grey[p - width] as number),
    );
  const pairs: Array<[number, number]> = [];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const p = (y - top) * width + (x - left);
      pairs.push([magnitude(a.grey, p), magnitude(b.grey, p)]);
    }
  }
  return correlation(pairs);
}

/** Pearson correlation of pairs; 0 when either side is flat. */
function correlation(pairs: Array<[number, number]>): number {
  const n = pairs.length;
  if (n === 0) return 0;
  const meanA = pairs.reduce((sum, [a]) => sum + a, 0) / n;
  const meanB = pairs.reduce((sum, [, b]) => sum + b, 0) / n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (const [a, b] of pairs) {
    ab += (a - meanA) * (b - meanB);
    aa += (a - meanA) ** 2;
    bb += (b - meanB) ** 2;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}
