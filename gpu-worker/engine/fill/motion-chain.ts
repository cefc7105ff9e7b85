import type { SizedRect } from "../geometry";
import { timed } from "../stage-clock";
import { type GreyRegion, greyRegion, MotionEstimator } from "./motion";
import { sameRect } from "./regions";
import { type Homography, homography, IDENTITY, type MaskedFrame } from "./types";

/** A window frame with its place in the video. */
export interface IndexedFrame extends MaskedFrame {
  index: number;
}

/** a·b for row-major 3x3 matrices: b's mapping first, then a's; scaled so the last entry is 1. */
export function compose(a: Homography, b: Homography): Homography {
  const out: number[] = [];
  for (let row = 0; row < 3; row += 1) {
    for (let column = 0; column < 3; column += 1) {
      let sum = 0;
      for (let k = 0; k < 3; k += 1) sum += (a[row * 3 + k] as number) * (b[k * 3 + column] as number);
      out.push(sum);
    }
  }
  const scale = out[8] as number;
  return homography(out.map((value) => value / scale));
}

/** The inverse mapping, or undefined for a degenerate matrix. */
export function invert(h: Homography): Homography | undefined {
  const [a, b, c, d, e, f, g, k, l] = h;
  const cofactors = [
    e * l - f * k,
    c * k - b * l,
    b * f - c * e,
    f * g - d * l,
    a * l - c * g,
    c * d - a * f,
    d * k - e * g,
    b * g - a * k,
    a * e - b * d,
  ];
  const determinant =
    a * (cofactors[0] as number) + b * (cofactors[3] as number) + c * (cofactors[6] as number);
  if (!Number.isFinite(determinant) || Math.abs(determinant) < 1e-12) return undefined;
  return compose(IDENTITY, homography(cofactors.map((value) => value / determinant)));
}

/**
 * The motion from frame `from` to frame `to` composed of the steps between them (`step(i)`: frame i
 * to i + 1), asked for in order, up to the first one that is not trusted (then undefined).
 */
export async function composeSteps(
  from: number,
  to: number,
  step: (at: number) => Promise<Homography | undefined> | Homography | undefined,
): Promise<Homography | undefined> {
  let motion: Homography = IDENTITY;
  for (let at = from; at < to; at += 1) {
    const forward = await step(at);
    if (!forward) return undefined;
    motion = compose(forward, motion);
  }
  for (let at = from - 1; at >= to; at -= 1) {
    const forward = await step(at);
    const back = forward && invert(forward);
    if (!back) return undefined;
    motion = compose(back, motion);
  }
  return motion;
}

/**
 * Camera motion across a stream of frames, measured once between each frame and the next and
 * composed for frames further apart: filling a frame from its window's neighbours then needs one
 * optical-flow run per frame instead of one per neighbour (the drift composing adds is taken out by
 * each source's ring alignment, see temporal.ts). A step measured for one region is reused for the
 * next frames' regions, which is right for the whole-frame motion of pans and zooms.
 */
export class MotionChain {
  /** H(frame i → frame i+1) by i; undefined where the motion could not be trusted. */
  private readonly steps = new Map<number, Homography | undefined>();
  /** The last step's target frame in grey: usually the next step's source. */
  private lastTarget?: { index: number; grey: GreyRegion };

  /** The motion from window[from] to window[to], or undefined when a step on the way is unknown. */
  async between(
    window: IndexedFrame[],
    from: number,
    to: number,
    roi: SizedRect,
  ): Promise<Homography | undefined> {
    return composeSteps(from, to, (at) => this.step(window, at, roi));
  }

  /** The steps measured from frames `first` to `last` (video indices), null where untrusted. */
  measured(first: number, last: number): Array<[number, Homography | null]> {
    const known: Array<[number, Homography | null]> = [];
    for (const [index, step] of this.steps)
      if (index >= first && index <= last) known.push([index, step ?? null]);
    return known;
  }

  /** Whether the step from frame `index` (the video's) to the next was measured already. */
  knows(index: number): boolean {
    return this.steps.has(index);
  }

  /** Drops the steps of frames before `index`, which left the window. */
  forget(index: number): void {
    for (const key of this.steps.keys()) if (key < index) this.steps.delete(key);
  }

  private async step(window: IndexedFrame[], at: number, roi: SizedRect): Promise<Homography | undefined> {
    const from = window[at];
    const to = window[at + 1];
    if (!from || !to) return undefined;
    if (this.steps.has(from.index)) return this.steps.get(from.index);
    // Timed only when measured, not when read from the chain: the clock's own cost stays small.
    return timed("motion", () => this.measure(from, to, roi));
  }

  private async measure(
    from: IndexedFrame,
    to: IndexedFrame,
    roi: SizedRect,
  ): Promise<Homography | undefined> {
    const last = this.lastTarget;
    const fromGrey =
      last?.index === from.index && sameRect(last.grey.roi, roi) ? last.grey : greyRegion(from.frame, roi);
    const toGrey = greyRegion(to.frame, roi);
    this.lastTarget = { index: to.index, grey: toGrey };
    const estimator = await MotionEstimator.create(fromGrey, from.mask, roi);
    try {
      const motion = estimator.track(toGrey, to.mask);
      this.steps.set(from.index, motion);
      return motion;
    } finally {
      estimator.release();
    }
  }
}
