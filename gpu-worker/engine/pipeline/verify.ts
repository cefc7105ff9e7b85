import { clip, fillRegions, grow, maskExtent } from "../fill/regions";
import type { SizedRect } from "../geometry";
import type { OcrEngine, RgbFrame } from "../ocr/ocr";

/** Bounding box of the marked pixels, grown by `margin` and kept inside the frame; null for an empty mask. */
export function maskBounds(
  mask: Uint8Array,
  width: number,
  height: number,
  margin: number,
): SizedRect | null {
  const extent = maskExtent(mask, width, height);
  return extent && clip(grow(extent, margin), width, height);
}

export function cropFrame(frame: RgbFrame, region: SizedRect): RgbFrame {
  const data = new Uint8Array(region.width * region.height * 3);
  for (let y = 0; y < region.height; y++) {
    const from = ((region.y + y) * frame.width + region.x) * 3;
    data.set(frame.data.subarray(from, from + region.width * 3), y * region.width * 3);
  }
  return { width: region.width, height: region.height, data };
}

/** Margin around each part of the mask that the search looks at: a leftover stroke just outside it still shows. */
const SEARCH_MARGIN = 16;

/**
 * Looks for text again where text was erased: detection at native resolution on a crop around each
 * part of the mask (lines far apart are searched apart, not in the rectangle holding them all:
 * on real-subject that rectangle was most of the frame). Returns the boxes found that overlap the
 * mask, in frame coordinates.
 */
export async function residualText(
  ocr: OcrEngine,
  cleaned: RgbFrame,
  mask: Uint8Array,
): Promise<SizedRect[]> {
  const regions = (await fillRegions(mask, cleaned.width, cleaned.height, SEARCH_MARGIN)).filter(
    (region) => region.width >= 8 && region.height >= 8,
  );
  if (regions.length === 0) return [];
  const found = await ocr.detect(regions.map((region) => cropFrame(cleaned, region)));
  return found.flatMap((boxes, k) => {
    const region = regions[k] as SizedRect;
    return boxes
      .map(({ box }) => ({ x: box.x + region.x, y: box.y + region.y, width: box.width, height: box.height }))
      .filter((box) => overlapsMask(box, mask, cleaned.width));
  });
}

function overlapsMask(box: SizedRect, mask: Uint8Array, width: number): boolean {
  let inside = 0;
  let total = 0;
  for (let y = Math.floor(box.y); y < Math.ceil(box.y + box.height); y++) {
    for (let x = Math.floor(box.x); x < Math.ceil(box.x + box.width); x++) {
      total++;
      if (mask[y * width + x]) inside++;
    }
  }
  return total > 0 && inside / total > 0.3;
}
