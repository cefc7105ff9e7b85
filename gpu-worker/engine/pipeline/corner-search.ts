import { intersection, overlaps, type SizedRect } from "../geometry";
import type { Point, RgbFrame, TextBox } from "../ocr/ocr";

/**
 * Handles, watermarks and small labels sit in the frame's corners, often in letters too small for
 * the detector at the reading pass's 640 px: real-street's "@citynews" (white at 60 %, 11 px tall
 * there) is found on a corner enlarged twice and nowhere at 1x. Each corner zone is a third of the
 * frame wide and a sixth high; on the bench's real clips the enlarged corners find the overlays'
 * own lines and nothing else.
 */
const ZONE_WIDTH = 1 / 3;
const ZONE_HEIGHT = 1 / 6;
const ENLARGE = 2;
/** A zone's part smaller than this (pixels, either side) holds no line worth a model call. */
const MIN_SIDE = 24;

/** A corner zone's part inside a searched region, enlarged for the detector. */
export interface CornerCrop {
  rect: SizedRect;
  crop: RgbFrame;
}

/** The corner zones' parts inside `region` (the whole frame when null), each enlarged by pixel doubling. */
export function cornerCrops(frame: RgbFrame, region: SizedRect | null): CornerCrop[] {
  const within = region ?? { x: 0, y: 0, width: frame.width, height: frame.height };
  const zoneWidth = Math.round(frame.width * ZONE_WIDTH);
  const zoneHeight = Math.round(frame.height * ZONE_HEIGHT);
  const crops: CornerCrop[] = [];
  for (const x of [0, frame.width - zoneWidth]) {
    for (const y of [0, frame.height - zoneHeight]) {
      const rect = intersection({ x, y, width: zoneWidth, height: zoneHeight }, within);
      if (rect && rect.width >= MIN_SIDE && rect.height >= MIN_SIDE) {
        crops.push({ rect, crop: enlarged(frame, rect) });
      }
    }
  }
  return crops;
}

/**
 * A box of the search at 1x lying this much inside a corner's box, and less than PIECE_WIDTH of its
 * width, is a piece of the corner's line: at 1x the detector may find a letter or two of a handle
 * whose whole line it finds enlarged ("@streetstyle" over a brick wall: an "e" and a "t" at 1x,
 * "etstyle" at 2x).
 */
const PIECE_INSIDE = 0.7;
const PIECE_WIDTH = 0.5;

/**
 * `found` (the search at 1x, in frame coordinates) with the lines found on the enlarged corners that
 * it missed: a corner's box is added where no box of `found` lies but pieces of it, which it then
 * replaces. Where a box at 1x is a line of its own, its corner box is a second copy and is left out.
 */
export function withCornerBoxes(
  corners: CornerCrop[],
  cornerBoxes: TextBox[][],
  found: TextBox[],
): TextBox[] {
  let boxes = [...found];
  corners.forEach(({ rect }, k) => {
    for (const box of cornerBoxes[k] ?? []) {
      const inFrame = shrunk(box, rect);
      const touching = boxes.filter((other) => overlaps(other.box, inFrame.box));
      if (touching.every((other) => pieceOf(other.box, inFrame.box))) {
        boxes = [...boxes.filter((other) => !touching.includes(other)), inFrame];
      }
    }
  });
  return boxes;
}

/** Whether `piece` lies mostly inside `line` and is much narrower than it. */
export function pieceOf(piece: SizedRect, line: SizedRect): boolean {
  const common = intersection(piece, line);
  const inside = common ? (common.width * common.height) / (piece.width * piece.height) : 0;
  return inside >= PIECE_INSIDE && piece.width < PIECE_WIDTH * line.width;
}

/** `rect` of the frame, each pixel repeated ENLARGE times across and down. */
export function enlarged(frame: RgbFrame, rect: SizedRect): RgbFrame {
  const width = rect.width * ENLARGE;
  const height = rect.height * ENLARGE;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    const from = (rect.y + Math.floor(y / ENLARGE)) * frame.width + rect.x;
    for (let x = 0; x < width; x += 1) {
      const source = (from + Math.floor(x / ENLARGE)) * 3;
      const target = (y * width + x) * 3;
      data[target] = frame.data[source] as number;
      data[target + 1] = frame.data[source + 1] as number;
      data[target + 2] = frame.data[source + 2] as number;
    }
  }
  return { width, height, data };
}

/** A box found on an enlarged crop (a corner's), in the coordinates of the frame it was cut from. */
export function shrunk(box: TextBox, rect: SizedRect): TextBox {
  const toFrame = ([x, y]: Point): Point => [rect.x + x / ENLARGE, rect.y + y / ENLARGE];
  return {
    ...box,
    points: box.points.map(toFrame),
    // Whole pixels, grown outwards: the masks and crops downstream index by them.
    box: {
      x: rect.x + Math.floor(box.box.x / ENLARGE),
      y: rect.y + Math.floor(box.box.y / ENLARGE),
      width: Math.ceil((box.box.x + box.box.width) / ENLARGE) - Math.floor(box.box.x / ENLARGE),
      height: Math.ceil((box.box.y + box.box.height) / ENLARGE) - Math.floor(box.box.y / ENLARGE),
    },
  };
}
