import { maskBounds } from "../gpu-worker/engine/pipeline/verify";

/** A rectangle of pixels: x0, y0 inclusive, x1, y1 exclusive. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Half the side of the SSIM window: 7x7 uniform, the window size scikit-image uses by default. */
const RADIUS = 3;
const C1 = (0.01 * 255) ** 2;
const C2 = (0.03 * 255) ** 2;

/** Bounding box of the mask's pixels (255) grown by SSIM's window, or null for an empty mask. */
export function maskBox(mask: Uint8Array, width: number, height: number): PixelBox | null {
  const bounds = maskBounds(mask, width, height, RADIUS);
  return bounds && { x0: bounds.x, y0: bounds.y, x1: bounds.x + bounds.width, y1: bounds.y + bounds.height };
}

/** Summed-area table (one extra row and column of zeros) of f(a, b) over the box's luma. */
function integral(
  a: Float64Array,
  b: Float64Array,
  boxWidth: number,
  boxHeight: number,
  f: (p: number, q: number) => number,
): Float64Array {
  const stride = boxWidth + 1;
  const table = new Float64Array(stride * (boxHeight + 1));
  for (let y = 0; y < boxHeight; y++) {
    let rowSum = 0;
    for (let x = 0; x < boxWidth; x++) {
      rowSum += f(a[y * boxWidth + x] as number, b[y * boxWidth + x] as number);
      table[(y + 1) * stride + x + 1] = (table[y * stride + x + 1] as number) + rowSum;
    }
  }
  return table;
}

function luma(rgb: Uint8Array, width: number, box: PixelBox): Float64Array {
  const boxWidth = box.x1 - box.x0;
  const out = new Float64Array(boxWidth * (box.y1 - box.y0));
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      const i = (y * width + x) * 3;
      out[(y - box.y0) * boxWidth + x - box.x0] =
        0.299 * (rgb[i] as number) + 0.587 * (rgb[i + 1] as number) + 0.114 * (rgb[i + 2] as number);
    }
  }
  return out;
}

/**
 * SSIM of two RGB frames' luma at each mask pixel (7x7 window, clipped to the box), summed: the caller
 * divides by the pixel count. Works on the mask's box only, with summed-area tables.
 */
export function maskedSsimSum(
  a: Uint8Array,
  b: Uint8Array,
  mask: Uint8Array,
  width: number,
  box: PixelBox,
): { sum: number; count: number } {
  const boxWidth = box.x1 - box.x0;
  const boxHeight = box.y1 - box.y0;
  const la = luma(a, width, box);
  const lb = luma(b, width, box);
  const sa = integral(la, lb, boxWidth, boxHeight, (p) => p);
  const sb = integral(la, lb, boxWidth, boxHeight, (_, q) => q);
  const saa = integral(la, lb, boxWidth, boxHeight, (p) => p * p);
  const sbb = integral(la, lb, boxWidth, boxHeight, (_, q) => q * q);
  const sab = integral(la, lb, boxWidth, boxHeight, (p, q) => p * q);
  const stride = boxWidth + 1;
  let sum = 0;
  let count = 0;
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      if (!mask[y * width + x]) continue;
      const left = Math.max(0, x - box.x0 - RADIUS);
      const top = Math.max(0, y - box.y0 - RADIUS);
      const right = Math.min(boxWidth, x - box.x0 + RADIUS + 1);
      const bottom = Math.min(boxHeight, y - box.y0 + RADIUS + 1);
      const n = (right - left) * (bottom - top);
      const window = (t: Float64Array) =>
        ((t[bottom * stride + right] as number) -
          (t[top * stride + right] as number) -
          (t[bottom * stride + left] as number) +
          (t[top * stride + left] as number)) /
        n;
      const meanA = window(sa);
      const meanB = window(sb);
      const varA = window(saa) - meanA * meanA;
      const varB = window(sbb) - meanB * meanB;
      const cov = window(sab) - meanA * meanB;
      sum +=
        ((2 * meanA * meanB + C1) * (2 * cov + C2)) /
        ((meanA * meanA + meanB * meanB + C1) * (varA + varB + C2));
      count++;
    }
  }
  return { sum, count };
}
