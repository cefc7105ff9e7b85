import type { EdgeRect } from "../geometry";
import { windowSums } from "../window-sums";
import { dilate } from "./dilate";
import { ColourHistogram, contains, inset, type RgbImage } from "./image";

/**
 * A see-through box drawn over the picture: each channel shows `scale` × the picture behind plus
 * `offset` (the box colour × its opacity). `scale` is 1 − opacity, the same for all channels.
 */
export interface SeeThrough {
  scale: number;
  offset: [number, number, number];
}

/** Opacities outside this range are a solid box (nothing to see through) or no box at all... */
const MIN_SCALE = 0.15;
const MAX_SCALE = 0.85;
/**
 * ...unless the box takes the picture's colour (greyBoxScale): a plate at up to 95 % (a lower third
 * at 92 %) still shows the picture's shapes and colours faintly, where its spread inside is mostly
 * the encoder's noise and says nothing. A solid box takes no colour from the picture, so it is not
 * taken for one. On real-dark-hook's lower third (frame 53, with its true opacity) the picture
 * restored behind it came within 22.6 dB of the truth, 23.5 averaged as below, where the fill of
 * the plate as solid came within 17.0 (Telea 14.7).
 */
const MIN_HEAVY_SCALE = 0.05;
/** Pixels from the box's found edge (which has a margin for chroma bleed) to its clean inside. */
const EDGE_BAND = 6;
/** Width of the bands inside and outside the edge whose statistics are compared. */
const SAMPLE_BAND = 8;
/** How far outside what the box could show a pixel must lie to be a letter, not the picture. */
const LETTER_TOLERANCE = 16;
/** Letters found in less than this share of the text's box: they look like the picture, so the whole box goes. */
const MIN_LETTER_SHARE = 0.03;

/** One stretch of the box's edge: its inside band's samples and their mirror images outside. */
interface Stretch {
  inside: ChannelMoments[];
  outside: ChannelMoments[];
}

/** Length of the stretches of edge judged on their own, in pixels. */
const STRETCH = 48;
/**
 * Fewest pixel pairs a stretch needs to be judged, and all the stretches kept together. A hook's box
 * pads its words by a few pixels, so its top and bottom bands clear of the text's box are a row or
 * two: at 60 pairs only its two ends were judged, and where a lit tower stood across one end the
 * fit of a black box at 50 % over a night sky came out at 0.45 and 8 levels (real-red-band's hook;
 * the line kept it, and restored the sky 20 levels too dark once it dimmed, a dark rectangle).
 */
const MIN_STRETCH_PAIRS = 32;
const MIN_PAIRS = 100;
/** Largest miss (levels) of a stretch's inside mean from the box's fit for the stretch to stay in it. */
const MAX_MEAN_MISS = 10;
/** Fits at most, each without the stretches the one before did not fit. */
const MAX_PASSES = 3;

/**
 * The pixel just outside the box that mirrors an inside-band pixel across the box's nearest edge
 * (the inside band's first row or column pairs with the one just outside, and so on outwards), and
 * which stretch of the edge that is.
 */
function mirrored(box: EdgeRect, x: number, y: number): { x: number; y: number; stretch: string } {
  const toLeft = x - box.x0;
  const toRight = box.x1 - 1 - x;
  const toTop = y - box.y0;
  const toBottom = box.y1 - 1 - y;
  const nearest = Math.min(toLeft, toRight, toTop, toBottom);
  const along = (position: number) => Math.floor(position / STRETCH);
  if (nearest === toTop) return { x, y: box.y0 - 1 - (toTop - EDGE_BAND), stretch: `t${along(x)}` };
  if (nearest === toBottom) return { x, y: box.y1 + (toBottom - EDGE_BAND), stretch: `b${along(x)}` };
  if (nearest === toLeft) return { x: box.x0 - 1 - (toLeft - EDGE_BAND), y, stretch: `l${along(y)}` };
  return { x: box.x1 + (toRight - EDGE_BAND), y, stretch: `r${along(y)}` };
}

/**
 * How a box shows the picture behind it, from the band just inside its edge (away from the text)
 * against the band just outside: behind a see-through box the picture keeps its texture, dimmed by
 * the opacity, so the inside band's spread is the outside band's times `scale` and its mean is
 * shifted by the box colour. Each inside pixel is compared with its mirror image across the nearest
 * edge, so both bands cover the same stretch of picture. Something lying under the box's edge (a
 * person, a parked car) shows inside and not outside and would throw the measure off: the stretches
 * of edge whose means do not fit the box measured on all of them are left out, and it is measured
 * again. Null for a solid box, or when most of the edge fits no one see-through box.
 */
export function estimateSeeThrough(image: RgbImage, box: EdgeRect, text: EdgeRect): SeeThrough | null {
  const { width, height, data } = image;
  const inner = inset(box, EDGE_BAND);
  const core = inset(inner, SAMPLE_BAND);
  const stretches = new Map<string, Stretch>();
  for (let y = Math.max(0, inner.y0); y < Math.min(height, inner.y1); y++) {
    for (let x = Math.max(0, inner.x0); x < Math.min(width, inner.x1); x++) {
      if (contains(core, x, y) || contains(text, x, y)) continue;
      const pair = mirrored(box, x, y);
      if (pair.x < 0 || pair.y < 0 || pair.x >= width || pair.y >= height) continue;
      let stretch = stretches.get(pair.stretch);
      if (!stretch) {
        stretch = { inside: channelMoments(), outside: channelMoments() };
        stretches.set(pair.stretch, stretch);
      }
      const here = (y * width + x) * 3;
      const there = (pair.y * width + pair.x) * 3;
      for (let c = 0; c < 3; c++) {
        (stretch.inside[c] as ChannelMoments).add(data[here + c] as number);
        (stretch.outside[c] as ChannelMoments).add(data[there + c] as number);
      }
    }
  }
  const all = [...stretches.values()].filter((stretch) =>
    stretch.inside.every((m) => m.count >= MIN_STRETCH_PAIRS),
  );
  // Something of another colour along a stretch of the edge (a lower third's accent bar, inside the
  // box found) can spoil the fit of the whole box: then it is fitted again on the stretches that look
  // alike inside.
  const alike = alikeInside(all);
  return fitStretches(all, all) ?? (alike.length < all.length ? fitStretches(alike, all) : null);
}

/**
 * The box that the stretches `from` (of `all`) fit: fitted on them all, then again without those it
 * does not fit; null where no plausible box fits more than half of `all`.
 */
function fitStretches(from: Stretch[], all: Stretch[]): SeeThrough | null {
  let kept = from;
  if (kept.length * 2 <= all.length) return null;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const found = stretchEstimate(pooled(kept));
    if (!found || !plausible(found)) return null;
    const { estimate } = found;
    const fitting = kept.filter((stretch) => meanMiss(stretch, estimate) <= MAX_MEAN_MISS);
    if (fitting.length === kept.length) return estimate;
    // Most of the edge does not fit any one box: not a see-through box.
    if (fitting.length * 2 <= all.length) return null;
    kept = fitting;
  }
  return null;
}

/** The stretches' samples together. */
function pooled(stretches: Stretch[]): Stretch {
  const together = { inside: channelMoments(), outside: channelMoments() };
  for (const stretch of stretches) {
    for (let c = 0; c < 3; c++) {
      (together.inside[c] as ChannelMoments).merge(stretch.inside[c] as ChannelMoments);
      (together.outside[c] as ChannelMoments).merge(stretch.outside[c] as ChannelMoments);
    }
  }
  return together;
}

/** How far (levels, worst channel) a stretch's inside mean lies from what the box makes of its outside mean. */
function meanMiss({ inside, outside }: Stretch, { scale, offset }: SeeThrough): number {
  let miss = 0;
  for (let c = 0; c < 3; c++) {
    const made = scale * (outside[c] as ChannelMoments).mean() + (offset[c] as number);
    miss = Math.max(miss, Math.abs((inside[c] as ChannelMoments).mean() - made));
  }
  return miss;
}

/** Largest difference (levels, any channel) of a stretch's inside mean from the stretches' median for alikeInside. */
const ALIKE_INSIDE = 24;

/** The stretches whose inside mean lies near the median of all theirs, on every channel. */
function alikeInside(stretches: Stretch[]): Stretch[] {
  const medians = [0, 1, 2].map((c) => {
    const means = stretches.map(({ inside }) => (inside[c] as ChannelMoments).mean()).sort((a, b) => a - b);
    return means[means.length >> 1] ?? 0;
  });
  return stretches.filter(({ inside }) =>
    inside.every((moments, c) => Math.abs(moments.mean() - (medians[c] as number)) <= ALIKE_INSIDE),
  );
}

/** Whether a box of this scale shows the picture: one between solid and none, or a heavy plate that takes its colour. */
function plausible({ estimate: { scale }, byColour }: { estimate: SeeThrough; byColour: boolean }): boolean {
  return scale <= MAX_SCALE && (scale >= MIN_SCALE || (byColour && scale >= MIN_HEAVY_SCALE));
}

/**
 * The box as a stretch (or pooled stretches) shows it, and whether its scale came from the picture's
 * colour; null with a flat picture.
 */
function stretchEstimate({ inside, outside }: Stretch): { estimate: SeeThrough; byColour: boolean } | null {
  if (inside.some((moments) => moments.count < MIN_PAIRS)) return null;
  const insideVariance = inside.reduce((sum, moments) => sum + moments.variance(), 0);
  const outsideVariance = outside.reduce((sum, moments) => sum + moments.variance(), 0);
  // A flat picture shows no texture to measure the opacity by.
  if (outsideVariance < 3 * 25) return null;
  const insideMeans = inside.map((moments) => moments.mean());
  const outsideMeans = outside.map((moments) => moments.mean());
  const byColour = greyBoxScale(insideMeans, outsideMeans);
  const scale = byColour ?? Math.sqrt(insideVariance / outsideVariance);
  const offset = [0, 1, 2].map((c) => (insideMeans[c] as number) - scale * (outsideMeans[c] as number));
  return { estimate: { scale, offset: offset as [number, number, number] }, byColour: byColour !== null };
}

function channelMoments(): ChannelMoments[] {
  return [new ChannelMoments(), new ChannelMoments(), new ChannelMoments()];
}

/** Least colourfulness (levels from grey, over the three channels) of the picture for greyBoxScale to use it. */
const MIN_PICTURE_CHROMA = 24;
/** Largest miss (levels) of the grey-box fit on any channel's mean for it to be believed. */
const GREY_FIT_TOLERANCE = 4;

/**
 * The scale of a grey box (black, white or grey, as nearly all caption boxes are), from the bands'
 * mean colours: a grey box adds the same to every channel, so the picture's colour (each mean
 * less the mean of the three) comes through multiplied by the scale alone. Means survive the
 * encoder, where fine texture inside the dimmed box is partly lost, which biases the spread-based
 * estimate low. Null when the picture is too grey to tell, or the means do not fit a grey box: a
 * scale at or below 0 takes away more than all of the picture (a blue band's means fit a grey box at
 * -2.4); one that leaves little of it (a plate at 85 %) stands.
 */
function greyBoxScale(insideMeans: number[], outsideMeans: number[]): number | null {
  const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const outsideGrey = average(outsideMeans);
  const insideGrey = average(insideMeans);
  let along = 0;
  let chroma = 0;
  for (let c = 0; c < 3; c++) {
    const outsideColour = (outsideMeans[c] as number) - outsideGrey;
    along += ((insideMeans[c] as number) - insideGrey) * outsideColour;
    chroma += outsideColour * outsideColour;
  }
  if (chroma < MIN_PICTURE_CHROMA ** 2) return null;
  const scale = along / chroma;
  const offset = insideGrey - scale * outsideGrey;
  const miss = Math.max(
    ...[0, 1, 2].map((c) =>
      Math.abs((insideMeans[c] as number) - scale * (outsideMeans[c] as number) - offset),
    ),
  );
  return miss <= GREY_FIT_TOLERANCE && scale > 0 ? scale : null;
}

/** Count, mean and variance of one channel's samples. */
export class ChannelMoments {
  count = 0;
  private sum = 0;
  private squares = 0;

  merge(other: ChannelMoments): void {
    this.count += other.count;
    this.sum += other.sum;
    this.squares += other.squares;
  }

  add(value: number): void {
    this.count++;
    this.sum += value;
    this.squares += value * value;
  }

  mean(): number {
    return this.sum / this.count;
  }

  variance(): number {
    return this.squares / this.count - this.mean() ** 2;
  }
}

/**
 * What `behind` holds at a restored pixel: RESTORED_HEAVY behind a heavy plate (scale under
 * MIN_SCALE), whose restoration is a blurred and noisier estimate that any frame showing the picture
 * beats, however far (fill/behind.ts); RESTORED behind any other see-through box.
 */
export const RESTORED = 255;
export const RESTORED_HEAVY = 128;

/**
 * Sees through a see-through box: inside the box, every pixel the box could have made (not a letter,
 * which the box could not have made, nor the box's edge) is restored in `image` to the picture
 * behind it and set in `behind` (RESTORED, or RESTORED_HEAVY behind a heavy plate, whose picture is
 * averaged over the pixels around: smoothingRadius): an estimate, noisier than a frame that shows
 * the picture, for the fill to use where no frame does. Letters are grown by `grow`. Returns false,
 * changing nothing, when the letters cannot be told from the picture.
 */
export function seeThroughBox(
  image: RgbImage,
  box: EdgeRect,
  text: EdgeRect,
  blend: SeeThrough,
  behind: Uint8Array,
  grow: number,
): boolean {
  const { width, data } = image;
  const boxWidth = box.x1 - box.x0;
  const boxHeight = box.y1 - box.y0;
  const letters = new Uint8Array(boxWidth * boxHeight);
  let letterCount = 0;
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      const at = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const low = blend.offset[c] as number;
        const value = data[at + c] as number;
        if (value < low - LETTER_TOLERANCE || value > low + 255 * blend.scale + LETTER_TOLERANCE) {
          letters[(y - box.y0) * boxWidth + (x - box.x0)] = 255;
          if (contains(text, x, y)) letterCount++;
          break;
        }
      }
    }
  }
  if (letterCount < MIN_LETTER_SHARE * (text.x1 - text.x0) * (text.y1 - text.y0)) return false;
  const inner = inset(box, EDGE_BAND);
  const restore = (p: number, c: number) =>
    Math.max(
      0,
      Math.min(255, Math.round(((data[p * 3 + c] as number) - (blend.offset[c] as number)) / blend.scale)),
    );
  markHalo(letters, box, inner, width, restore, Math.max(3, Math.round(0.12 * (text.y1 - text.y0))));
  const grown = dilate(letters, boxWidth, boxHeight, grow);
  const clear = (x: number, y: number) => !grown[(y - box.y0) * boxWidth + (x - box.x0)];
  const radius = smoothingRadius(blend.scale);
  const restored = radius > 0 ? averagedRestore(image, inner, clear, restore, radius) : restore;
  const mark = blend.scale < MIN_SCALE ? RESTORED_HEAVY : RESTORED;
  for (let y = inner.y0; y < inner.y1; y++) {
    for (let x = inner.x0; x < inner.x1; x++) {
      if (!clear(x, y)) continue;
      const p = y * width + x;
      for (let c = 0; c < 3; c++) data[p * 3 + c] = restored(p, c);
      behind[p] = mark;
    }
  }
  restoreEdgeBand(image, { box, inner, grown }, behind, restore, mark);
  return true;
}

/**
 * The restored picture's noise is the encoder's times 1 / scale (12 times under a plate at 92 %):
 * behind a heavy plate each restored pixel is the mean of those around it, over a square wide enough
 * to bring that down to about this many times the encoder's. Lighter boxes are restored pixel by
 * pixel.
 */
const NOISE_GAIN_KEPT = 3;

/** The radius of the square restored pixels are averaged over behind a box of this scale. */
function smoothingRadius(scale: number): number {
  return scale >= MIN_SCALE ? 0 : Math.max(0, Math.ceil((1 / scale / NOISE_GAIN_KEPT - 1) / 2));
}

/**
 * `restore` averaged: at a clear pixel of `inner`, the mean of the clear pixels' restorations within
 * `radius` (a square), rounded; read before `image` is written.
 */
function averagedRestore(
  image: RgbImage,
  inner: EdgeRect,
  clear: (x: number, y: number) => boolean,
  restore: (pixel: number, channel: number) => number,
  radius: number,
): (pixel: number, channel: number) => number {
  const innerWidth = Math.max(0, inner.x1 - inner.x0);
  const innerHeight = Math.max(0, inner.y1 - inner.y0);
  // Per channel, the restorations of the clear pixels (0 elsewhere); then how many are clear.
  const planes = [0, 1, 2, 3].map(() => new Float32Array(innerWidth * innerHeight));
  for (let y = 0; y < innerHeight; y++) {
    for (let x = 0; x < innerWidth; x++) {
      if (!clear(inner.x0 + x, inner.y0 + y)) continue;
      const p = (inner.y0 + y) * image.width + inner.x0 + x;
      for (let c = 0; c < 3; c++) (planes[c] as Float32Array)[y * innerWidth + x] = restore(p, c);
      (planes[3] as Float32Array)[y * innerWidth + x] = 1;
    }
  }
  const [red, green, blue, count] = planes.map((plane) =>
    windowSums(plane, innerWidth, innerHeight, radius),
  ) as [Float32Array, Float32Array, Float32Array, Float32Array];
  const sums = [red, green, blue];
  return (pixel, channel) => {
    const x = (pixel % image.width) - inner.x0;
    const at = (Math.floor(pixel / image.width) - inner.y0) * innerWidth + x;
    return Math.round(((sums[channel] as Float32Array)[at] as number) / (count[at] as number));
  };
}

/**
 * Largest difference (levels, any channel) between neighbours across which the edge band is given
 * back: from the inside out, an edge pixel restored and the restored pixel inward of it; from the
 * outside in, an edge pixel and the picture's pixel beside it outside. Past the box's true edge a
 * pixel restores to the picture brightened by 1 / scale (2.2 times under black at 0.55), and inside
 * it a pixel is that much darker than the picture beside the box: both far off, where the picture's
 * own steps between neighbours mostly stay under it. Measured at 8, 12, 20 and 30 (inside the masks):
 * real-street +0.57, +0.86, +0.99 and +1.00 dB, real-portrait -0.01, -0.01, -0.07 and -0.22 dB, its
 * flicker 0.11, 0.13, 0.16 and 0.21 (0.12 before): its hook's box lies on a moving face, where a
 * looser test restores rim pixels its neighbours' frames fill more steadily.
 */
const EDGE_CONTINUITY = 12;

/**
 * Gives back the box's edge band (between `box` and `inner`: the found edge has a margin for the
 * colour's bleed, and the box's true edge lies somewhere in it), in each column of the top and bottom
 * bands and each row of the side bands: from the outside in, the pixels that continue the picture
 * beside the box, as they are (the box does not reach them); from the inside out, the pixels whose
 * restoration continues the restored one inward of it. Left to the fill, the whole band was
 * inpainted from the picture outside and the restored one inside, and what lay across the edge came
 * out cut flat with a soft glow over it (real-street's cloth lying across its band's top edge: the
 * band's true edge 3 px inside the one found, and the 3 px above it the picture as it was).
 */
function restoreEdgeBand(
  image: RgbImage,
  { box, inner, grown }: { box: EdgeRect; inner: EdgeRect; grown: Uint8Array },
  behind: Uint8Array,
  restore: (pixel: number, channel: number) => number,
  mark: number,
): void {
  const { width, height, data } = image;
  const boxWidth = box.x1 - box.x0;
  const restored = [0, 0, 0];
  // Each band: along which axis it runs, its span along it, and the line it starts from going out.
  const bands = [
    { rows: true, span: [inner.x0, inner.x1], first: inner.y0 - 1, last: box.y0, step: -1 },
    { rows: true, span: [inner.x0, inner.x1], first: inner.y1, last: box.y1 - 1, step: 1 },
    { rows: false, span: [inner.y0, inner.y1], first: inner.x0 - 1, last: box.x0, step: -1 },
    { rows: false, span: [inner.y0, inner.y1], first: inner.x1, last: box.x1 - 1, step: 1 },
  ];
  for (const { rows, span, first, last, step } of bands) {
    for (let along = span[0] as number; along < (span[1] as number); along++) {
      // From the outside in: pixels the box does not reach, as the picture beside the box shows.
      for (let into = last; (first - into) * step <= 0; into -= step) {
        const x = rows ? along : into;
        const y = rows ? into : along;
        const p = y * width + x;
        const outwardX = rows ? x : x + step;
        const outwardY = rows ? y + step : y;
        if (outwardX < 0 || outwardY < 0 || outwardX >= width || outwardY >= height) break;
        const outward = outwardY * width + outwardX;
        if (grown[(y - box.y0) * boxWidth + (x - box.x0)]) break;
        let apart = 0;
        for (let c = 0; c < 3; c++) {
          apart = Math.max(apart, Math.abs((data[p * 3 + c] as number) - (data[outward * 3 + c] as number)));
        }
        if (apart > EDGE_CONTINUITY) break;
        behind[p] = mark;
      }
      for (let out = first; (out - last) * step <= 0; out += step) {
        const x = rows ? along : out;
        const y = rows ? out : along;
        const p = y * width + x;
        const inward = rows ? p - step * width : p - step;
        if (!behind[inward] || grown[(y - box.y0) * boxWidth + (x - box.x0)]) break;
        let apart = 0;
        for (let c = 0; c < 3; c++) {
          restored[c] = restore(p, c);
          apart = Math.max(apart, Math.abs((restored[c] as number) - (data[inward * 3 + c] as number)));
        }
        if (apart > EDGE_CONTINUITY) break;
        for (let c = 0; c < 3; c++) data[p * 3 + c] = restored[c] as number;
        behind[p] = mark;
      }
    }
  }
}

/** Share of the picture's restored values, at each end, that the halo test counts as outliers. */
const PICTURE_PERCENTILE = 0.02;
/** Levels past the picture's restored range a pixel near the letters must lie to be their halo. */
const HALO_MARGIN = 12;
/** Fewest pixels away from the letters for their restored range to be trusted. */
const MIN_PICTURE_PIXELS = 200;

/**
 * Adds to `letters` their faint rim: near a letter, a pixel only partly covered by its anti-aliased
 * edge is within what the box could make, but restored (divided by the box's scale) its bit of
 * letter colour is magnified into a bright or dark outline of the letter. Such a pixel restores to
 * a colour outside the range the picture restores to away from the letters, and is a letter too.
 */
function markHalo(
  letters: Uint8Array,
  box: EdgeRect,
  inner: EdgeRect,
  width: number,
  restore: (pixel: number, channel: number) => number,
  reach: number,
): void {
  const boxWidth = box.x1 - box.x0;
  const near = dilate(letters, boxWidth, box.y1 - box.y0, reach);
  const picture = new ColourHistogram();
  for (let y = inner.y0; y < inner.y1; y++) {
    for (let x = inner.x0; x < inner.x1; x++) {
      if (near[(y - box.y0) * boxWidth + (x - box.x0)]) continue;
      const p = y * width + x;
      picture.add(restore(p, 0), restore(p, 1), restore(p, 2));
    }
  }
  if (picture.count < MIN_PICTURE_PIXELS) return;
  const low = picture.percentile(PICTURE_PERCENTILE).map((value) => value - HALO_MARGIN);
  const high = picture.percentile(1 - PICTURE_PERCENTILE).map((value) => value + HALO_MARGIN);
  for (let y = inner.y0; y < inner.y1; y++) {
    for (let x = inner.x0; x < inner.x1; x++) {
      const at = (y - box.y0) * boxWidth + (x - box.x0);
      if (!near[at] || letters[at]) continue;
      for (let c = 0; c < 3; c++) {
        const value = restore(y * width + x, c);
        if (value < (low[c] as number) || value > (high[c] as number)) {
          letters[at] = 255;
          break;
        }
      }
    }
  }
}
