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
 * each source's ring alignment, see temporal.ts). A step is kept for each region it was measured in
 * (around a frame's text): parallax and subjects moving on their own make the motion of one part of
 * the picture another's, and a frame's sources must line up around its own holes. Regions are
 * rounded to a coarse grid (fill's motionRegion), so frames whose text stays put share their steps.
 */
export class MotionChain {
  /** H(frame i → frame i+1) by i and by the region it was measured in (regionKey); undefined where untrusted. */
  private readonly steps = new Map<number, Map<string, Homography | undefined>>();
  /** The last step's target frame in grey: usually the next step's source. */
  private lastTarget?: { index: number; grey: GreyRegion };
  /** The last measureSteps call, which the next waits for. */
  private measuring: Promise<unknown> = Promise.resolve();
  /** Frames followed past the window (follow): by region, the motion from the frame to frame `upTo`. */
  private readonly followed = new Map<number, Map<string, { upTo: number; motion: Homography }>>();

  /** The motion from window[from] to window[to], or undefined when a step on the way is unknown. */
  async between(
    window: IndexedFrame[],
    from: number,
    to: number,
    roi: SizedRect,
  ): Promise<Homography | undefined> {
    return composeSteps(from, to, (at) => this.step(window, at, roi));
  }

  /**
   * Measures every step between consecutive frames of `frames` within `roi`, those not measured there
   * yet; calls run one after another, so a step is measured once.
   */
  measureSteps(frames: IndexedFrame[], roi: SizedRect): Promise<void> {
    const measured = this.measuring.then(async () => {
      for (let at = 0; at + 1 < frames.length; at += 1) await this.step(frames, at, roi);
    });
    this.measuring = measured.catch(() => undefined);
    return measured;
  }

  /** The steps measured within `roi` from frames `first` to `last` (video indices), null where untrusted. */
  measured(first: number, last: number, roi: SizedRect): Array<[number, Homography | null]> {
    const known: Array<[number, Homography | null]> = [];
    const key = regionKey(roi);
    for (const [index, byRegion] of this.steps) {
      if (index >= first && index <= last && byRegion.has(key))
        known.push([index, byRegion.get(key) ?? null]);
    }
    return known;
  }

  /**
   * Drops the steps of frames before `index`, which left the window; a followed frame's motion is
   * first carried over each of them.
   */
  forget(index: number): void {
    const leaving = [...this.steps.keys()].filter((key) => key < index).sort((a, b) => a - b);
    for (const at of leaving) {
      for (const [frame, reach] of this.followed) this.extend(frame, reach, at);
      this.steps.delete(at);
    }
  }

  /**
   * Keeps the motion from frame `index` onwards (in every region measured) after its steps are
   * forgotten, composed step by step as the window moves on: a frame kept from before the window
   * (fill/past-frames.ts) is then lined up as the window's own are.
   */
  follow(index: number): void {
    if (!this.followed.has(index)) this.followed.set(index, new Map());
  }

  /** Stops following frame `index`. */
  unfollow(index: number): void {
    this.followed.delete(index);
  }

  /**
   * The motion from window[from] to followed frame `index` (before the window) within `roi`, or
   * undefined where a step on the way was not trusted or never measured there.
   */
  async towardsFollowed(
    window: IndexedFrame[],
    from: number,
    index: number,
    roi: SizedRect,
  ): Promise<Homography | undefined> {
    const first = window[0];
    const reach = this.followed.get(index)?.get(regionKey(roi));
    if (!first || reach?.upTo !== first.index) return undefined;
    const back = invert(reach.motion);
    const toFirst = await this.between(window, from, 0, roi);
    return back && toFirst && compose(back, toFirst);
  }

  /** Carries a followed frame's motion over step `at` in each region the step was measured in. */
  private extend(frame: number, reach: Map<string, { upTo: number; motion: Homography }>, at: number): void {
    for (const [key, step] of this.steps.get(at) ?? []) {
      const known = reach.get(key) ?? (at === frame ? { upTo: frame, motion: IDENTITY } : undefined);
      if (known?.upTo !== at) continue;
      if (step) reach.set(key, { upTo: at + 1, motion: compose(step, known.motion) });
      else reach.delete(key);
    }
  }

  private async step(window: IndexedFrame[], at: number, roi: SizedRect): Promise<Homography | undefined> {
    const from = window[at];
    const to = window[at + 1];
    if (!from || !to) return undefined;
    const known = this.steps.get(from.index);
    const key = regionKey(roi);
    if (known?.has(key)) return known.get(key);
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
    const motion = await trackTwice({ grey: fromGrey, mask: from.mask }, { grey: toGrey, mask: to.mask });
    const byRegion = this.steps.get(from.index) ?? new Map<string, Homography | undefined>();
    byRegion.set(regionKey(roi), motion);
    this.steps.set(from.index, byRegion);
    return motion;
  }
}

/**
 * The motion from one frame to another, measured directly within `roi` however far apart they are
 * (a frame from after the window, fill/later-frames.ts); undefined when it cannot be trusted.
 */
export function motionAcross(
  from: MaskedFrame,
  to: MaskedFrame,
  roi: SizedRect,
): Promise<Homography | undefined> {
  return timed("motion", () =>
    trackTwice(
      { grey: greyRegion(from.frame, roi), mask: from.mask },
      { grey: greyRegion(to.frame, roi), mask: to.mask },
    ),
  );
}

/** A frame's grey within the region measured, and its text mask. */
interface Measured {
  grey: GreyRegion;
  mask: Uint8Array;
}

/** track, and where it fails, track again with the corners clear of both frames' text (masksOfBoth). */
async function trackTwice(from: Measured, to: Measured): Promise<Homography | undefined> {
  const { roi, width } = from.grey;
  return (
    (await track(from.grey, from.mask, to.grey, to.mask, roi)) ??
    (from.mask === to.mask
      ? undefined
      : await track(from.grey, masksOfBoth(from.mask, to.mask, width, roi), to.grey, to.mask, roi))
  );
}

/** The motion from one frame's grey to the next's within `roi`, corners taken clear of `fromMask`. */
async function track(
  fromGrey: GreyRegion,
  fromMask: Uint8Array,
  toGrey: GreyRegion,
  toMask: Uint8Array,
  roi: SizedRect,
): Promise<Homography | undefined> {
  const estimator = await MotionEstimator.create(fromGrey, fromMask, roi);
  try {
    return estimator.track(toGrey, toMask);
  } finally {
    estimator.release();
  }
}

/**
 * The text of both frames of a step, for a second try where the step failed: a corner of the picture
 * where the next frame's text comes on is tracked onto the letters and lost, and at the frame a
 * caption appears those were enough to leave the step untrusted (the chain then ends there, and
 * with it the lining up of every frame across it). Only `roi`'s pixels are read. Not the first try:
 * taken on every step, the corners given up beside text that merely moves cost real-portrait 0.1 dB.
 */
function masksOfBoth(from: Uint8Array, to: Uint8Array, width: number, roi: SizedRect): Uint8Array {
  const both = Uint8Array.from(from);
  for (let row = roi.y; row < roi.y + roi.height; row += 1) {
    for (let at = row * width + roi.x; at < row * width + roi.x + roi.width; at += 1) {
      if (to[at]) both[at] = 255;
    }
  }
  return both;
}

/** A region's name: the steps of a frame are kept by it. */
export function regionKey(roi: SizedRect): string {
  return `${roi.x},${roi.y},${roi.width},${roi.height}`;
}
