import type { EdgeRect, SizedRect } from "../geometry";
import { type LineLook, lineSeeThrough, rememberedBox, shadedBox } from "./caption-box";
import { dilate } from "./dilate";
import { ColourHistogram, contains, type RgbImage } from "./image";
import { seeThroughBox } from "./see-through";

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

/** Pixels the glyphs are grown by to take their outline, shadow and anti-aliased edge. */
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
 * Marks the glyphs of one text line (not its whole box): pixels inside the box whose colour stands
 * apart from the background around the box (Otsu's cut on the distance), grown by a few pixels to
 * take the outline, shadow and anti-aliased edge. A caption drawn on its own shaded box gets the
 * whole box marked, since the box is part of the overlay (see caption-box). `look` carries what
 * the line's earlier frames showed. With `behind` (which gives the frame's array, made when first
 * needed), the picture behind a see-through box is also restored in `image` and marked there, for
 * the fill to use where no frame shows more. Returns the number of pixels marked in `mask`.
 */
export function markTextLine(
  image: RgbImage,
  box: SizedRect,
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
    if (blend && behind) seeThroughBox(image, shaded, textRect, blend, behind(), seeThroughLetterGrowth(box));
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
