import { dilate } from "./dilate";
import { estimateSeeThrough, type SeeThrough, seeThroughBox } from "./see-through";
import type { Box } from "./tracks";

export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function clampRect(box: Box, pad: number, width: number, height: number): Rect {
  return {
    x0: Math.max(0, Math.floor(box.x - pad)),
    y0: Math.max(0, Math.floor(box.y - pad)),
    x1: Math.min(width, Math.ceil(box.x + box.width + pad)),
    y1: Math.min(height, Math.ceil(box.y + box.height + pad)),
  };
}

function inside(rect: Rect, x: number, y: number): boolean {
  return x >= rect.x0 && x < rect.x1 && y >= rect.y0 && y < rect.y1;
}

/** Per-channel median of the pixels of `area` that lie outside `hole`. */
function ringMedian(image: RgbImage, area: Rect, hole: Rect): [number, number, number] {
  const histograms = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  let count = 0;
  for (let y = area.y0; y < area.y1; y++) {
    for (let x = area.x0; x < area.x1; x++) {
      if (inside(hole, x, y)) continue;
      const i = (y * image.width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const histogram = histograms[c] as Uint32Array;
        const value = image.data[i + c] as number;
        histogram[value] = (histogram[value] as number) + 1;
      }
      count++;
    }
  }
  return histograms.map((histogram) => {
    let seen = 0;
    for (let v = 0; v < 256; v++) {
      seen += histogram[v] as number;
      if (seen * 2 >= count) return v;
    }
    return 0;
  }) as [number, number, number];
}

/** Pixels the glyphs are grown by to take their outline, shadow and anti-aliased edge. */
function glyphGrowth(box: Box): number {
  return Math.max(2, Math.round(box.height * 0.12));
}

/** Otsu's threshold of a histogram: the cut that best splits it in two classes. */
function otsu(histogram: Uint32Array, total: number): number {
  let sum = 0;
  for (let v = 0; v < histogram.length; v++) sum += v * (histogram[v] as number);
  let sumBelow = 0;
  let below = 0;
  let best = 0;
  let bestVariance = -1;
  for (let v = 0; v < histogram.length; v++) {
    below += histogram[v] as number;
    if (below === 0) continue;
    const above = total - below;
    if (above === 0) break;
    sumBelow += v * (histogram[v] as number);
    const meanBelow = sumBelow / below;
    const meanAbove = (sum - sumBelow) / above;
    const variance = below * above * (meanBelow - meanAbove) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = v;
    }
  }
  return best;
}

const MIN_GLYPH_CONTRAST = 28;

/**
 * What the earlier frames of one line showed of its shaded box, so every frame of the line gets
 * the same answer: a box found on some frames and missed on others (its edge against a background
 * of the same brightness) would leave the box on the frames it was missed on.
 */
export interface LineLook {
  /** The union of the boxes found so far, placed as if the text's centre were at `centre`. */
  box?: Rect;
  centre?: { x: number; y: number };
  found: number;
  checks: number;
  /** How the box shows the picture behind it, averaged over its first frames; null: it is solid. */
  seeThrough?: SeeThrough | null;
  seeThroughSamples?: SeeThrough[];
}

export function newLineLook(): LineLook {
  return { found: 0, checks: 0 };
}

/** Frames a line is searched for a box before it is taken to have none. */
const BOX_CHECKS = 8;
/**
 * Text boxes read on different frames of a still line differ by a few pixels: a shift of the text's
 * centre below this is such jitter and leaves the box where it was found.
 */
const CENTRE_JITTER = 8;

function centreOf(rect: Rect): { x: number; y: number } {
  return { x: (rect.x0 + rect.x1) / 2, y: (rect.y0 + rect.y1) / 2 };
}

/** The remembered box moved with the text (a sliding line), or left in place when the text did not move. */
function placedBox(look: LineLook, textRect: Rect, image: RgbImage): Rect | null {
  const { box, centre } = look;
  if (!box || !centre) return null;
  const now = centreOf(textRect);
  const shift = (d: number) => (Math.abs(d) < CENTRE_JITTER ? 0 : Math.round(d));
  const dx = shift(now.x - centre.x);
  const dy = shift(now.y - centre.y);
  return {
    x0: Math.max(0, box.x0 + dx),
    y0: Math.max(0, box.y0 + dy),
    x1: Math.min(image.width, box.x1 + dx),
    y1: Math.min(image.height, box.y1 + dy),
  };
}

/** The line's box on this frame: searched for until found twice (or never in the first frames), then remembered. */
function rememberedBox(image: RgbImage, box: Box, textRect: Rect, look: LineLook): Rect | null {
  const searching = look.found < 2 && !(look.found === 0 && look.checks >= BOX_CHECKS);
  if (!searching) return look.found >= 2 ? placedBox(look, textRect, image) : null;
  look.checks++;
  const found = shadedBox(image, box, textRect);
  if (!found) return null;
  const known = placedBox(look, textRect, image);
  look.box = known ? unionRect(known, found) : found;
  look.centre = centreOf(textRect);
  look.found++;
  return look.box;
}

/** Frames of a line whose see-through estimates are averaged before the line keeps one for good. */
const SEE_THROUGH_SAMPLES = 3;

/**
 * The line's see-through box, the same on every frame (a per-frame estimate would make the restored
 * picture flicker): the mean of the first frames' estimates, or null when any of them found the box
 * solid.
 */
function lineSeeThrough(image: RgbImage, shaded: Rect, textRect: Rect, look: LineLook): SeeThrough | null {
  if (look.seeThrough !== undefined) return look.seeThrough;
  const estimate = estimateSeeThrough(image, shaded, textRect);
  const samples = [...(look.seeThroughSamples ?? []), ...(estimate ? [estimate] : [])];
  look.seeThroughSamples = samples;
  if (!estimate) look.seeThrough = null;
  else if (samples.length >= SEE_THROUGH_SAMPLES) {
    const mean = (pick: (blend: SeeThrough) => number) =>
      samples.reduce((sum, blend) => sum + pick(blend), 0) / samples.length;
    look.seeThrough = {
      scale: mean((blend) => blend.scale),
      offset: [0, 1, 2].map((c) => mean((blend) => blend.offset[c] as number)) as [number, number, number],
    };
  }
  return look.seeThrough ?? estimate;
}

function unionRect(a: Rect, b: Rect): Rect {
  return {
    x0: Math.min(a.x0, b.x0),
    y0: Math.min(a.y0, b.y0),
    x1: Math.max(a.x1, b.x1),
    y1: Math.max(a.y1, b.y1),
  };
}

/**
 * Marks the glyphs of one text line (not its whole box): pixels inside the box whose colour stands
 * apart from the background around the box (Otsu's cut on the distance), grown by a few pixels to
 * take the outline, shadow and anti-aliased edge. A caption drawn on its own shaded box gets the
 * whole box marked, since the box is part of the overlay; with `behind` (which gives the frame's
 * array, made when first needed), the picture behind a see-through box is also restored in `image`
 * and marked there, for the fill to use where no frame shows more. `look` carries what the line's earlier frames showed. Returns the number of
 * pixels marked in `mask`.
 */
export function markTextLine(
  image: RgbImage,
  box: Box,
  mask: Uint8Array,
  look?: LineLook,
  behind?: () => Uint8Array,
): number {
  const { width, height, data } = image;
  const textRect = clampRect(box, 0, width, height);
  const pad = Math.max(2, Math.round(box.height * 0.35));
  const around = clampRect(box, pad, width, height);
  if (textRect.x1 <= textRect.x0 || textRect.y1 <= textRect.y0) return 0;
  const shaded = look ? rememberedBox(image, box, textRect, look) : shadedBox(image, box, textRect);
  if (shaded) {
    const blend = look && behind && lineSeeThrough(image, shaded, textRect, look);
    if (blend && behind) seeThroughBox(image, shaded, textRect, blend, behind(), glyphGrowth(box));
    return fillRect(mask, width, shaded);
  }
  const background = ringMedian(image, around, textRect);
  const boxWidth = textRect.x1 - textRect.x0;
  const distances = new Uint8Array(boxWidth * (textRect.y1 - textRect.y0));
  const histogram = new Uint32Array(256);
  for (let y = textRect.y0; y < textRect.y1; y++) {
    for (let x = textRect.x0; x < textRect.x1; x++) {
      const i = (y * width + x) * 3;
      const d = Math.max(
        Math.abs((data[i] as number) - background[0]),
        Math.abs((data[i + 1] as number) - background[1]),
        Math.abs((data[i + 2] as number) - background[2]),
      );
      distances[(y - textRect.y0) * boxWidth + (x - textRect.x0)] = d;
      histogram[d] = (histogram[d] as number) + 1;
    }
  }
  const cut = Math.max(otsu(histogram, distances.length), MIN_GLYPH_CONTRAST);
  const grow = glyphGrowth(box);
  // The glyphs on a local canvas with room for the growth, grown there, then added to the mask.
  const canvas = clampRect(box, grow, width, height);
  const canvasWidth = canvas.x1 - canvas.x0;
  const canvasHeight = canvas.y1 - canvas.y0;
  const glyphs = new Uint8Array(canvasWidth * canvasHeight);
  for (let y = textRect.y0; y < textRect.y1; y++) {
    for (let x = textRect.x0; x < textRect.x1; x++) {
      if ((distances[(y - textRect.y0) * boxWidth + (x - textRect.x0)] as number) > cut) {
        glyphs[(y - canvas.y0) * canvasWidth + (x - canvas.x0)] = 255;
      }
    }
  }
  const grown = dilate(glyphs, canvasWidth, canvasHeight, grow);
  let marked = 0;
  for (let y = 0; y < canvasHeight; y++) {
    for (let x = 0, at = (canvas.y0 + y) * width + canvas.x0; x < canvasWidth; x++, at++) {
      if (grown[y * canvasWidth + x] && mask[at] !== 255) {
        mask[at] = 255;
        marked++;
      }
    }
  }
  return marked;
}

function fillRect(mask: Uint8Array, width: number, rect: Rect): number {
  let marked = 0;
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let x = rect.x0; x < rect.x1; x++) {
      if (mask[y * width + x] !== 255) {
        mask[y * width + x] = 255;
        marked++;
      }
    }
  }
  return marked;
}

/** Colour change (largest channel difference) above which a pixel steps across an edge. */
const EDGE_STEP = 12;
/** Pixels this close (largest channel difference) to the line's mean colour count as the box's solid fill. */
const SOLID_TOLERANCE = 16;

/**
 * Share of the pixels along a row (or column) segment that step in colour from the line beyond it,
 * when the steps look like a box's edge: a darker or lighter see-through box steps the same way in
 * brightness all along, and a solid box has one colour along its edge whatever lies behind it.
 * Texture steps back and forth and is not uniform, and scores 0.
 */
function edgeStrength(
  image: RgbImage,
  horizontal: boolean,
  at: number,
  from: number,
  to: number,
  inward: number,
): number {
  const { data, width } = image;
  const count = Math.max(1, to - from);
  const pixel = (t: number, offset: number) =>
    ((horizontal ? (at - offset) * width + t : t * width + at - offset) * 3) as number;
  const mean = [0, 0, 0];
  for (let t = from; t < to; t++) {
    const i = pixel(t, 0);
    for (let c = 0; c < 3; c++) mean[c] = (mean[c] as number) + (data[i + c] as number) / count;
  }
  let stepping = 0;
  let sign = 0;
  let solid = 0;
  for (let t = from; t < to; t++) {
    const i = pixel(t, 0);
    const o = pixel(t, inward);
    let step = 0;
    let offMean = 0;
    let brighter = 0;
    for (let c = 0; c < 3; c++) {
      const here = data[i + c] as number;
      const difference = here - (data[o + c] as number);
      step = Math.max(step, Math.abs(difference));
      brighter += (LUMA[c] as number) * difference;
      offMean = Math.max(offMean, Math.abs(here - (mean[c] as number)));
    }
    if (step > EDGE_STEP) {
      stepping++;
      sign += Math.sign(brighter);
    }
    if (offMean <= SOLID_TOLERANCE) solid++;
  }
  const boxLike = Math.abs(sign) / count > 0.6 || solid / count > 0.85;
  return boxLike ? stepping / count : 0;
}

const LUMA = [0.299, 0.587, 0.114] as const;

/** The strongest box edge between `near` (just outside the text) and `far` (a line height beyond). */
function findEdge(
  image: RgbImage,
  horizontal: boolean,
  near: number,
  far: number,
  from: number,
  to: number,
): number | null {
  const direction = far > near ? 1 : -1;
  let best: number | null = null;
  let bestStrength = 0.7;
  for (let at = near; direction > 0 ? at <= far : at >= far; at += direction) {
    const inside = at - direction; // the edge is between `inside` (box) and `at` (outside)
    if (at < 1 || inside < 1 || at >= (horizontal ? image.height : image.width) - 1) break;
    const strength = edgeStrength(image, horizontal, inside, from, to, -direction);
    if (strength > bestStrength) {
      best = inside;
      bestStrength = strength;
    }
  }
  return best;
}

/**
 * A caption drawn on its own box (solid or see-through): four straight edges around the text where
 * the brightness steps the same way along the whole edge, within a line height of the text. Returns
 * the box, which is part of the overlay, or null when there is none.
 */
function shadedBox(image: RgbImage, box: Box, rect: Rect): Rect | null {
  // Boxes pad more sideways than above and below, and a line may be read as several boxes.
  const reach = Math.round(box.height * 1.5);
  const sideways = Math.round(box.height * 3);
  const top = findEdge(image, true, rect.y0, Math.max(0, rect.y0 - reach), rect.x0, rect.x1);
  const bottom = findEdge(
    image,
    true,
    rect.y1,
    Math.min(image.height - 1, rect.y1 + reach),
    rect.x0,
    rect.x1,
  );
  if (top === null || bottom === null) return null;
  const left = findEdge(image, false, rect.x0, Math.max(0, rect.x0 - sideways), top, bottom);
  const right = findEdge(image, false, rect.x1, Math.min(image.width - 1, rect.x1 + sideways), top, bottom);
  if (left === null || right === null) return null;
  // Chroma is stored at half resolution: a coloured box bleeds a pixel or two past its edge.
  const margin = 3;
  return {
    x0: Math.max(0, left - margin),
    y0: Math.max(0, top - margin),
    x1: Math.min(image.width, right + margin + 1),
    y1: Math.min(image.height, bottom + margin + 1),
  };
}
