import { dilate } from "./dilate";
import { ColourHistogram, contains, inset, type Rect, type RgbImage } from "./image";

/**
 * A see-through box drawn over the picture: each channel shows `scale` × the picture behind plus
 * `offset` (the box colour × its opacity). `scale` is 1 − opacity, the same for all channels.
 */
export interface SeeThrough {
  scale: number;
  offset: [number, number, number];
}

/** Opacities outside this range are a solid box (nothing to see through) or no box at all. */
const MIN_SCALE = 0.15;
const MAX_SCALE = 0.85;
/** Pixels from the box's found edge (which has a margin for chroma bleed) to its clean inside. */
const EDGE_BAND = 6;
/** Width of the bands inside and outside the edge whose statistics are compared. */
const SAMPLE_BAND = 8;
/** How far outside what the box could show a pixel must lie to be a letter, not the picture. */
const LETTER_TOLERANCE = 16;
/** Letters found in less than this share of the text's box: they look like the picture, so the whole box goes. */
const MIN_LETTER_SHARE = 0.03;

/**
 * How a box shows the picture behind it, from the band just inside its edge (away from the text)
 * against the band just outside: behind a see-through box the picture keeps its texture, dimmed by
 * the opacity, so the inside band's spread is the outside band's times `scale` and its mean is
 * shifted by the box colour. Null for a solid box or when the bands do not fit that.
 */
export function estimateSeeThrough(image: RgbImage, box: Rect, text: Rect): SeeThrough | null {
  const { width, height, data } = image;
  const inner = inset(box, EDGE_BAND);
  const core = inset(inner, SAMPLE_BAND);
  const outer = inset(box, -SAMPLE_BAND);
  const sums = { inside: [0, 0, 0], outside: [0, 0, 0] };
  const squares = { inside: [0, 0, 0], outside: [0, 0, 0] };
  const counts = { inside: 0, outside: 0 };
  for (let y = Math.max(0, outer.y0); y < Math.min(height, outer.y1); y++) {
    for (let x = Math.max(0, outer.x0); x < Math.min(width, outer.x1); x++) {
      const side = contains(box, x, y)
        ? contains(inner, x, y) && !contains(core, x, y) && !contains(text, x, y)
          ? "inside"
          : null
        : "outside";
      if (!side) continue;
      counts[side]++;
      for (let c = 0; c < 3; c++) {
        const value = data[(y * width + x) * 3 + c] as number;
        sums[side][c] = (sums[side][c] as number) + value;
        squares[side][c] = (squares[side][c] as number) + value * value;
      }
    }
  }
  if (counts.inside < 100 || counts.outside < 100) return null;
  const mean = (side: "inside" | "outside", c: number) => (sums[side][c] as number) / counts[side];
  const variance = (side: "inside" | "outside", c: number) =>
    (squares[side][c] as number) / counts[side] - mean(side, c) ** 2;
  let insideVariance = 0;
  let outsideVariance = 0;
  for (let c = 0; c < 3; c++) {
    insideVariance += variance("inside", c);
    outsideVariance += variance("outside", c);
  }
  // A flat picture shows no texture to measure the opacity by.
  if (outsideVariance < 3 * 25) return null;
  const scale = Math.sqrt(insideVariance / outsideVariance);
  if (!(scale >= MIN_SCALE && scale <= MAX_SCALE)) return null;
  const offset = [0, 1, 2].map((c) => mean("inside", c) - scale * mean("outside", c));
  return { scale, offset: offset as [number, number, number] };
}

/**
 * Sees through a see-through box: inside the box, every pixel the box could have made (not a letter,
 * which the box could not have made, nor the box's edge) is restored in `image` to the picture
 * behind it and set in `behind`: an estimate, noisier than a frame that shows the picture, for the
 * fill to use where no frame does. Letters are grown by `grow`. Returns false, changing nothing,
 * when the letters cannot be told from the picture.
 */
export function seeThroughBox(
  image: RgbImage,
  box: Rect,
  text: Rect,
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
  for (let y = inner.y0; y < inner.y1; y++) {
    for (let x = inner.x0; x < inner.x1; x++) {
      if (grown[(y - box.y0) * boxWidth + (x - box.x0)]) continue;
      const p = y * width + x;
      for (let c = 0; c < 3; c++) data[p * 3 + c] = restore(p, c);
      behind[p] = 255;
    }
  }
  return true;
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
  box: Rect,
  inner: Rect,
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
