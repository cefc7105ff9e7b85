/**
 * Grows a mask by `radius` pixels with a square brush: every pixel within `radius` (horizontally and
 * vertically) of a set pixel is set to 255. Two one-dimensional passes of two sweeps each, so the cost
 * does not grow with the radius.
 */
export function dilate(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const rows = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) dilateLine(mask, rows, y * width, 1, width, radius);
  const grown = new Uint8Array(mask.length);
  for (let x = 0; x < width; x++) dilateLine(rows, grown, x, width, height, radius);
  return grown;
}

/** One line of `count` pixels, `stride` apart from `start`: set in `to` what lies within `radius` of a set pixel in `from`. */
function dilateLine(
  from: Uint8Array,
  to: Uint8Array,
  start: number,
  stride: number,
  count: number,
  radius: number,
): void {
  let sinceSet = radius + 1;
  for (let k = 0, at = start; k < count; k++, at += stride) {
    sinceSet = from[at] ? 0 : sinceSet + 1;
    if (sinceSet <= radius) to[at] = 255;
  }
  sinceSet = radius + 1;
  for (let k = count - 1, at = start + k * stride; k >= 0; k--, at -= stride) {
    sinceSet = from[at] ? 0 : sinceSet + 1;
    if (sinceSet <= radius) to[at] = 255;
  }
}
