import { wholePixels } from "../fill/regions";
import type { SizedRect } from "../geometry";
import type { RgbFrame } from "../ocr/ocr";
import { luma } from "./image";
import { otsu } from "./masks";

/**
 * How a line of text looks on one read frame: the clues to whether it was filmed or drawn on after
 * filming, for when the camera is too still to tell by motion. An overlay is rendered: its letters'
 * edges step from fill to background within a pixel or two, and its fill is the same on every frame.
 * Filmed text carries the scene's optics (soft edges) and its sensor noise, which changes from frame
 * to frame on the letters as much as on the scene beside them.
 */
export interface TextLook {
  /**
   * The strongest steps across the letters' edges, as a share of the contrast between letters and
   * background: near 1 when rendered, 0.3 or less through a lens that blurs over a couple of pixels.
   */
  edgeSharpness: number;
  /**
   * Mean change (grey levels) since the sample before, where the line was at the same place: on the
   * letters' inner pixels, and on the background's inside the box. Absent without such a sample.
   */
  change?: { letters: number; background: number };
}

/** Letters and background must differ this much (grey levels) for their edges to be measured. */
const MIN_CONTRAST = 24;
/** Share of the box's pixel steps taken as its strongest (the letters' edges are a tenth or more). */
const STRONGEST_SHARE = 0.02;
/** Fewer inner pixels than this on either side: too small to measure a change on. */
const MIN_INNER_PIXELS = 12;

/**
 * Measures the look of the text in `box` (frame pixels) on `frame`, and how its letters and their
 * background changed since `before` (the sample before, same size, where the line was at the same place).
 * Undefined when the box is too small or too flat to say. Costs a few passes over the box's pixels.
 */
export function textLook(frame: RgbFrame, box: SizedRect, before?: RgbFrame): TextLook | undefined {
  const { x: x0, y: y0, width: w, height: h } = wholePixels(box, frame.width, frame.height);
  if (w < 4 || h < 4) return undefined;
  const grey = new Uint8Array(w * h);
  const histogram = new Uint32Array(256);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const value = luma(frame.data, ((y0 + y) * frame.width + x0 + x) * 3);
      grey[y * w + x] = value;
      histogram[value] = (histogram[value] as number) + 1;
    }
  }
  const cut = otsu(histogram, w * h);
  let above = 0;
  let sumAbove = 0;
  let sumBelow = 0;
  for (let v = 0; v < 256; v++) {
    if (v > cut) {
      above += histogram[v] as number;
      sumAbove += v * (histogram[v] as number);
    } else sumBelow += v * (histogram[v] as number);
  }
  const below = w * h - above;
  if (above === 0 || below === 0) return undefined;
  const contrast = sumAbove / above - sumBelow / below;
  if (contrast < MIN_CONTRAST) return undefined;
  // The letters are the smaller class: a line's box is mostly the background between its strokes.
  const lettersAbove = above <= below;
  const isLetter = (i: number) => (grey[i] as number) > cut === lettersAbove;

  // The mean of the strongest steps between neighbours, from a histogram of the steps (0 to 255).
  const steps = new Uint32Array(256);
  const count = (step: number) => {
    steps[step] = (steps[step] as number) + 1;
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (x + 1 < w) count(Math.abs((grey[i] as number) - (grey[i + 1] as number)));
      if (y + 1 < h) count(Math.abs((grey[i] as number) - (grey[i + w] as number)));
    }
  }
  const wanted = Math.max(1, Math.round(((w - 1) * h + w * (h - 1)) * STRONGEST_SHARE));
  let taken = 0;
  let sum = 0;
  for (let step = 255; step >= 0 && taken < wanted; step--) {
    const some = Math.min(steps[step] as number, wanted - taken);
    taken += some;
    sum += some * step;
  }
  const edgeSharpness = sum / taken / contrast;

  // Inner pixels: all eight neighbours on the same side, so an edge's blur or a one-pixel shift is not a change.
  let letterChange = 0;
  let letterCount = 0;
  let backgroundChange = 0;
  let backgroundCount = 0;
  if (before) {
    for (let y = 1; y < h - 1; y++) {
      for (let x = 1; x < w - 1; x++) {
        const i = y * w + x;
        const letter = isLetter(i);
        let inner = true;
        for (let dy = -1; dy <= 1 && inner; dy++) {
          for (let dx = -1; dx <= 1 && inner; dx++) inner = isLetter(i + dy * w + dx) === letter;
        }
        if (!inner) continue;
        const change = Math.abs(
          (grey[i] as number) - luma(before.data, ((y0 + y) * frame.width + x0 + x) * 3),
        );
        if (letter) {
          letterChange += change;
          letterCount++;
        } else {
          backgroundChange += change;
          backgroundCount++;
        }
      }
    }
  }
  if (letterCount < MIN_INNER_PIXELS || backgroundCount < MIN_INNER_PIXELS) return { edgeSharpness };
  return {
    edgeSharpness,
    change: { letters: letterChange / letterCount, background: backgroundChange / backgroundCount },
  };
}
