/** A grey image with the pixels that may be used (255) and those that may not (0), e.g. text. */
export interface GreyRegion {
  grey: Uint8Array;
  usable: Uint8Array;
  width: number;
  height: number;
}

/** A profile must vary by at least this much (mean absolute grey deviation) to say anything. */
const MIN_CONTRAST = 2;
/** The best match must be this much better than the typical shift for the profile to be trusted. */
const MAX_MATCH_SHARE = 0.35;

/**
 * The translation from `from` to `to`, found by sliding their column profiles (mean grey of each
 * column's usable pixels) and row profiles over each other: for pictures with too few corners to
 * track (flat bars, stripes, gradients), where edges still show how far the picture moved. An axis
 * whose profile is flat (no edge across it) gets 0. Undefined when a profile with structure finds
 * no clear match (the picture changed rather than moved).
 */
export function profileShift(
  from: GreyRegion,
  to: GreyRegion,
  maxShift: number,
): { dx: number; dy: number } | undefined {
  const dx = axisShift(profile(from, true), profile(to, true), maxShift);
  const dy = axisShift(profile(from, false), profile(to, false), maxShift);
  if (dx === undefined || dy === undefined) return undefined;
  return { dx, dy };
}

/** Mean grey of the usable pixels of each column (`columns`) or row; NaN where none is usable. */
function profile(region: GreyRegion, columns: boolean): Float64Array {
  const { grey, usable, width, height } = region;
  const length = columns ? width : height;
  const sums = new Float64Array(length);
  const counts = new Float64Array(length);
  for (let y = 0; y < height; y++) {
    for (let x = 0, at = y * width; x < width; x++, at++) {
      if (!usable[at]) continue;
      const k = columns ? x : y;
      sums[k] = (sums[k] as number) + (grey[at] as number);
      counts[k] = (counts[k] as number) + 1;
    }
  }
  // A line with few usable pixels is mostly text: its mean would not follow the picture.
  const enough = (columns ? height : width) / 4;
  return sums.map((sum, k) => ((counts[k] as number) >= enough ? sum / (counts[k] as number) : Number.NaN));
}

/** Mean absolute difference between a[k] and b[k + shift] over the places both know. */
function mismatch(a: Float64Array, b: Float64Array, shift: number): number {
  let total = 0;
  let count = 0;
  for (let k = Math.max(0, -shift); k < Math.min(a.length, b.length - shift); k++) {
    const difference = Math.abs((a[k] as number) - (b[k + shift] as number));
    if (Number.isNaN(difference)) continue;
    total += difference;
    count++;
  }
  return count >= a.length / 2 ? total / count : Number.POSITIVE_INFINITY;
}

function contrast(values: Float64Array): number {
  const known = values.filter((value) => !Number.isNaN(value));
  if (known.length === 0) return 0;
  const mean = known.reduce((sum, value) => sum + value, 0) / known.length;
  return known.reduce((sum, value) => sum + Math.abs(value - mean), 0) / known.length;
}

/** The shift of `b` against `a`, to a fraction of a pixel (a V through the best three: costs are absolute differences). */
function axisShift(a: Float64Array, b: Float64Array, maxShift: number): number | undefined {
  const spread = contrast(a);
  if (spread < MIN_CONTRAST) return 0;
  const costs: number[] = [];
  for (let shift = -maxShift; shift <= maxShift; shift++) costs.push(mismatch(a, b, shift));
  let best = 0;
  for (let k = 1; k < costs.length; k++) if ((costs[k] as number) < (costs[best] as number)) best = k;
  const bestCost = costs[best] as number;
  if (!(bestCost <= MAX_MATCH_SHARE * spread)) return undefined;
  const before = costs[best - 1];
  const after = costs[best + 1];
  let offset = 0;
  if (before !== undefined && after !== undefined && Number.isFinite(before) && Number.isFinite(after)) {
    const slope = Math.max(before, after) - bestCost;
    if (slope > 0) offset = (before - after) / (2 * slope);
  }
  return best - maxShift + offset;
}
