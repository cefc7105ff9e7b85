import { meanGrey } from "../fill/sample";
import { overlaps, type SizedRect } from "../geometry";
import type { OcrEngine, RgbFrame, TextBox, TextLine } from "../ocr/ocr";
import { project } from "./classify";
import { cornerCrops, pieceOf, withCornerBoxes } from "./corner-search";
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
/** Frames of one shot, the camera's motion known between them, needed for a mean: fewer leave the scene sharp. */
const MIN_RUN = 4;

/**
 * A line found on a window's mean, carried to the windows after it: a window the camera hardly
 * moves over (the clip's last second, a pause in a pan) leaves the scene as sharp as the line on its
 * own mean, and no box there may count. The line's own mean still tells its frames apart.
 */
export interface FixedPlace {
  line: TextLine;
  /** The grey of the mean it was found on: the line sharp, the scene under it blurred. */
  meanGrey: Float32Array;
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
  const greys = new Map<WindowFrame, Float32Array>();
  const greyOfFrame = (frame: WindowFrame): Float32Array => {
    const grey = greys.get(frame) ?? greyOf(frame.frame);
    greys.set(frame, grey);
    return grey;
  };
  const places: FixedPlace[] = [];
  for (const run of runsOf(window)) {
    // Under a still camera the mean is a frame like the others: no model call for it.
    if (run.length >= MIN_RUN && sceneTravel(run, wholeFrame(run)) >= MIN_TRAVEL) {
      places.push(...(await linesOnMean(ocr, run, options, greyOfFrame)));
    }
  }
  const carried = known.filter(({ line }) =>
    places.every((place) => iou(place.line.box, line.box) < SAME_PLACE_IOU),
  );
  places.push(...carried);
  const width = (window[0] as WindowFrame).frame.width;
  const found = places.flatMap(({ line, meanGrey, floor }) =>
    window.flatMap((frame) =>
      gradientAgreement(greyOfFrame(frame), meanGrey, width, line.box) >= floor && !seenOn(frame, line.box)
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
  greyOfFrame: (frame: WindowFrame) => Float32Array,
): Promise<FixedPlace[]> {
  const mean = meanFrame(run.map(({ frame }) => frame));
  // Where a frame showed a line in the same place, the mean holds that line over the others shown
  // there (words one by one: "HE" and "NEVER" read as "NHER"); line-gaps looks for it there.
  const placeOfLine = (box: SizedRect) =>
    run.some(({ lines }) => lines.some((line) => iou(line.box, box) >= SAME_PLACE_IOU));
  const candidates = (await boxesOn(ocr, mean, options.minBoxScore)).filter(
    ({ box }) =>
      sceneTravel(run, box) >= Math.max(MIN_TRAVEL, TRAVEL_HEIGHTS * box.height) && !placeOfLine(box),
  );
  if (candidates.length === 0) return [];
  const read = await ocr.recognizeBoxes(candidates.map((box) => ({ frame: mean, box })));
  const meanGrey = greyOf(mean);
  const greys = run.map(greyOfFrame);
  return candidates.map((box, k) => {
    const { confidence, glyphs, text } = read[k] as TextLine;
    const line = {
      ...box,
      text: confidence >= options.minReadConfidence ? text : "",
      confidence,
      glyphs,
    };
    const presence = greys.map((grey) => gradientAgreement(grey, meanGrey, mean.width, box.box));
    return { line, meanGrey, floor: Math.max(MIN_PRESENCE, PRESENCE_SHARE * Math.max(...presence)) };
  });
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

/** The frame's grey (the mean of its channels), as the fill reads it. */
function greyOf({ width, height, data }: RgbFrame): Float32Array {
  const grey = new Float32Array(width * height);
  for (let p = 0; p < grey.length; p++) grey[p] = meanGrey(data, p);
  return grey;
}

/** Correlation of two grey pictures' gradient magnitudes inside `box` (pixels one in from the edge). */
function gradientAgreement(a: Float32Array, b: Float32Array, width: number, box: SizedRect): number {
  const height = a.length / width;
  const magnitude = (grey: Float32Array, p: number) =>
    Math.hypot(
      (grey[p + 1] as number) - (grey[p - 1] as number),
      (grey[p + width] as number) - (grey[p - width] as number),
    );
  const pairs: Array<[number, number]> = [];
  for (let y = Math.max(1, Math.floor(box.y)); y < Math.min(height - 1, Math.ceil(box.y + box.height)); y++) {
    for (let x = Math.max(1, Math.floor(box.x)); x < Math.min(width - 1, Math.ceil(box.x + box.width)); x++) {
      pairs.push([magnitude(a, y * width + x), magnitude(b, y * width + x)]);
    }
  }
  return correlation(pairs);
}

/** Pearson correlation of pairs; 0 when either side is flat. */
function correlation(pairs: Array<[number, number]>): number {
  const n = pairs.length;
  if (n === 0) return 0;
  const meanA = pairs.reduce((sum, [a]) => sum + a, 0) / n;
  const meanB = pairs.reduce((sum, [, b]) => sum + b, 0) / n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (const [a, b] of pairs) {
    ab += (a - meanA) * (b - meanB);
    aa += (a - meanA) ** 2;
    bb += (b - meanB) ** 2;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}
