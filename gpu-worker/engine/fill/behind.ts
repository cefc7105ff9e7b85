import { RESTORED_HEAVY } from "../pipeline/see-through";
import { windowSums } from "../window-sums";
import { type CropWork, Source } from "./crop";
import { framePixel } from "./regions";

/**
 * The picture behind a see-through box as the frame restored it itself (pipeline/see-through): an
 * estimate noisier than what a neighbour shows, taken where no neighbour showed the picture, and
 * where what the neighbours showed does not agree with it.
 */

/** Radius (pixels) of the neighbourhood over which the neighbours' fill is compared with the frame's own restoration. */
const AGREEMENT_RADIUS = 6;
/** Fewest pixels compared in that neighbourhood for the comparison to stand (a letter's rim alone is too few). */
const MIN_COMPARED = 20;
/**
 * Mean luma difference over the neighbourhood, as a share of its mean brightness (between the two
 * limits below), above which the neighbours showed something else than this frame does there: a
 * subject moving on its own behind the box, which one camera motion per frame does not follow
 * (real-portrait's hook over a turning head, filled with a patchwork of the head from other frames).
 * There the frame's own restoration is taken, and the letters, which it cannot restore, are left to
 * the spatial fill, which reads it around them. Luma only: the restored colour is the least sure
 * part of the estimate, and compared on every channel hook-price's box gave up neighbours that were
 * right (5 dB inside the masks). Relative, since in dark hair a few levels are the whole texture;
 * not below 5 levels, the noise a restoration carries (the box scales it up). Measured inside the
 * masks: real-portrait 24.73 dB without the check, 25.40 with 10 levels throughout, 25.72 with
 * this (flicker 2.26, 1.83, 1.58); hook-price, real-street and vertical-words unchanged (a fixed 8
 * levels cost hook-price 0.2 dB).
 */
const DISAGREEMENT_SHARE = 0.1;
const MIN_DISAGREEMENT = 5;
const MAX_DISAGREEMENT = 10;

const LUMA = [0.299, 0.587, 0.114] as const;

/**
 * Takes the frame's own estimate of the picture behind a see-through box where no neighbour showed
 * it, and where the neighbours' fill disagrees with it over the pixels around (letters there become
 * unfilled, for the spatial fill). The estimate rests on the box's opacity and colour as measured at
 * its edge, and a few levels off it shows as a band against pixels a neighbour showed; so where
 * neighbours showed the picture under the box too, each channel of the estimate is first mapped by
 * the line that fits it best to what they showed.
 */
export function fillFromBehind(work: CropWork, behind: Uint8Array): void {
  const { rect, frame, maskedPixels, source, fill, group } = work;
  const corrections = behindCorrections(work, behind);
  const gains = corrections.map(({ gain }) => gain);
  const offsets = corrections.map(({ offset }) => offset);
  const showedElse = neighboursShowedElse(work, behind, gains, offsets);
  const restored = restoredGroups(work);
  for (const i of maskedPixels) {
    const kind = source[i];
    if (kind !== Source.none && (kind !== Source.neighbours || !showedElse?.(i))) continue;
    const pixel = framePixel(rect, frame.width, i);
    // Behind a heavy plate a frame that showed the picture is kept: only other restorations give way.
    if (kind === Source.neighbours && behind[pixel] === RESTORED_HEAVY && !restored[group[i] as number])
      continue;
    if (!behind[pixel]) {
      source[i] = Source.none;
      continue;
    }
    for (let c = 0; c < 3; c += 1) {
      fill[i * 3 + c] = (gains[c] as number) * (frame.data[pixel * 3 + c] as number) + (offsets[c] as number);
    }
    source[i] = Source.behind;
  }
}

/** Per group id (index + 1), whether its sources are other frames' restorations behind their boxes. */
function restoredGroups(work: CropWork): boolean[] {
  return [
    false,
    ...work.groups.map(({ sources }) =>
      sources.some(({ source }) => source.textOnly !== undefined && source.mask === source.textOnly),
    ),
  ];
}

/**
 * Takes back the pixels behind a heavy plate (RESTORED_HEAVY) that the window's search filled from
 * its neighbours' restorations, so that the frames from before the window are looked at for them
 * first: a plate that comes on over a still shot hides what those frames show exactly, where a
 * restoration through the plate is a blurred estimate (real-street's lower third over grass).
 * `putBack` gives back those that the frames from before did not fill and returns how many.
 */
export function deferHeavyRestorations(
  work: CropWork,
  behind: Uint8Array,
): { count: number; putBack: () => number } {
  const { rect, frame, maskedPixels, source, fill, group } = work;
  const restored = restoredGroups(work);
  const taken: number[] = [];
  for (const i of maskedPixels) {
    if (source[i] !== Source.neighbours || !restored[group[i] as number]) continue;
    if (behind[framePixel(rect, frame.width, i)] !== RESTORED_HEAVY) continue;
    taken.push(i);
  }
  const kept = new Float32Array(taken.length * 3);
  const keptGroups = new Uint16Array(taken.length);
  taken.forEach((i, k) => {
    for (let c = 0; c < 3; c += 1) kept[k * 3 + c] = fill[i * 3 + c] as number;
    keptGroups[k] = group[i] as number;
    source[i] = Source.none;
    group[i] = 0;
  });
  const putBack = () => {
    let count = 0;
    taken.forEach((i, k) => {
      if (source[i] !== Source.none) return;
      for (let c = 0; c < 3; c += 1) fill[i * 3 + c] = kept[k * 3 + c] as number;
      group[i] = keptGroups[k] as number;
      source[i] = Source.neighbours;
      count += 1;
    });
    return count;
  };
  return { count: taken.length, putBack };
}

/**
 * Whether, around crop pixel i, the neighbours' fill behind the box differs from the frame's own
 * (corrected) estimate by more than the picture's brightness allows; undefined when too few pixels
 * were compared anywhere in the crop for any to count.
 */
function neighboursShowedElse(
  work: CropWork,
  behind: Uint8Array,
  gains: number[],
  offsets: number[],
): ((i: number) => boolean) | undefined {
  const { rect, frame, maskedPixels, source, fill } = work;
  const disagreement = new Float32Array(source.length);
  const compared = new Float32Array(source.length);
  const brightness = new Float32Array(source.length);
  let comparedInCrop = 0;
  for (const i of maskedPixels) {
    if (source[i] !== Source.neighbours) continue;
    const pixel = framePixel(rect, frame.width, i);
    if (!behind[pixel]) continue;
    let own = 0;
    let shown = 0;
    for (let c = 0; c < 3; c += 1) {
      const weight = LUMA[c] as number;
      own += weight * ((gains[c] as number) * (frame.data[pixel * 3 + c] as number) + (offsets[c] as number));
      shown += weight * (fill[i * 3 + c] as number);
    }
    disagreement[i] = Math.abs(own - shown);
    compared[i] = 1;
    brightness[i] = own;
    comparedInCrop += 1;
  }
  if (comparedInCrop < MIN_COMPARED) return undefined;
  const disagreementAround = windowSums(disagreement, rect.width, rect.height, AGREEMENT_RADIUS);
  const comparedAround = windowSums(compared, rect.width, rect.height, AGREEMENT_RADIUS);
  const brightnessAround = windowSums(brightness, rect.width, rect.height, AGREEMENT_RADIUS);
  return (i) => {
    const count = comparedAround[i] as number;
    if (count < MIN_COMPARED) return false;
    const allowed = allowedDisagreement((brightnessAround[i] as number) / count);
    return (disagreementAround[i] as number) > count * allowed;
  };
}

/** The mean luma difference allowed where the picture's mean brightness is `brightness`. */
function allowedDisagreement(brightness: number): number {
  return Math.min(MAX_DISAGREEMENT, Math.max(MIN_DISAGREEMENT, DISAGREEMENT_SHARE * brightness));
}

interface LinearFit {
  gain: number;
  offset: number;
}

/** Fewest pixels both estimated behind the box and shown by a neighbour for a correction to be fitted. */
const MIN_CORRECTION_PIXELS = 400;
/** Gains outside this range are not a small miss of the box's opacity: the estimate is left as it is. */
const MAX_CORRECTION_GAIN = 1.5;
/** Spread (variance, levels²) the estimate needs on a channel for a gain to be fitted; else only an offset. */
const MIN_CORRECTION_VARIANCE = 25;

/** Per channel, the least-squares line from the behind estimate to what neighbours showed. */
function behindCorrections(work: CropWork, behind: Uint8Array): LinearFit[] {
  const { rect, frame, maskedPixels, source, fill } = work;
  const sums = [0, 1, 2].map(() => ({ x: 0, y: 0, xx: 0, xy: 0 }));
  let count = 0;
  for (const i of maskedPixels) {
    if (source[i] !== Source.neighbours) continue;
    const pixel = framePixel(rect, frame.width, i);
    if (!behind[pixel]) continue;
    count += 1;
    for (let c = 0; c < 3; c += 1) {
      const x = frame.data[pixel * 3 + c] as number;
      const y = fill[i * 3 + c] as number;
      const sum = sums[c] as (typeof sums)[number];
      sum.x += x;
      sum.y += y;
      sum.xx += x * x;
      sum.xy += x * y;
    }
  }
  const unchanged = { gain: 1, offset: 0 };
  if (count < MIN_CORRECTION_PIXELS) return [unchanged, unchanged, unchanged];
  return sums.map((sum) => {
    const meanX = sum.x / count;
    const meanY = sum.y / count;
    const variance = sum.xx / count - meanX * meanX;
    const gain = variance >= MIN_CORRECTION_VARIANCE ? (sum.xy / count - meanX * meanY) / variance : 1;
    if (!(gain >= 1 / MAX_CORRECTION_GAIN && gain <= MAX_CORRECTION_GAIN)) return unchanged;
    return { gain, offset: meanY - gain * meanX };
  });
}
