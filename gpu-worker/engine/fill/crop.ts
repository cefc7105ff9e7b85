import type { SizedRect } from "../geometry";
import { loadOpenCv, type OpenCv, release } from "./opencv";
import type { SourceGroup } from "./temporal";
import { MARGIN_PIXEL, type RgbFrame } from "./types";

/**
 * Where a masked pixel's fill came from; `carriedFill`: a synthesised fill kept from the previous
 * frame; `behind`: the frame's own estimate of the picture behind a see-through box.
 */
export const Source = { none: 0, neighbours: 1, previous: 2, carriedFill: 3, spatial: 4, behind: 5 } as const;
export type Source = (typeof Source)[keyof typeof Source];

/** Fills that were made up (inpainted, an old made-up fill, an estimate through a box), not seen in a frame. */
export function isSynthesised(source: number): boolean {
  return source === Source.spatial || source === Source.carriedFill || source === Source.behind;
}

/**
 * The working state of one crop at native resolution: which pixels are masked, how far each pixel
 * is from the mask's edge (inside and outside), and the fill chosen so far for the masked pixels.
 */
export interface CropWork {
  rect: SizedRect;
  /** The centre frame the crop is cut from. */
  frame: RgbFrame;
  /** 1 where the text mask is set, per crop pixel. */
  masked: Uint8Array;
  /** 1 where the mask is only margin (MARGIN_PIXEL): searched like the text, written back as the frame has it. */
  margin: Uint8Array;
  /** The crop indices where `masked` is set, in order: the hot loops visit these rather than the whole crop. */
  maskedPixels: Uint32Array;
  /** For masked pixels: distance to the nearest unmasked pixel (1 next to the edge); 0 elsewhere. */
  inside: Float32Array;
  /** For unmasked pixels: distance to the nearest masked pixel (1 next to the edge); 0 elsewhere. */
  outside: Float32Array;
  /** Source per crop pixel (Source.none until filled). */
  source: Uint8Array;
  /** Fill colour per crop pixel, 3 floats, meaningful where source is set. */
  fill: Float32Array;
  /**
   * The sources the crop's pixels were taken from, one group per step of the search (fillFromSources
   * adds them), and per crop pixel the group it came from (its index + 1; 0 for none). Pixels of one
   * group show the same frames; two groups may differ by their frames' light, a step the seam blend
   * takes out.
   */
  groups: SourceGroup[];
  group: Uint16Array;
  /**
   * 1 where some frame of the search showed the pixel but was passed over because the picture beside
   * the hole had changed near it far beyond the moving threshold since (OUT_OF_DATE in ring-change.ts,
   * WeightedSource.changeNear): what any earlier frame showed there, the previous output's fill
   * included, is out of date.
   */
  movedSince: Uint8Array;
}

export async function cropWork(frame: RgbFrame, mask: Uint8Array, rect: SizedRect): Promise<CropWork> {
  const { cv } = await loadOpenCv();
  const size = rect.width * rect.height;
  const masked = new Uint8Array(size);
  const margin = new Uint8Array(size);
  let count = 0;
  for (let y = 0; y < rect.height; y += 1) {
    const start = (rect.y + y) * frame.width + rect.x;
    for (let x = 0; x < rect.width; x += 1) {
      masked[y * rect.width + x] = mask[start + x] ? 1 : 0;
      margin[y * rect.width + x] = mask[start + x] === MARGIN_PIXEL ? 1 : 0;
      count += masked[y * rect.width + x] as number;
    }
  }
  const maskedPixels = new Uint32Array(count);
  for (let i = 0, next = 0; i < size; i += 1) if (masked[i]) maskedPixels[next++] = i;
  return {
    rect,
    frame,
    masked,
    margin,
    maskedPixels,
    inside: distanceTo(cv, masked, rect, 0),
    outside: distanceTo(cv, masked, rect, 1),
    source: new Uint8Array(size),
    fill: new Float32Array(size * 3),
    groups: [],
    group: new Uint16Array(size),
    movedSince: new Uint8Array(size),
  };
}

/** Euclidean distance from each pixel not equal to `target` to the nearest pixel equal to it. */
export function distanceTo(cv: OpenCv, masked: Uint8Array, rect: SizedRect, target: 0 | 1): Float32Array {
  const input = new cv.Mat(rect.height, rect.width, cv.CV_8UC1);
  const distance = new cv.Mat();
  try {
    const data = input.data;
    for (let i = 0; i < masked.length; i += 1) data[i] = masked[i] === target ? 0 : 255;
    cv.distanceTransform(input, distance, cv.DIST_L2, 5);
    return new Float32Array(distance.data32F);
  } finally {
    release(input, distance);
  }
}
