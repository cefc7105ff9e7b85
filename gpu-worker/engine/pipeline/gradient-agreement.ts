import { meanGrey } from "../fill/sample";
import type { SizedRect } from "../geometry";
import type { RgbFrame } from "../ocr/ocr";

/**
 * How alike two frames look inside a box, by the gradients there: what tells a frame showing a line
 * from one showing the picture alone, without the detector (screen-fixed.ts, line-gaps.ts).
 */

/** The frame's grey (the mean of its channels), as the fill reads it. */
export function greyOf({ width, height, data }: RgbFrame): Float32Array {
  const grey = new Float32Array(width * height);
  for (let p = 0; p < grey.length; p++) grey[p] = meanGrey(data, p);
  return grey;
}

/** Correlation of two grey pictures' gradient magnitudes inside `box` (pixels one in from the edge). */
export function gradientAgreement(a: Float32Array, b: Float32Array, width: number, box: SizedRect): number {
  const height = a.length / width;
  const magnitude = (grey: Float32Array, p: number) =>
    Math.hypot(
      (grey[p + 1] as number) - (grey[p - 1] as number),
      (grey[p + width] as number) - (grey[p - width] as number),
    );
  const pairs: Array<[number, number]> = [];
  for (let y = Math.max(1, Math.floor(box.y)); y < Math.min(height - 1, Math.ceil(box.y + box.height)); y++) {
    for (let x = Math.max(1, Math.floor(box.x)); x < Math.min(width - 1, Math.ceil(box.x + box.width)); x++) {
      pairs.push([magnitude(a, y * width + x), magnitude(b, y * width + x)]);
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
