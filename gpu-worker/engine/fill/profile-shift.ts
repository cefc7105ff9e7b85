/** A grey image with the pixels that may be used (non-zero) and those that may not (0), e.g. text. */
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

/** Mean grey of the usable pixels of each column and of each row; NaN where too few are usable. */
export interface Profiles {
  columns: Float64Array;
  rows: Float64Array;
}

/**
 * The translation from the region `from` profiles to the one `to` profiles, found by sliding their
 * column profiles and row profiles over each other: for pictures with too few corners to track (flat
 * bars, stripes, gradients), where edges still show how far the picture moved. An axis whose profile
 * is flat (no edge across it) gets 0. Undefined when a profile with structure finds no clear match
 * (the picture changed rather than moved).
 */
export function profileShift(
  from: Profiles,
  to: Profiles,
  maxShift: number,
): { dx: number; dy: number } | undefined {
  const dx = axisShift(from.columns, to.columns, maxShift);
  const dy = axisShift(from.rows, to.rows, maxShift);
  if (dx === undefined || dy === undefined) return undefined;
  return { dx, dy };
}

/** Both profiles of a region in one pass over its pixels. */
export function profilesOf(region: GreyRegion): Profiles {
  const { grey, usable, width, height } = region;
  const columnSums = new Float64Array(width);
  const columnCounts = new Float64Array(width);
  const rowSums = new Float64Array(height);
  const rowCounts = new Float64Array(height);
  for (let y = 0; y < height; y++) {
    let rowSum = 0;
    let rowCount = 0;
    for (let x = 0, at = y * width; x < width; x++, at++) {
      if (!usable[at]) continue;
      const value = grey[at] as number;
      rowSum += value;
      rowCount++;
      columnSums[x] = (columnSums[x] as number) + value;
      columnCounts[x] = (columnCounts[x] as number) + 1;
    }
    rowSums[y] = rowSum;
    rowCounts[y] = rowCount;
  }
  return {
    columns: means(columnSums, columnCounts, height),
    rows: means(rowSums, rowCounts, width),
  };
}

/** A line with few usable pixels is mostly text: its mean would not follow the picture. */
function means(sums: Float64Array, counts: Float64Array, lineLength: number): Float64Array {
  const enough = lineLength / 4;
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
