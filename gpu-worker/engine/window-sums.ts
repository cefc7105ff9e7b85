/**
 * Per pixel of a `width` x `height` plane, the sum of `values` over the square of `radius` around it
 * (cut by the plane's edges), by running sums along the rows and then the columns.
 */
export function windowSums(
  values: Float32Array,
  width: number,
  height: number,
  radius: number,
): Float32Array {
  const rows = new Float32Array(values.length);
  for (let y = 0; y < height; y += 1) {
    let sum = 0;
    for (let x = 0; x < Math.min(radius, width); x += 1) sum += values[y * width + x] as number;
    for (let x = 0; x < width; x += 1) {
      if (x + radius < width) sum += values[y * width + x + radius] as number;
      rows[y * width + x] = sum;
      if (x - radius >= 0) sum -= values[y * width + x - radius] as number;
    }
  }
  const sums = new Float32Array(values.length);
  for (let x = 0; x < width; x += 1) {
    let sum = 0;
    for (let y = 0; y < Math.min(radius, height); y += 1) sum += rows[y * width + x] as number;
    for (let y = 0; y < height; y += 1) {
      if (y + radius < height) sum += rows[(y + radius) * width + x] as number;
      sums[y * width + x] = sum;
      if (y - radius >= 0) sum -= rows[(y - radius) * width + x] as number;
    }
  }
  return sums;
}
