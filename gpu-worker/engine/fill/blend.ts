import { type CropWork, Source } from "./crop";
import { scratchPlane } from "./scratch";

/**
 * Hides seams where pixels borrowed from other frames meet the frame's own: on the ring just outside
 * the mask the difference between the frame and what the borrowed frames show there (exposure drift,
 * slight misalignment) is measured, smoothed, and added to the borrowed fill with a weight falling
 * from 1 at the mask's edge to 0 `band` pixels inside; offsets above `maxOffset` are ignored. Only
 * masked pixels change; when the borrowed frames match exactly the correction is zero.
 */
export function featherSeams(
  work: CropWork,
  ringEstimate: Float32Array,
  geometry: { band: number; ringWidth: number; maxOffset: number },
): void {
  const { band, ringWidth, maxOffset } = geometry;
  const { rect, frame, outside, inside, source, fill } = work;
  const { width, height } = rect;
  // Per pixel: R, G, B differences and a weight of 1 where the ring has an estimate.
  const offsets = scratchPlane("seam offsets", width * height * 4, 0);
  for (let i = 0; i < outside.length; i += 1) {
    const distance = outside[i] as number;
    if (distance <= 0 || distance > ringWidth || Number.isNaN(ringEstimate[i * 3])) continue;
    const at = ((rect.y + Math.floor(i / width)) * frame.width + rect.x + (i % width)) * 3;
    const red = (frame.data[at] as number) - (ringEstimate[i * 3] as number);
    const green = (frame.data[at + 1] as number) - (ringEstimate[i * 3 + 1] as number);
    const blue = (frame.data[at + 2] as number) - (ringEstimate[i * 3 + 2] as number);
    // Larger offsets are text the mask missed (halo, shadow), not drift: blending them in would smear it.
    if ((Math.abs(red) + Math.abs(green) + Math.abs(blue)) / 3 > maxOffset) continue;
    offsets[i * 4] = red;
    offsets[i * 4 + 1] = green;
    offsets[i * 4 + 2] = blue;
    offsets[i * 4 + 3] = 1;
  }
  // Wide enough that the deepest feathered pixel still sees the ring.
  const smoothed = boxFilter(offsets, width, height, band + ringWidth);
  for (let i = 0; i < inside.length; i += 1) {
    const depth = inside[i] as number;
    if (source[i] !== Source.neighbours || depth > band) continue;
    const weight = smoothed[i * 4 + 3] as number;
    if (weight <= 0) continue;
    const falloff = (band + 1 - depth) / band;
    for (let c = 0; c < 3; c += 1) {
      fill[i * 3 + c] = (fill[i * 3 + c] as number) + (falloff * (smoothed[i * 4 + c] as number)) / weight;
    }
  }
}

/** Sums over a (2*radius+1)^2 box of a 4-channel image, separably with running sums. */
function boxFilter(image: Float32Array, width: number, height: number, radius: number): Float32Array {
  // Every entry of both planes is written below, so they need not start at zero.
  const rows = scratchPlane("seam rows", image.length);
  for (let y = 0; y < height; y += 1) slidingSums(image, rows, y * width * 4, 4, width, radius);
  // Down the columns all at once, a whole row per step, so memory is read in order.
  const boxes = scratchPlane("seam boxes", image.length);
  slidingSums(rows, boxes, 0, width * 4, height, radius);
  return boxes;
}

/**
 * Windowed sums along a line of `count` steps, each step `lanes` consecutive floats (one pixel's
 * channels, or a whole row): every lane keeps its own running sum. Plain loops, no closure and no
 * TypedArray.set per step: with four lanes this runs once per pixel of the crop.
 */
function slidingSums(
  input: Float32Array,
  output: Float32Array,
  start: number,
  lanes: number,
  count: number,
  radius: number,
): void {
  const sums = new Float64Array(lanes);
  for (let k = 0; k < Math.min(radius, count); k += 1) addStep(sums, input, start + k * lanes, 1);
  for (let k = 0; k < count; k += 1) {
    if (k + radius < count) addStep(sums, input, start + (k + radius) * lanes, 1);
    if (k - radius - 1 >= 0) addStep(sums, input, start + (k - radius - 1) * lanes, -1);
    const at = start + k * lanes;
    for (let lane = 0; lane < lanes; lane += 1) output[at + lane] = sums[lane] as number;
  }
}

/** Adds (sign 1) or takes away (sign -1) one step's lanes, from `base` in `input`, to the running sums. */
function addStep(sums: Float64Array, input: Float32Array, base: number, sign: number): void {
  for (let lane = 0; lane < sums.length; lane += 1) {
    sums[lane] = (sums[lane] as number) + sign * (input[base + lane] as number);
  }
}
