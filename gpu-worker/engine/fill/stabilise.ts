import { type CropWork, Source } from "./crop";
import { localShifts, type ShiftField } from "./local-shift";
import type { MotionEstimator } from "./motion";
import { framePixel } from "./regions";
import { movingNearHole } from "./ring-change";
import { isStatic } from "./sample";
import { alignedSources, type FillSource, fillFromSources, fillSource, weightedSource } from "./temporal";
import { type Homography, IDENTITY, type RgbFrame } from "./types";

/** The previous frame's output, so pixels no frame shows keep the fill they had (no flicker). */
export interface PreviousFill {
  frame: RgbFrame;
  /**
   * The pixels of `frame` that were synthesised rather than seen in some frame (FillResult.synthesized).
   * The previous frame's mask works too, but then background revealed earlier is not carried on.
   */
  filledMask: Uint8Array;
}

/** How much of a fresh spatial fill enters per frame over a moving background; the rest is the old fill. */
const FRESH_SHARE = 0.3;

/**
 * The share of the old fill kept at a pixel, of what FRESH_SHARE leaves it, given the change beside
 * the hole near it since the previous output (movingNearHole: over 1 the picture there moves on its
 * own). All of it where nothing moves, none where the change is twice the threshold: the old fill of
 * a subject that turned or moved since (real-cockatoo's head sweeping across the caption, the mouth
 * under real-small-hook's word) is out of date there, and eased in it left a smear of where the
 * subject was. Inside the masks, against easing everywhere: real-cockatoo 27.39 to 28.51 dB (worst
 * tenth 21.77 to 24.11), real-small-hook 23.79 to 24.40, real-tilt-handle 20.42 to 20.28,
 * real-red-band 21.51 to 21.39; dropping the ease-in outright took real-cockatoo to 28.77 but
 * real-red-band to 20.80 and real-tilt-handle to 19.90, where the old fill carries what earlier
 * frames showed of towers the camera turns past.
 */
function oldShareKept(change: number): number {
  return Math.min(1, Math.max(0, 2 - change));
}

/** The motion from the centre frame to the previous output, estimated on what it did not synthesise. */
export function previousMotion(previous: PreviousFill, motion: MotionEstimator): Homography {
  return motion.track(previous.frame, previous.filledMask) ?? IDENTITY;
}

/** The previous output lined up with a crop (see linedUpPrevious). */
export interface LinedUpPrevious {
  /** The previous output, its camera motion corrected on the ring around the hole. */
  source: FillSource;
  weight: number;
  /** Its nudges block by block, where something beside the hole moves on its own. */
  shift?: ShiftField;
}

/**
 * The previous output lined up with the crop as the window's sources are: the camera motion
 * corrected on the unmasked ring around the hole (undefined where it does not line up there: a cut,
 * a picture that moved on), then nudged block by block as the ring moved (localShifts: a subject
 * moving beside the caption). finishFill finds it once per crop for the carry-over and the steadying.
 */
export function linedUpPrevious(
  work: CropWork,
  previous: PreviousFill,
  motion: Homography,
  check: { ringWidth: number; maxError: number },
): LinedUpPrevious | undefined {
  const whole = fillSource(previous, motion, 1, undefined);
  const aligned = alignedSources(work, [whole], check.ringWidth, check.maxError)[0];
  return aligned && { ...aligned, shift: localShifts(work, aligned.source) };
}

/**
 * Gives the masked pixels no neighbour showed what the previous output has there, warped by the
 * camera motion and nudged as the ring moved (`lined`, from linedUpPrevious: undefined when the
 * unmasked ring around the hole no longer matches it, as after a cut or where something moved in).
 * Background seen in earlier frames is always carried over, and so is a synthesised fill while the
 * background is static: the fill then stays identical from frame to frame. Over a moving background a
 * carried synthesised fill would slide under the text as a stale smear, so those pixels are inpainted
 * afresh and `settle` then eases the fresh fill in over the old one, which keeps it from flickering.
 * When the picture around the hole has `movedOn` (it no longer matches the window's far frames),
 * whatever the hole held earlier is out of date, seen or not: all of it is inpainted afresh and eased
 * in, rather than left standing as a still patch in a changing picture. Under a still camera the same
 * goes for the pixels the search found out of date (CropWork.movedSince: a subject that stood there
 * when the caption came on has walked away since, and the old fill would keep it standing); over a
 * moving camera the carried pixels there are background revealed earlier and moved with the camera,
 * the best guess left (slide-cta lost 4.1 dB and caption-pan 1.8 without them).
 * Returns how many pixels were carried over.
 */
export function carryOver(
  work: CropWork,
  previous: PreviousFill,
  motion: Homography,
  lined: LinedUpPrevious | undefined,
  movedOn: boolean,
): { carried: number; settle: () => void } {
  const still = isStatic(motion, work.rect);
  const aligned = lined ? [weightedSource(lined.source, lined.weight)] : [];
  if (movedOn) return { carried: 0, settle: () => easeIn(work, aligned) };
  // The masked pixels are copied without the out-of-date ones only where the search marked some.
  const outOfDate = still && work.maskedPixels.some((i) => work.movedSince[i] !== 0);
  const upToDate = outOfDate ? work.maskedPixels.filter((i) => !work.movedSince[i]) : work.maskedPixels;
  if (lined) {
    const { source, weight, shift } = lined;
    const mask = still ? undefined : previous.filledMask;
    const seen = fillSource(source, source.motion, source.distance, mask, shift);
    fillFromSources(work, [weightedSource(seen, weight)], Source.previous, upToDate);
  }
  const { rect, source: sources } = work;
  let carried = 0;
  for (let i = 0; i < sources.length; i += 1) {
    if (sources[i] !== Source.previous) continue;
    carried += 1;
    const at = framePixel(rect, previous.frame.width, i);
    if (still && previous.filledMask[at]) sources[i] = Source.carriedFill;
  }
  return { carried, settle: () => (still && !outOfDate) || easeIn(work, aligned) };
}

/**
 * Blends the fresh spatial fill with the old fill the previous output has there, less of the old
 * where the picture beside the hole moved on its own since (oldShareKept).
 */
function easeIn(work: CropWork, aligned: ReturnType<typeof alignedSources>): void {
  // Only the freshly inpainted pixels are looked up in the previous output, in a copy of the crop's state.
  const earlier = {
    ...work,
    source: work.source.map((source) => (source === Source.spatial ? Source.none : Source.neighbours)),
    fill: work.fill.slice(),
    groups: [],
    group: new Uint16Array(work.group.length),
    movedSince: work.movedSince,
  };
  fillFromSources(earlier, aligned, Source.carriedFill);
  const changeNear = aligned[0] && movingNearHole(work, aligned[0].source);
  const { rect } = work;
  for (let i = 0; i < work.source.length; i += 1) {
    if (work.source[i] !== Source.spatial || earlier.source[i] !== Source.carriedFill) continue;
    const column = i % rect.width;
    const old = changeNear
      ? (1 - FRESH_SHARE) * oldShareKept(changeNear(rect.x + column, rect.y + (i - column) / rect.width))
      : 1 - FRESH_SHARE;
    for (let c = 0; c < 3; c += 1) {
      const at = i * 3 + c;
      work.fill[at] = (1 - old) * (work.fill[at] as number) + old * (earlier.fill[at] as number);
    }
  }
}
