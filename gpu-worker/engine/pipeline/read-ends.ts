import type { SizedRect } from "../geometry";
import { rectBox } from "../ocr/geometry";
import type { Glyph, OcrEngine, RgbFrame, TextBox, TextLine } from "../ocr/ocr";

/**
 * The detector can miss part of a line it finds: a see-through handle ("@streetstyle", white at
 * 60 %) over a beige brick wall and a red door is found as "etstyle" over the door alone, at 1x, at
 * 2x and at 3x, while its "@stre" over the wall has no probability at all in the detector's map.
 * The reader, given a strip past the box's ends, reads them ("@stneetstvle", each letter of "@st"
 * with a probability of 0.98 or more). So each line newly read is read again on a strip reaching
 * past both ends, and its box is widened to the letters read there with confidence that continue
 * the line without a gap. Over the picture the reader reads nothing, or odd letters it is unsure of
 * (a window frame read as "r" at 0.39, a van's edge as "l" at 0.73).
 */

/** How far past each end of the box the strip reaches, in line heights. */
const REACH = 5;
/** A letter read past an end counts only this sure; letters between two that count may be less so. */
const MIN_GLYPH_PROBABILITY = 0.8;
/**
 * The widest gap between letters past the box the line may have, in letter pitches: a space between
 * words, or letters the reader ran together ("@streetstyle" read at the reading pass's size as
 * "@seetstyle", its "tre" one "e").
 */
const MAX_GAP = 3;
/**
 * The first letter past the box must lie this close to its end (its centre, in letter pitches): a
 * letter the detector cut off touches the line, while a word or a sign beyond a space is another
 * line (a sign filmed beside a caption, "OPEN 24 HOURS" beside "SALE 50% OFF", was taken in).
 */
const FIRST_GAP = 1.25;
/**
 * Letters past the box it takes to widen it: the reader reads a single sure letter in a texture now
 * and then (a "C" at 0.97 in a fractal beside "SALE 50% OFF"), and one letter cut off is the mask
 * stage's to take (line-ends.ts).
 */
const MIN_LETTERS = 2;
/**
 * Letters read at most this far past the box (in letter pitches) are its own last ones, placed a
 * little outside by the reader; the cut-off ends of the mask stage take such small ends.
 */
const OWN_LETTER = 0.5;
/** The strip read again must hold at least this share of the box's own letters, or it is read as another line. */
const MIN_OWN_SHARE = 0.5;

/** Pixels a line's box was widened by past each end. */
export interface Reach {
  left: number;
  right: number;
}

export const NO_REACH: Reach = { left: 0, right: 0 };

/** Whether a box is worth reading past its ends: a horizontal line that was read with confidence. */
function followed(line: TextLine, minConfidence: number): boolean {
  return line.text !== "" && line.confidence >= minConfidence && line.box.width > line.box.height;
}

/**
 * The box's rows, reaching REACH line heights past each end, within the frame and short of the
 * other boxes of the frame in the same rows: a caption the detector split into two boxes ("SALE",
 * "50% OFF") is two lines that each read the other past their ends, and each widened over the
 * other took the picture between and under them into its colour cut.
 */
export function stripOf(box: SizedRect, frameWidth: number, others: SizedRect[] = []): SizedRect {
  let x = Math.max(0, box.x - REACH * box.height);
  let right = Math.min(frameWidth, box.x + box.width + REACH * box.height);
  for (const other of others) {
    const shared = Math.min(box.y + box.height, other.y + other.height) - Math.max(box.y, other.y);
    if (other === box || shared < 0.5 * Math.min(box.height, other.height)) continue;
    // Neighbouring words' boxes often overlap a little: the strip then ends at the box's own end.
    if (other.x + other.width / 2 > box.x + box.width / 2)
      right = Math.min(right, Math.max(other.x, box.x + box.width));
    else x = Math.max(x, Math.min(other.x + other.width, box.x));
  }
  return { x, y: box.y, width: right - x, height: box.height };
}

/** The median distance between neighbouring letters, in pixels (letters' centres, in order). */
function pitchOf(centres: number[], height: number): number {
  const steps = centres.slice(1).map((at, k) => at - (centres[k] as number));
  if (steps.length === 0) return height * 0.6;
  steps.sort((a, b) => a - b);
  return steps[steps.length >> 1] as number;
}

/**
 * How far past `box`'s end the letters read on the strip go: walking out from the end (`step` -1 to
 * the left, 1 to the right) from a letter within FIRST_GAP pitches of it over letters no further
 * apart than MAX_GAP pitches, to the farthest one (MIN_LETTERS at least) read with
 * MIN_GLYPH_PROBABILITY such that the letters up to it were too, most of them (their lower median):
 * a letter the reader was unsure of may lie between sure ones ("@st" then "r" read as an "n" at
 * 0.35), while the picture reads as a run of unsure letters with a sure one among them (towers beside
 * "BOOK NOW" read "WVL" at 0.89, 0.65 and 0.58). The reach ends a pitch beyond that letter's centre
 * (wide letters, "@" or "W", reach past half a pitch); zero when there is none.
 */
function reachPast(
  box: SizedRect,
  letters: Array<Glyph & { x: number }>,
  pitch: number,
  step: -1 | 1,
): number {
  const edge = step < 0 ? box.x : box.x + box.width;
  const outside = letters.filter(({ x }) => (x - edge) * step > 0).sort((a, b) => (a.x - b.x) * step);
  const walked: Array<Glyph & { x: number }> = [];
  let at = edge;
  for (const letter of outside) {
    const gap = walked.length === 0 ? FIRST_GAP : MAX_GAP;
    if ((letter.x - at) * step > gap * pitch) break;
    at = letter.x;
    walked.push(letter);
  }
  for (let last = walked.length - 1; last >= MIN_LETTERS - 1; last -= 1) {
    const letter = walked[last] as Glyph & { x: number };
    if ((letter.x - edge) * step <= OWN_LETTER * pitch) break;
    if (letter.probability < MIN_GLYPH_PROBABILITY) continue;
    if (lowerMedian(walked.slice(0, last + 1).map(({ probability }) => probability)) >= MIN_GLYPH_PROBABILITY)
      return (letter.x - edge) * step + pitch;
  }
  return 0;
}

/** The middle value, the lower of the two middle ones for an even count. */
function lowerMedian(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1] as number;
}

/** The reach of one line (as first read) from the reading of its strip (stripOf). */
export function reachOf(line: TextLine, strip: SizedRect, read: TextLine): Reach {
  const letters = read.glyphs.map((glyph) => ({ ...glyph, x: strip.x + glyph.along * strip.width }));
  const { box } = line;
  const own = letters.filter(({ x }) => x >= box.x && x <= box.x + box.width).length;
  if (own < MIN_OWN_SHARE * line.glyphs.length) return NO_REACH;
  const pitch = pitchOf(
    letters.map(({ x }) => x),
    box.height,
  );
  return {
    left: Math.min(box.x - strip.x, reachPast(box, letters, pitch, -1)),
    right: Math.min(strip.x + strip.width - (box.x + box.width), reachPast(box, letters, pitch, 1)),
  };
}

/**
 * Reads each line again on a strip past its ends (one batch of model calls for all) and returns how
 * far its letters go past its box; lines not read with `minConfidence`, or vertical, get NO_REACH.
 * `others`: the boxes of the frame's other lines, which the strips stop short of.
 */
export async function readPastEnds(
  ocr: OcrEngine,
  frame: RgbFrame,
  lines: TextLine[],
  others: SizedRect[],
  minConfidence: number,
): Promise<Reach[]> {
  const boxes = [...lines.map(({ box }) => box), ...others];
  const asked = lines.flatMap((line, index) =>
    followed(line, minConfidence) ? [{ index, strip: stripOf(line.box, frame.width, boxes) }] : [],
  );
  if (asked.length === 0) return lines.map(() => NO_REACH);
  const reads = await ocr.recognizeBoxes(asked.map(({ strip }) => ({ frame, box: rectBox(strip, 1) })));
  const reaches = lines.map(() => NO_REACH);
  asked.forEach(({ index, strip }, k) => {
    reaches[index] = reachOf(lines[index] as TextLine, strip, reads[k] as TextLine);
  });
  return reaches;
}

/** `box` widened by `reach` (an axis-aligned box where it was widened at all). */
export function widened<T extends TextBox>(box: T, reach: Reach): T {
  if (reach.left === 0 && reach.right === 0) return box;
  const { x, y, width, height } = box.box;
  return {
    ...box,
    ...rectBox({ x: x - reach.left, y, width: width + reach.left + reach.right, height }, box.score),
  };
}
