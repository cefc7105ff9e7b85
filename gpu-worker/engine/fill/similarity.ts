import { type Homography, homography } from "./types";

/**
 * A similarity (rotation, uniform scale, translation) fitted by RANSAC to point pairs: the camera's
 * own motion between two nearby frames, with none of the four freedoms more that let a homography
 * follow a subject moving on its own (ring-choice.ts says when it is kept).
 */
export interface SimilarityFit {
  motion: Homography;
  inliers: number;
}

/** Hypotheses tried: two pairs each, taken in a fixed order so the same tracks give the same fit. */
const HYPOTHESES = 200;

/** The similarity with the most pairs within `threshold` pixels, refitted on them; undefined under two pairs. */
export function fitSimilarity(from: number[], to: number[], threshold: number): SimilarityFit | undefined {
  const count = from.length / 2;
  if (count < 2) return undefined;
  let best: { params: number[]; inliers: number } | undefined;
  // A fixed stride walk through the pairs (a prime step), so the fit is the same on every run and thread.
  for (let h = 0; h < HYPOTHESES; h += 1) {
    const i = (h * 7919) % count;
    const j = (i + 1 + ((h * 104729) % (count - 1))) % count;
    const params = solveSimilarity(from, to, [i, j]);
    if (!params) continue;
    const inliers = inliersOf(params, from, to, threshold);
    if (!best || inliers.length > best.inliers) best = { params, inliers: inliers.length };
  }
  if (!best) return undefined;
  const kept = inliersOf(best.params, from, to, threshold);
  const refitted = solveSimilarity(from, to, kept) ?? best.params;
  const inliers = inliersOf(refitted, from, to, threshold).length;
  const [a, b, tx, ty] = refitted as [number, number, number, number];
  return { motion: homography([a, -b, tx, b, a, ty, 0, 0, 1]), inliers };
}

function inliersOf(params: number[], from: number[], to: number[], threshold: number): number[] {
  const [a, b, tx, ty] = params as [number, number, number, number];
  const kept: number[] = [];
  for (let k = 0; k < from.length / 2; k += 1) {
    const x = from[2 * k] as number;
    const y = from[2 * k + 1] as number;
    const dx = a * x - b * y + tx - (to[2 * k] as number);
    const dy = b * x + a * y + ty - (to[2 * k + 1] as number);
    if (dx * dx + dy * dy <= threshold * threshold) kept.push(k);
  }
  return kept;
}

/**
 * Least squares of x' = a·x − b·y + tx, y' = b·x + a·y + ty over the chosen pairs, in coordinates
 * centred on their means (the 2x2 system is then diagonal). Undefined when the points coincide.
 */
function solveSimilarity(from: number[], to: number[], pairs: number[]): number[] | undefined {
  let mx = 0;
  let my = 0;
  let nx = 0;
  let ny = 0;
  for (const k of pairs) {
    mx += from[2 * k] as number;
    my += from[2 * k + 1] as number;
    nx += to[2 * k] as number;
    ny += to[2 * k + 1] as number;
  }
  const n = pairs.length;
  mx /= n;
  my /= n;
  nx /= n;
  ny /= n;
  let spread = 0;
  let sa = 0;
  let sb = 0;
  for (const k of pairs) {
    const x = (from[2 * k] as number) - mx;
    const y = (from[2 * k + 1] as number) - my;
    const u = (to[2 * k] as number) - nx;
    const v = (to[2 * k + 1] as number) - ny;
    spread += x * x + y * y;
    sa += x * u + y * v;
    sb += x * v - y * u;
  }
  if (spread < 1e-6) return undefined;
  const a = sa / spread;
  const b = sb / spread;
  return [a, b, nx - (a * mx - b * my), ny - (b * mx + a * my)];
}
