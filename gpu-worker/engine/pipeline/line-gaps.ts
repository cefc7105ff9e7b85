import { intersection, overlaps, type SizedRect } from "../geometry";
import type { OcrEngine, TextLine } from "../ocr/ocr";
import { enlarged, shrunk } from "./corner-search";
import { gradientAgreement, greyPatch } from "./gradient-agreement";
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
 * Gradient agreement (gradient-agreement.ts) inside a line's place with the nearest frame that showed
 * the line, from which a frame the detector missed it on still shows it: a see-through handle over a
 * still street's road and grass edge, shown on every frame and found on 23 to 50 only, agrees with
 * frame 30 at 0.88 to 0.95 on frames 0 to 25, while the picture before a caption comes on over a
 * still shot agrees with it at 0.02 to 0.04, and another word one by one in the same place at 0.08
 * at most. Missed, the handle was copied back into its own hole from the frames that did not mask it.
 */
const SAME_LOOK = 0.8;

/**
 * A place where some frame of the window showed a line, what each frame of the window shows there:
 * the line or another (`shown`), the line found again (`found`), nothing found (`none`), or not yet
 * searched (`open`), and the line on each frame that shows it.
 */
interface Place {
  box: SizedRect;
  seen: Array<"shown" | "found" | "none" | "open">;
  lines: Array<TextLine | undefined>;
}

/**
 * The lines of a window found again, on frames of the window that showed no line in their place:
 * a box the detector is sure of, in the line's place, read with confidence (an unread box there may
 * be the picture's texture before a caption comes on), or else a frame that looks there as the
 * nearest frame showing the line does (SAME_LOOK), with that frame's line. The search walks out from
 * the frames that show a line, frame by frame, and stops at the first that shows nothing there: a
 * caption's words one by one leave most frames without each word, and searching them all took
 * real-portrait's detection from 3.7 to 5.7 CPU-s (the walk: 4.1).
 */
export async function missedSightings(
  ocr: OcrEngine,
  window: WindowFrame[],
  options: WindowSearchOptions,
  earlier: WindowFrame[] = [],
): Promise<FoundLine[]> {
  const places = placesOf(window, earlier);
  const frames = [...earlier, ...window];
  const found: FoundLine[] = [];
  for (;;) {
    const searches = places.flatMap((place) => nextToSightings(place).map((at) => ({ place, at })));
    if (searches.length === 0) return found;
    const sightings = await lookFor(
      ocr,
      searches.map(({ place, at }) => ({ box: place.box, frame: frames[at] as WindowFrame })),
      options,
    );
    searches.forEach(({ place, at }, k) => {
      const sighting = sightings[k] ?? lookingAlike(frames, place, at);
      place.seen[at] = sighting ? "found" : "none";
      place.lines[at] = sighting?.line;
      if (sighting) found.push(sighting);
    });
  }
}

/**
 * The line on frame `at` where it looks in the place as the nearest frame that showed the line does,
 * with the line of the sighted frame next to it; null otherwise.
 */
function lookingAlike(frames: WindowFrame[], place: Place, at: number): FoundLine | null {
  const shown = place.seen.flatMap((state, k) => (state === "shown" ? [k] : []));
  const nearest = shown.reduce(
    (best, k) => (Math.abs(k - at) < Math.abs(best - at) ? k : best),
    shown[0] ?? at,
  );
  const next = [at - 1, at + 1].find((k) => place.lines[k] !== undefined);
  const line = next === undefined ? undefined : place.lines[next];
  if (!line || nearest === at) return null;
  const { frame, index } = frames[at] as WindowFrame;
  const agreement = gradientAgreement(
    greyPatch(frame, place.box),
    greyPatch((frames[nearest] as WindowFrame).frame, place.box),
  );
  return agreement >= SAME_LOOK ? { index, frame, line } : null;
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
 * a box never read is a texture's as often as a line's, and a tall one made whole-frame crops), over
 * the `earlier` frames (the last window's before this one) and the window's.
 */
function placesOf(window: WindowFrame[], earlier: WindowFrame[]): Place[] {
  const boxes: SizedRect[] = [];
  for (const { lines } of window) {
    for (const { box, text } of lines) {
      if (text !== "" && !boxes.some((place) => iou(place, box) >= SAME_PLACE_IOU)) boxes.push(box);
    }
  }
  return boxes.map((box) => {
    const lines = [...earlier, ...window].map(({ lines }) => lines.find((line) => overlaps(line.box, box)));
    return { box, lines, seen: lines.map((line) => (line ? "shown" : "open")) };
  });
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
