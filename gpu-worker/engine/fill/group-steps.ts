import { kthSmallest } from "./select";

/**
 * The step in light between two of a crop's groups (CropWork.groups) where their pixels meet, for
 * the seam blend: per channel, the median over the seam of the fill's step from one group's pixel to
 * the other's beside it, less the step the picture takes there, read inside each group just behind
 * the seam (the mean of the steps from the pixel before each side's pixel, along the same line). The
 * light of two frames differs by about the same amount all along a seam; the picture's own steps are
 * what each group shows beside it, and an edge along part of the seam differs from the rest of it.
 * Taking out every step at such seams (as between made-up patches) flattened what crossed them
 * (real-red-band's band lost 0.9 dB); taking out the median of the steps alone bent gradients whose
 * seams follow the picture (slide-cta lost 2.6 dB, real-words-windows 1.8): the median is taken out
 * only where the steps agree (lightStep).
 */
export class GroupSteps {
  /** Per pair of groups (lower first), the steps in light from the lower group to the higher, three to a seam pixel. */
  private readonly steps = new Map<number, number[]>();
  private readonly medians = new Map<number, Float32Array>();

  /**
   * Notes the seam from crop pixel `i` (of group `from`) to crop pixel `j` (of group `to`, a later
   * group: each seam is noted once, from its lower group) beside it; `before`: the pixel on i's other
   * side if it is of i's group, else -1; `after`: the pixel past j, if it is of j's group, else -1.
   */
  add(
    fill: Float32Array,
    from: number,
    i: number,
    to: number,
    j: number,
    before: number,
    after: number,
  ): void {
    const key = pairKey(from, to);
    let steps = this.steps.get(key);
    if (!steps) {
      steps = [];
      this.steps.set(key, steps);
    }
    const sides = (before >= 0 ? 1 : 0) + (after >= 0 ? 1 : 0);
    for (let c = 0; c < 3; c += 1) {
      let picture = 0;
      if (before >= 0) picture += (fill[i * 3 + c] as number) - (fill[before * 3 + c] as number);
      if (after >= 0) picture += (fill[after * 3 + c] as number) - (fill[j * 3 + c] as number);
      const step = (fill[j * 3 + c] as number) - (fill[i * 3 + c] as number);
      steps.push(step - (sides > 0 ? picture / sides : 0));
    }
  }

  /** The step in light from group `from` to group `to` in `channel` (0 for a pair never noted, or not one step). */
  between(from: number, to: number, channel: number): number {
    const key = from < to ? pairKey(from, to) : pairKey(to, from);
    let medians = this.medians.get(key);
    if (!medians) {
      medians = lightStep(this.steps.get(key) ?? []);
      this.medians.set(key, medians);
    }
    return (from < to ? 1 : -1) * (medians[channel] as number);
  }
}

/**
 * Seam pixels below which a pair's steps say nothing: where two groups touch at a pixel or three,
 * their steps are the picture's texture (on slide-cta such medians ran to 60 levels). 4 kept
 * slide-cta, vertical-words and real-portrait 0.03 to 0.11 dB above 8.
 */
const MIN_SEAM = 4;
/**
 * How many times the steps' spread (their median distance from the median, in grey) the median
 * step must be for a step in light: one frame's light differs from another's by the same amount
 * all along a seam (real-red-band's sky: 4.9 levels, give or take 0.1), where steps that come from
 * the picture's texture or a slight misalignment spread as wide as they are large.
 */
const MIN_STEP_OVER_SPREAD = 2;

/**
 * Largest step in light (grey levels) between two frames' pixels: the light of a shot drifts by a
 * few levels to a dozen or two, while larger steps that agree along a seam are the picture: a
 * sliding button in one group and the scene in the other (slide-cta: 60 to 145 levels).
 */
const MAX_LIGHT_STEP = 20;

/** The median of each channel's steps (three to a seam pixel), or none where they are not one step in light. */
function lightStep(steps: number[]): Float32Array {
  const count = steps.length / 3;
  const step = new Float32Array(3);
  if (count < MIN_SEAM) return step;
  const channel = (c: number) => Float32Array.from({ length: count }, (_, k) => steps[k * 3 + c] as number);
  const grey = Float32Array.from(
    { length: count },
    (_, k) => ((steps[k * 3] as number) + (steps[k * 3 + 1] as number) + (steps[k * 3 + 2] as number)) / 3,
  );
  const greyStep = median(grey);
  const spread = median(grey.map((value) => Math.abs(value - greyStep)));
  if (Math.abs(greyStep) < MIN_STEP_OVER_SPREAD * spread || Math.abs(greyStep) > MAX_LIGHT_STEP) return step;
  for (let c = 0; c < 3; c += 1) step[c] = median(channel(c));
  return step;
}

/** The middle value (the upper of the two middle ones for an even count); reorders `values`. */
function median(values: Float32Array): number {
  return kthSmallest(values, values.length, values.length >> 1);
}

/** One number per pair of groups: a crop has far fewer than 2^16 (CropWork.group is a Uint16Array). */
function pairKey(low: number, high: number): number {
  return low * 0x10000 + high;
}
