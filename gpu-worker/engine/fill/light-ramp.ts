import { kthSmallest } from "./select";

/**
 * A source's light (FillSource.light): the levels added, per channel, to what a frame shows to bring
 * it to the centre frame's. Flat (three numbers, the median difference on the ring around the hole),
 * or flat plus a ramp across the picture where the ring shows one: a frame seconds away sees the
 * scene from elsewhere in a vignetted or graded picture (real-red-band's hook, filled 64 frames on
 * under a turning camera: its letters came out 4 levels too dark on the left and up to 8 too bright
 * on the right, a ghost of "CITY B" on the flat sky). Laid out [flat r, g, b, centre x, centre y,
 * slope in x r, g, b, slope in y r, g, b].
 */

const FLAT = 3;
const [CENTRE_X, CENTRE_Y, SLOPE_X, SLOPE_Y] = [3, 4, 5, 8] as const;
const RAMP_LENGTH = 11;

/**
 * Nearer frames than this keep a flat light: within the window's reach (up to 20 frames a side) the
 * light barely drifts, and a ramp fitted there took real-blue-band's band 0.04 dB and hook-price 0.05
 * dB below the flat light.
 */
const MIN_RAMP_DISTANCE = 21;
/** Ring pixels differing from the median by more than this (grey levels) are a halo or a moving subject, not light. */
const RAMP_INLIER = 8;
/** Fewest ring pixels a ramp is fitted on. */
const MIN_RAMP_PIXELS = 64;
/** Smallest change (grey levels) the ramp makes across the ring for it to be kept: less is noise. */
const MIN_RAMP = 4;
/** Largest share of the flat light's error on the ring the ramp may leave for it to be kept. */
const MAX_ERROR_LEFT = 0.75;

/** The light of channel `c` at centre-frame pixel (x, y). */
export function lightAt(light: Float32Array, c: number, x: number, y: number): number {
  if (light.length === FLAT) return light[c] as number;
  return (
    (light[c] as number) +
    (light[SLOPE_X + c] as number) * (x - (light[CENTRE_X] as number)) +
    (light[SLOPE_Y + c] as number) * (y - (light[CENTRE_Y] as number))
  );
}

/**
 * The light that `differences` (per channel, centre less source, `count` ring pixels at `xs`, `ys`)
 * show for a source `distance` frames away: the median per channel, with a ramp where the source is
 * far and a plane through the differences takes out at least a quarter of their spread and changes
 * by MIN_RAMP levels across the ring.
 */
export function fitLight(
  differences: Float32Array[],
  xs: Float32Array,
  ys: Float32Array,
  count: number,
  distance: number,
): Float32Array {
  const far = distance >= MIN_RAMP_DISTANCE;
  // kthSmallest reorders what it is given: where a ramp is fitted after them, the medians are taken
  // of copies, and the ramp of the ring's order.
  const flat = Float32Array.from(differences, (channel) =>
    kthSmallest(far ? channel.slice(0, count) : channel, count, count >> 1),
  );
  return (far && rampOf(differences, xs, ys, count, flat)) || flat;
}

function rampOf(
  differences: Float32Array[],
  xs: Float32Array,
  ys: Float32Array,
  count: number,
  flat: Float32Array,
): Float32Array | undefined {
  if (count < MIN_RAMP_PIXELS) return undefined;
  const [red, green, blue] = differences as [Float32Array, Float32Array, Float32Array];
  const flatGrey = ((flat[0] as number) + (flat[1] as number) + (flat[2] as number)) / 3;
  const grey = (k: number) => ((red[k] as number) + (green[k] as number) + (blue[k] as number)) / 3;
  const inliers: number[] = [];
  let sumX = 0;
  let sumY = 0;
  for (let k = 0; k < count; k += 1) {
    if (Math.abs(grey(k) - flatGrey) > RAMP_INLIER) continue;
    inliers.push(k);
    sumX += xs[k] as number;
    sumY += ys[k] as number;
  }
  if (inliers.length < MIN_RAMP_PIXELS) return undefined;
  const centreX = sumX / inliers.length;
  const centreY = sumY / inliers.length;
  let xx = 0;
  let xy = 0;
  let yy = 0;
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const k of inliers) {
    const dx = (xs[k] as number) - centreX;
    const dy = (ys[k] as number) - centreY;
    xx += dx * dx;
    xy += dx * dy;
    yy += dy * dy;
    minX = Math.min(minX, dx);
    maxX = Math.max(maxX, dx);
    minY = Math.min(minY, dy);
    maxY = Math.max(maxY, dy);
  }
  const determinant = xx * yy - xy * xy;
  if (!(determinant > 1e-6 * (xx + yy) ** 2)) return undefined;
  const slopes = (value: (k: number) => number) => {
    let xe = 0;
    let ye = 0;
    for (const k of inliers) {
      const e = value(k);
      xe += ((xs[k] as number) - centreX) * e;
      ye += ((ys[k] as number) - centreY) * e;
    }
    return { x: (yy * xe - xy * ye) / determinant, y: (xx * ye - xy * xe) / determinant };
  };
  const greySlope = slopes(grey);
  if (Math.abs(greySlope.x) * (maxX - minX) + Math.abs(greySlope.y) * (maxY - minY) < MIN_RAMP)
    return undefined;
  const light = new Float32Array(RAMP_LENGTH);
  light[CENTRE_X] = centreX;
  light[CENTRE_Y] = centreY;
  const residuals = new Float32Array(inliers.length);
  for (let c = 0; c < 3; c += 1) {
    const channel = differences[c] as Float32Array;
    const slope = slopes((k) => channel[k] as number);
    light[SLOPE_X + c] = slope.x;
    light[SLOPE_Y + c] = slope.y;
    inliers.forEach((k, n) => {
      residuals[n] =
        (channel[k] as number) -
        slope.x * ((xs[k] as number) - centreX) -
        slope.y * ((ys[k] as number) - centreY);
    });
    light[c] = kthSmallest(residuals, inliers.length, inliers.length >> 1);
  }
  // Kept only where the ramp explains the ring's differences clearly better than the flat light.
  let flatError = 0;
  let rampError = 0;
  for (const k of inliers) {
    flatError += Math.abs(grey(k) - flatGrey);
    let ramped = 0;
    for (let c = 0; c < 3; c += 1) ramped += lightAt(light, c, xs[k] as number, ys[k] as number);
    rampError += Math.abs(grey(k) - ramped / 3);
  }
  return rampError <= MAX_ERROR_LEFT * flatError ? light : undefined;
}
