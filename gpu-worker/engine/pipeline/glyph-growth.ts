import type { EdgeRect } from "../geometry";
import { luma, type RgbImage } from "./image";

/** Rings just past the largest growth that stand for the picture around the line. */
export const BACKGROUND_RINGS = 3;
/**
 * Luma levels by which a ring's darkest or lightest quarter must pass the background's for the ring
 * to be the text's own (outline, shadow, glow): compression noise and a busy picture stay under it.
 */
const EFFECT_CONTRAST = 10;
/**
 * A ring is an outline (or glow) too where this share of it lies past the background's darkest (or
 * lightest) tenth: over a picture that is dark in places (a dark room beside a face), its darkest
 * quarter is already as dark as a black outline, and the outline's outer pixels stayed on screen.
 */
const TAIL = 0.1;
const OUTLINE_SHARE = 0.4;

/**
 * How far (pixels, 1 or 2 to `largest`) to grow a line's glyphs, marked 255 in `glyphs` (a plane over
 * `canvas`, which has room for `largest` + BACKGROUND_RINGS around the line where the frame
 * allows): one ring past the last ring around them that still carries the text's outline, drop
 * shadow or glow, told by its darkest or lightest quarter of luma standing apart from the
 * background rings', or by most of it lying past their darkest or lightest tenth. The usual fixed
 * growth (12 % of the line's height) took the busy picture around plain letters too: on
 * real-handheld's outlined words over a tree that cost 2 dB of PSNR outside the masks.
 * `softEdgeMarked`: the glyphs were found by their strokes (small letters over a busy picture), a cut
 * that already takes in most of a stroke's soft edge, so the first ring is grown only where it shows
 * an effect too; otherwise it always is. On real-street's see-through handle over a brick wall that
 * took 1.0 dB inside the masks and 0.2 dB outside; letters cut by colour keep the ring (without it,
 * scene-text's large captions lost 0.4 dB).
 */
export function effectGrowth(
  image: RgbImage,
  glyphs: Uint8Array,
  canvas: EdgeRect,
  largest: number,
  softEdgeMarked = false,
): number {
  const width = canvas.x1 - canvas.x0;
  const height = canvas.y1 - canvas.y0;
  const rings = largest + BACKGROUND_RINGS;
  const distance = chessboardDistance(glyphs, width, height, rings + 1);
  // Per ring, a histogram of luma; index 0 holds the background rings.
  const histograms = Array.from({ length: largest + 1 }, () => new Uint32Array(256));
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const ring = distance[y * width + x] as number;
      if (ring === 0 || ring > rings) continue;
      const histogram = histograms[ring > largest ? 0 : ring] as Uint32Array;
      const value = luma(image.data, ((canvas.y0 + y) * image.width + canvas.x0 + x) * 3);
      histogram[value] = (histogram[value] as number) + 1;
    }
  }
  const background = histograms[0] as Uint32Array;
  const darkest = quantile(background, 0.25);
  const lightest = quantile(background, 0.75);
  const darkTail = quantile(background, TAIL);
  const lightTail = quantile(background, 1 - TAIL);
  // Without a background to compare with (a line filling the frame), the largest growth stands.
  if (darkest === undefined || lightest === undefined) return largest;
  let grown = softEdgeMarked ? 0 : 1;
  for (let ring = grown + 1; ring <= largest; ring += 1) {
    const histogram = histograms[ring] as Uint32Array;
    const dark = quantile(histogram, 0.25);
    const light = quantile(histogram, 0.75);
    if (dark === undefined || light === undefined) continue;
    if (dark < darkest - EFFECT_CONTRAST || light > lightest + EFFECT_CONTRAST) grown = ring;
    else if (shareBetween(histogram, 0, darkTail as number) > OUTLINE_SHARE) grown = ring;
    else if (shareBetween(histogram, (lightTail as number) + 1, 256) > OUTLINE_SHARE) grown = ring;
  }
  // One ring more for the last one's own soft edge: without it caption-pan's shadowed captions kept
  // a trace (1.2 dB inside the masks).
  return Math.min(largest, grown + 1);
}

/** The share of a histogram's count from value `from` up to (not including) `to`. */
function shareBetween(histogram: Uint32Array, from: number, to: number): number {
  let total = 0;
  let inside = 0;
  for (let v = 0; v < histogram.length; v += 1) {
    total += histogram[v] as number;
    if (v >= from && v < to) inside += histogram[v] as number;
  }
  return total ? inside / total : 0;
}

/** The value below which `share` of a histogram's count lies; undefined when it is empty. */
function quantile(histogram: Uint32Array, share: number): number | undefined {
  let total = 0;
  for (const count of histogram) total += count;
  if (total === 0) return undefined;
  let below = 0;
  for (let v = 0; v < histogram.length; v += 1) {
    below += histogram[v] as number;
    if (below > share * total) return v;
  }
  return histogram.length - 1;
}

/**
 * Per pixel, the chessboard distance to the nearest set pixel (0 on one), capped at `cap`: two
 * passes over the eight neighbours, the distance a square brush (dilate.ts) grows by.
 */
function chessboardDistance(mask: Uint8Array, width: number, height: number, cap: number): Uint8Array {
  const distance = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i += 1) distance[i] = mask[i] ? 0 : cap;
  // Forward: the neighbours left and above (already final); backward: right and below.
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = y * width + x;
      let best = distance[i] as number;
      if (x > 0) best = Math.min(best, (distance[i - 1] as number) + 1);
      if (y > 0) {
        const above = i - width;
        best = Math.min(best, (distance[above] as number) + 1);
        if (x > 0) best = Math.min(best, (distance[above - 1] as number) + 1);
        if (x < width - 1) best = Math.min(best, (distance[above + 1] as number) + 1);
      }
      distance[i] = best;
    }
  }
  for (let y = height - 1; y >= 0; y -= 1) {
    for (let x = width - 1; x >= 0; x -= 1) {
      const i = y * width + x;
      let best = distance[i] as number;
      if (x < width - 1) best = Math.min(best, (distance[i + 1] as number) + 1);
      if (y < height - 1) {
        const below = i + width;
        best = Math.min(best, (distance[below] as number) + 1);
        if (x > 0) best = Math.min(best, (distance[below - 1] as number) + 1);
        if (x < width - 1) best = Math.min(best, (distance[below + 1] as number) + 1);
      }
      distance[i] = best;
    }
  }
  return distance;
}

/**
 * Marks the holes of `glyphs`, a plane over `canvas` (frame pixels): pixels that no path of unmarked
 * pixels joins to a side of the canvas inside the frame. Those are the inside of letters whose
 * outline alone stood apart by colour, or whose fill the cut missed where the picture around them
 * was cut instead (a fixed growth of 12 % of the line's height used to close them by chance). A
 * letter cut by the frame's edge is closed by that edge: sides on the frame's edge are not the way out.
 */
export function fillHoles(
  glyphs: Uint8Array,
  canvas: EdgeRect,
  frameWidth: number,
  frameHeight: number,
): void {
  const width = canvas.x1 - canvas.x0;
  const height = canvas.y1 - canvas.y0;
  const outside = new Uint8Array(glyphs.length);
  const stack = new Int32Array(glyphs.length);
  let size = 0;
  const reach = (i: number) => {
    if (glyphs[i] || outside[i]) return;
    outside[i] = 1;
    stack[size++] = i;
  };
  for (let x = 0; x < width; x += 1) {
    if (canvas.y0 > 0) reach(x);
    if (canvas.y1 < frameHeight) reach((height - 1) * width + x);
  }
  for (let y = 0; y < height; y += 1) {
    if (canvas.x0 > 0) reach(y * width);
    if (canvas.x1 < frameWidth) reach(y * width + width - 1);
  }
  // A line as wide and tall as the frame has no way out: its holes are not told from the picture.
  if (size === 0) return;
  while (size > 0) {
    const i = stack[--size] as number;
    const x = i % width;
    if (x > 0) reach(i - 1);
    if (x < width - 1) reach(i + 1);
    if (i >= width) reach(i - width);
    if (i < glyphs.length - width) reach(i + width);
  }
  for (let i = 0; i < glyphs.length; i += 1) if (!outside[i]) glyphs[i] = 255;
}
