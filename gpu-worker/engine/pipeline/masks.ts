import type { Box } from "./tracks";

export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

interface Rect {
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
 * Marks the glyphs of one text line (not its whole box): pixels inside the box whose colour stands
 * apart from the background around the box (Otsu's cut on the distance), grown by a few pixels to
 * take the outline, shadow and anti-aliased edge. A caption drawn on its own shaded box gets the
 * whole box marked, since the box is part of the overlay. Returns the number of pixels marked.
 */
export function markTextLine(image: RgbImage, box: Box, mask: Uint8Array): number {
  const { width, height, data } = image;
  const textRect = clampRect(box, 0, width, height);
  const pad = Math.max(2, Math.round(box.height * 0.35));
  const around = clampRect(box, pad, width, height);
  if (textRect.x1 <= textRect.x0 || textRect.y1 <= textRect.y0) return 0;
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
  const shaded = shadedBox(image, box, textRect, distances, cut);
  if (shaded) return fillRect(mask, width, shaded);
  const grow = Math.max(2, Math.round(box.height * 0.12));
  let marked = 0;
  for (let y = textRect.y0; y < textRect.y1; y++) {
    for (let x = textRect.x0; x < textRect.x1; x++) {
      if ((distances[(y - textRect.y0) * boxWidth + (x - textRect.x0)] as number) <= cut) continue;
      marked += fillRect(mask, width, {
        x0: Math.max(0, x - grow),
        y0: Math.max(0, y - grow),
        x1: Math.min(width, x + grow + 1),
        y1: Math.min(height, y + grow + 1),
      });
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

/** Mean colour of the box's non-glyph pixels, and how much they vary. */
function plainStats(image: RgbImage, rect: Rect, distances: Uint8Array, cut: number) {
  const boxWidth = rect.x1 - rect.x0;
  const sum = [0, 0, 0];
  const squares = [0, 0, 0];
  let count = 0;
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let x = rect.x0; x < rect.x1; x++) {
      if ((distances[(y - rect.y0) * boxWidth + (x - rect.x0)] as number) > cut) continue;
      const i = (y * image.width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const v = image.data[i + c] as number;
        sum[c] = (sum[c] as number) + v;
        squares[c] = (squares[c] as number) + v * v;
      }
      count++;
    }
  }
  const mean = sum.map((s) => s / Math.max(1, count));
  const spread = Math.max(
    ...squares.map((q, c) => Math.sqrt(Math.max(0, q / Math.max(1, count) - (mean[c] as number) ** 2))),
  );
  return { mean, spread };
}

function rowOrColumnMatches(
  image: RgbImage,
  mean: number[],
  xs: [number, number],
  ys: [number, number],
): boolean {
  let close = 0;
  let total = 0;
  for (let y = ys[0]; y < ys[1]; y++) {
    for (let x = xs[0]; x < xs[1]; x++) {
      const i = (y * image.width + x) * 3;
      const d = Math.max(
        ...[0, 1, 2].map((c) => Math.abs((image.data[i + c] as number) - (mean[c] as number))),
      );
      if (d < 18) close++;
      total++;
    }
  }
  return total > 0 && close / total > 0.8;
}

/**
 * A caption box: the text sits on a flat patch of colour (low spread) that the surroundings do not
 * share. Grows the rectangle outward while rows and columns keep that colour, up to a line height.
 */
function shadedBox(image: RgbImage, box: Box, rect: Rect, distances: Uint8Array, cut: number): Rect | null {
  const { mean, spread } = plainStats(image, rect, distances, cut);
  if (spread > 14) return null;
  const limit = Math.round(box.height * 1.5);
  const grown = { ...rect };
  const step = (edge: keyof Rect, direction: number, bound: number) => {
    for (let moved = 0; moved < limit; moved++) {
      const next = grown[edge] + direction;
      if (direction < 0 ? next < bound : next > bound) break;
      const line =
        edge === "x0" || edge === "x1"
          ? rowOrColumnMatches(image, mean, direction < 0 ? [next, next + 1] : [next - 1, next], [
              grown.y0,
              grown.y1,
            ])
          : rowOrColumnMatches(
              image,
              mean,
              [grown.x0, grown.x1],
              direction < 0 ? [next, next + 1] : [next - 1, next],
            );
      if (!line) break;
      grown[edge] = next;
    }
  };
  step("y0", -1, 0);
  step("y1", 1, image.height);
  step("x0", -1, 0);
  step("x1", 1, image.width);
  // A real caption box reaches past the text; a flat background that goes on is not one.
  const reachedPast = grown.y0 < rect.y0 || grown.y1 > rect.y1;
  const bounded = grown.y0 > rect.y0 - limit && grown.y1 < rect.y1 + limit;
  if (!reachedPast || !bounded) return null;
  const margin = 2;
  return {
    x0: Math.max(0, grown.x0 - margin),
    y0: Math.max(0, grown.y0 - margin),
    x1: Math.min(image.width, grown.x1 + margin),
    y1: Math.min(image.height, grown.y1 + margin),
  };
}
