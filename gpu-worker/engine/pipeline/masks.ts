import { MARGIN_PIXEL } from "../fill/types";
import type { EdgeRect, SizedRect } from "../geometry";
import { type LineLook, lineSeeThrough, rememberedBox, shadedBox } from "./caption-box";
import { dilate } from "./dilate";
import { BACKGROUND_RINGS, effectGrowth, fillHoles } from "./glyph-growth";
import { ColourHistogram, contains, luma, type RgbImage } from "./image";
import { cutOffEnds, type LumaRange } from "./line-ends";
import { seeThroughBox } from "./see-through";
import { MIN_STROKE_CONTRAST, strokeRadius, strokeResponse } from "./strokes";

function clampRect(box: SizedRect, pad: number, width: number, height: number): EdgeRect {
  return {
    x0: Math.max(0, Math.floor(box.x - pad)),
    y0: Math.max(0, Math.floor(box.y - pad)),
    x1: Math.min(width, Math.ceil(box.x + box.width + pad)),
    y1: Math.min(height, Math.ceil(box.y + box.height + pad)),
  };
}

/** Per-channel median of the pixels of `area` that lie outside `hole`. */
function ringMedian(image: RgbImage, area: EdgeRect, hole: EdgeRect): [number, number, number] {
  const colours = new ColourHistogram();
  for (let y = area.y0; y < area.y1; y++) {
    for (let x = area.x0; x < area.x1; x++) {
      if (contains(hole, x, y)) continue;
      const i = (y * image.width + x) * 3;
      colours.add(image.data[i] as number, image.data[i + 1] as number, image.data[i + 2] as number);
    }
  }
  return colours.percentile(0.5);
}

/** Pixels the glyphs are grown by at most to take their outline, shadow and anti-aliased edge (see effectGrowth). */
function glyphGrowth(box: SizedRect): number {
  return Math.max(2, Math.round(box.height * 0.12));
}

/**
 * Pixels the letters inside a see-through box are grown by. They are found pixel by pixel (what the
 * box could not have made), edge and outline included, so only their faint rim is left: a third of
 * the growth above. More would hand the picture behind them, which the box shows, to inpainting.
 */
function seeThroughLetterGrowth(box: SizedRect): number {
  return Math.max(2, Math.round(box.height * 0.04));
}

/** Otsu's threshold of a histogram: the cut that best splits it in two classes. */
export function otsu(histogram: Uint32Array, total: number): number {
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
 * Letters stay inside their box and cover less of it than MAX_GLYPH_SHARE. A cut by colour that
 * marks more than MAX_EDGE_SHARE of the box's edge has taken the picture around them too (a
 * see-through handle over a wall, a door and a van: 0.42 to 0.45 of the edge; most captions under
 * 0.25; real-portrait's caption over a chin and a collar up to 0.40), and the letters are looked for
 * by their strokes instead (strokes.ts): on the bench's real clips that took real-street's handle
 * from a blot to its letters and real-portrait's caption closer to its letters (+0.18 dB inside the
 * masks, +0.85 dB on its worst tenth), the rest within 0.01 dB.
 */
const MAX_EDGE_SHARE = 0.3;
/**
 * Lines taller than this (pixels) keep the cut by colour: their letters carry outlines the stroke
 * response (one polarity) leaves out, and slide-cta's 58 to 74 px line over colour bars lost 2.5 dB
 * on its worst tenth by strokes. Handles and small labels are well under it.
 */
const MAX_STROKE_LINE = 40;
const MAX_GLYPH_SHARE = 0.5;

/** Share of `values` above `cut`. */
function share(values: Uint8Array, cut: number): number {
  let above = 0;
  for (const value of values) if (value > cut) above += 1;
  return above / Math.max(1, values.length);
}

/** Share of the pixels on the edge of a box (`values` row by row, `width` a row) above `cut`. */
function edgeShare(values: Uint8Array, width: number, cut: number): number {
  const height = values.length / width;
  let above = 0;
  let edge = 0;
  for (let y = 0; y < height; y += 1) {
    const step = y === 0 || y === height - 1 ? 1 : Math.max(1, width - 1);
    for (let x = 0; x < width; x += step) {
      edge += 1;
      if ((values[y * width + x] as number) > cut) above += 1;
    }
  }
  return above / Math.max(1, edge);
}

/** The letters by their strokes, with the cut that separates them; undefined where that fails too. */
function byStroke(image: RgbImage, textRect: EdgeRect, box: SizedRect) {
  const values = strokeResponse(image, textRect, strokeRadius(box));
  const histogram = new Uint32Array(256);
  for (const value of values) histogram[value] = (histogram[value] as number) + 1;
  const cut = Math.max(otsu(histogram, values.length), MIN_STROKE_CONTRAST);
  const marked = share(values, cut);
  return marked > 0 && marked <= MAX_GLYPH_SHARE ? { values, cut } : undefined;
}

/**
 * Marks the glyphs of one text line (not its whole box): pixels inside the box whose colour stands
 * apart from the background around the box (Otsu's cut on the distance), grown by a few pixels to
 * take the outline, shadow and anti-aliased edge. A caption drawn on its own shaded box gets the
 * whole box marked, since the box is part of the overlay (see caption-box). `look` carries what
 * the line's earlier frames showed. With `behind` (which gives the frame's array, made when first
 * needed), the picture behind a see-through box is also restored in `image` and marked there, for
 * the fill to use where no frame shows more. The glyphs are grown as far as their outline and
 * shadow show (glyph-growth.ts); the rest of the usual growth is marked as margin (MARGIN_PIXEL),
 * which the fill fills but writes back as it was. Where the detector's box stopped short of faint
 * first or last letters, those stretches (line-ends.ts) are marked as lines of their own. Returns the
 * number of pixels marked in `mask`.
 */
export function markTextLine(
  image: RgbImage,
  box: SizedRect,
  mask: Uint8Array,
  look?: LineLook,
  behind?: () => Uint8Array,
): number {
  const { width, height } = image;
  const boxRect = clampRect(box, 0, width, height);
  if (boxRect.x1 <= boxRect.x0 || boxRect.y1 <= boxRect.y0) return 0;
  const shaded = look ? rememberedBox(image, box, boxRect, look) : shadedBox(image, box, boxRect);
  if (shaded) {
    const blend = look && behind && lineSeeThrough(image, shaded, boxRect, look);
    if (blend && behind) seeThroughBox(image, shaded, boxRect, blend, behind(), seeThroughLetterGrowth(box));
    return fillRect(mask, width, shaded);
  }
  // Letters without a box of their own. A detector's box may cut a line's first or last letters
  // short, so past the box's ends the full growth is taken (markGlyphs). A line up to 40 px tall is
  // followed past its ends instead (line-ends.ts): where nothing goes on, its ends get the growth
  // measured for the rest; the stretches of a faint line (one marked by its strokes) are marked by
  // their strokes at the strength of the line's letters there, since on a stretch this short a cut
  // of its own takes in the picture's edges (a sign, a pole) as often as the letters; and only the
  // strokes as bright as the line's letters are, since at that strength a white sign behind the
  // letters is taken too. Solid letters are found whole, and beside them lit windows pass for letters.
  const ends = cutOffEnds(image, box);
  const line = markGlyphs(image, box, mask, { endsMeasured: ends?.length === 0 });
  let marked = line.marked;
  if (!line.byStrokes || !ends) return marked;
  for (const end of ends) {
    marked += markGlyphs(image, end.rect, mask, { strokeCut: end.cut, strokeLuma: end.brightness }).marked;
  }
  return marked;
}

/**
 * Marks the letters in `box` by their colour or, over a busy picture, their strokes (see
 * markTextLine); with `strokeCut`, by their strokes at that cut, and with `strokeLuma` only those
 * of the brightness the line's letters have (a cut-off end's). `endsMeasured`: nothing was found
 * past the box's ends, which then get the measured growth too. Returns the pixels marked and whether
 * the letters were marked by their strokes.
 */
function markGlyphs(
  image: RgbImage,
  box: SizedRect,
  mask: Uint8Array,
  {
    strokeCut,
    strokeLuma,
    endsMeasured = false,
  }: { strokeCut?: number; strokeLuma?: LumaRange; endsMeasured?: boolean } = {},
): { marked: number; byStrokes: boolean } {
  const { width, height, data } = image;
  const textRect = clampRect(box, 0, width, height);
  const pad = Math.max(2, Math.round(box.height * 0.35));
  const around = clampRect(box, pad, width, height);
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
  const byColour = {
    values: distances,
    cut: Math.max(otsu(histogram, distances.length), MIN_GLYPH_CONTRAST),
  };
  const busy =
    box.height <= MAX_STROKE_LINE && edgeShare(byColour.values, boxWidth, byColour.cut) > MAX_EDGE_SHARE;
  const strokes =
    strokeCut !== undefined
      ? { values: strokeResponse(image, textRect, strokeRadius(box)), cut: strokeCut }
      : busy
        ? byStroke(image, textRect, box)
        : undefined;
  const { values, cut } = strokes ?? byColour;
  const largest = glyphGrowth(box);
  // The glyphs on a local canvas with room for the growth and the picture past it, grown there, then
  // added to the mask.
  const canvas = clampRect(box, largest + BACKGROUND_RINGS, width, height);
  const canvasWidth = canvas.x1 - canvas.x0;
  const canvasHeight = canvas.y1 - canvas.y0;
  const glyphs = new Uint8Array(canvasWidth * canvasHeight);
  for (let y = textRect.y0; y < textRect.y1; y++) {
    for (let x = textRect.x0; x < textRect.x1; x++) {
      if ((values[(y - textRect.y0) * boxWidth + (x - textRect.x0)] as number) <= cut) continue;
      if (strokeLuma && !withinLuma(data, (y * width + x) * 3, strokeLuma)) continue;
      glyphs[(y - canvas.y0) * canvasWidth + (x - canvas.x0)] = 255;
    }
  }
  // A line against the frame's edge may run on past it, its letters cut: the largest growth stands.
  const atEdge = canvas.x0 === 0 || canvas.y0 === 0 || canvas.x1 === width || canvas.y1 === height;
  const growth = atEdge ? largest : effectGrowth(image, glyphs, canvas, largest, strokes !== undefined);
  const margin = dilate(glyphs, canvasWidth, canvasHeight, largest);
  // The largest growth closes the inside of letters the cut missed; a smaller one may not.
  if (growth < largest) fillHoles(glyphs, canvas, width, height);
  const text = growth < largest ? dilate(glyphs, canvasWidth, canvasHeight, growth) : margin;
  // Past the box's ends the line may go on (a detector's box cuts the last letter short): there the
  // full growth is text, as it was before the growth was measured, unless nothing was found there.
  const endsFrom = endsMeasured ? 0 : textRect.x0 - canvas.x0;
  const endsTo = endsMeasured ? canvasWidth : textRect.x1 - canvas.x0;
  let marked = 0;
  for (let y = 0; y < canvasHeight; y++) {
    for (let x = 0, at = (canvas.y0 + y) * width + canvas.x0; x < canvasWidth; x++, at++) {
      const was = mask[at] as number;
      const inMargin = margin[y * canvasWidth + x] !== 0;
      if (text[y * canvasWidth + x] || (inMargin && (x < endsFrom || x >= endsTo))) mask[at] = 255;
      else if (inMargin && !was) mask[at] = MARGIN_PIXEL;
      if (mask[at] !== was) marked++;
    }
  }
  return { marked, byStrokes: strokes !== undefined };
}

/** Whether the pixel at data[i..i+2] has a luma within `range`. */
function withinLuma(data: Uint8Array, i: number, range: LumaRange): boolean {
  const value = luma(data, i);
  return value >= range.low && value <= range.high;
}

/** Marks every pixel of `rect`; returns how many were not marked before. */
export function fillRect(mask: Uint8Array, width: number, rect: EdgeRect): number {
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
