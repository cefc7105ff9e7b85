import { intersection, overlaps, type SizedRect } from "../geometry";
import type { OcrEngine, TextLine } from "../ocr/ocr";
import { enlarged, shrunk } from "./corner-search";
import type { FoundLine, WindowFrame, WindowSearchOptions } from "./read-windows";
import { iou, SAME_PLACE_IOU } from "./tracks";

/**
 * A line the detector found on some frames of a window, looked for again on the window's other
 * frames around where it was, enlarged twice. Over a busy picture the detector misses a line on
 * some frames and finds it on others as the picture under it changes: a yellow outlined "UP" over a
 * tower's lit windows (the held-out 9:16 city clip) was found from frame 54 on, though on screen
 * from 35, and on a crop around it enlarged twice on every frame from 36. The crop reaches this many
 * line heights past the line on every side, and a box found there is the line where it overlaps the
 * line's box by SAME_PLACE_IOU.
 */
const CROP_MARGIN = 1;

/**
 * A place where some frame of the window showed a line, and what each frame of the window shows
 * there: the line or another (`shown`), the line found again (`found`), nothing found (`none`), or
 * not yet searched (`open`).
 */
interface Place {
  box: SizedRect;
  seen: Array<"shown" | "found" | "none" | "open">;
}

/**
 * The lines of a window found again, on frames of the window that showed no line in their place:
 * a box the detector is sure of, in the line's place, read with confidence (an unread box there may
 * be the picture's texture before a caption comes on). The search walks out from the frames that
 * show a line, frame by frame, and stops at the first that shows nothing there: a caption's words
 * one by one leave most frames without each word, and searching them all took real-portrait's
 * detection from 3.7 to 5.7 CPU-s (the walk: 4.1).
 */
export async function missedSightings(
  ocr: OcrEngine,
  window: WindowFrame[],
  options: WindowSearchOptions,
): Promise<FoundLine[]> {
  const places = placesOf(window);
  const found: FoundLine[] = [];
  for (;;) {
    const searches = places.flatMap((place) => nextToSightings(place).map((at) => ({ place, at })));
    if (searches.length === 0) return found;
    const sightings = await lookFor(
      ocr,
      searches.map(({ place, at }) => ({ box: place.box, frame: window[at] as WindowFrame })),
      options,
    );
    searches.forEach(({ place, at }, k) => {
      const sighting = sightings[k];
      place.seen[at] = sighting ? "found" : "none";
      if (sighting) found.push(sighting);
    });
  }
}

/** Each search's line, sure and read with confidence, on a crop around its place enlarged, or null. */
async function lookFor(
  ocr: OcrEngine,
  searches: Array<{ box: SizedRect; frame: WindowFrame }>,
  options: WindowSearchOptions,
): Promise<Array<FoundLine | null>> {
  const rects = searches.map(({ box, frame }) => cropAround(box, frame.frame));
  const boxes = await ocr.detect(
    searches.map(({ frame }, k) => enlarged(frame.frame, rects[k] as SizedRect)),
  );
  const sighted = searches.map(({ box }, k) =>
    (boxes[k] ?? [])
      .filter(({ score }) => score >= options.minBoxScore)
      .map((enlargedBox) => shrunk(enlargedBox, rects[k] as SizedRect))
      .find((candidate) => iou(candidate.box, box) >= SAME_PLACE_IOU),
  );
  const toRead = searches.flatMap(({ frame }, k) => {
    const box = sighted[k];
    return box ? [{ frame: frame.frame, box }] : [];
  });
  const read = toRead.length > 0 ? await ocr.recognizeBoxes(toRead) : [];
  let next = 0;
  return searches.map(({ frame }, k) => {
    const box = sighted[k];
    if (!box) return null;
    const { text, confidence, glyphs } = read[next++] as TextLine;
    if (confidence < options.minReadConfidence || text === "") return null;
    return { index: frame.index, frame: frame.frame, line: { ...box, text, confidence, glyphs } };
  });
}

/**
 * The places of the window's lines that were read (a line's boxes on several frames are one place;
 * a box never read is a texture's as often as a line's, and a tall one made whole-frame crops).
 */
function placesOf(window: WindowFrame[]): Place[] {
  const boxes: SizedRect[] = [];
  for (const { lines } of window) {
    for (const { box, text } of lines) {
      if (text !== "" && !boxes.some((place) => iou(place, box) >= SAME_PLACE_IOU)) boxes.push(box);
    }
  }
  return boxes.map((box) => ({
    box,
    seen: window.map(({ lines }) => (lines.some((line) => overlaps(line.box, box)) ? "shown" : "open")),
  }));
}

/** The frames not yet searched next to one that shows the line or where it was found again. */
function nextToSightings({ seen }: Place): number[] {
  const sighted = (at: number) => seen[at] === "shown" || seen[at] === "found";
  return seen.flatMap((state, at) => (state === "open" && (sighted(at - 1) || sighted(at + 1)) ? [at] : []));
}

/** The line's box grown by CROP_MARGIN line heights on every side, inside the frame, in whole pixels. */
function cropAround(box: SizedRect, frame: { width: number; height: number }): SizedRect {
  const margin = Math.ceil(box.height * CROP_MARGIN);
  const x = Math.floor(box.x) - margin;
  const y = Math.floor(box.y) - margin;
  const whole = {
    x,
    y,
    width: Math.ceil(box.x + box.width) + margin - x,
    height: Math.ceil(box.y + box.height) + margin - y,
  };
  return intersection(whole, { x: 0, y: 0, width: frame.width, height: frame.height }) as SizedRect;
}
