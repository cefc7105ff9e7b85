import { MotionEstimator } from "../fill/motion";
import { ShotCounter } from "../fill/shot-cut";
import { overlaps, type SizedRect } from "../geometry";
import { decodeFrames } from "../media/frames";
import type { VideoProbe } from "../media/probe";
import type { OcrEngine, Point, RgbFrame, TextBox, TextLine } from "../ocr/ocr";
import { timed } from "../stage-clock";
import { sightBoxEdges } from "./box-sightings";
import { changedRegions, searchedAfter } from "./changed-regions";
import { isSceneText, type Motion, project } from "./classify";
import { cornerCrops, withCornerBoxes } from "./corner-search";
import { extendToSlivers } from "./edge-entry";
import { lineLook, sameLook } from "./line-look";
import { lineMatches, normaliseText } from "./match-texts";
import { type Reach, readPastEnds, widened } from "./read-ends";
import { type FoundLine, ReadWindows } from "./read-windows";
import { movedAlongRow, type RowProfile, rowProfile } from "./row-link";
import { cellChange, cellsOf, frameSignature, suddenChangeShare } from "./signatures";
import { textLook } from "./text-look";
import { boxAt, buildTracks, type Detection, iou, type Track, trackText } from "./tracks";
import { cropFrame } from "./verify";

/**
 * Text is read on frames at most this big (long side): captions stay 15 pixels or taller, and the
 * detector runs in a third of the time it takes at 960.
 */
const ANALYSIS_LONG_SIDE = 640;
/** Frames read per second of video, besides those where something appears or leaves. */
const SAMPLES_PER_SECOND = 2;
const DETECT_BATCH = 4;
/** Share of the grid that must change suddenly for a frame to be read out of turn (a caption appears, a cut). */
const CHANGE_TRIGGER = 0.02;

export interface TextTrack {
  track: Track;
  text: string;
  kind: "overlay" | "scene";
  erase: boolean;
}

export interface Analysis {
  tracks: TextTrack[];
  frames: number;
  sampledFrames: number;
  /** When the last decoded frame is shown: short of the stated duration, the file was cut. */
  lastPtsSeconds: number;
  /** When each frame is shown, by index: the cleaning pass seeks to frames ahead of its window. */
  framePts: number[];
  /** The frames that start a shot, from the whole picture (a large plate may read as one too). */
  cuts: number[];
}

export interface AnalyseOptions {
  ocr: OcrEngine;
  /** The customer's texts: only lines that match them are erased. Null: every overlay. */
  texts?: string[] | null;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

export function analysisSize(probe: VideoProbe): { width: number; height: number } {
  const scale = Math.min(1, ANALYSIS_LONG_SIDE / Math.max(probe.width, probe.height));
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  return { width: even(probe.width), height: even(probe.height) };
}

interface AnalysisFrame {
  index: number;
  frame: RgbFrame;
}

/** A frame picked for reading, with the frames decoded since the one picked before it. */
interface Sampled extends AnalysisFrame {
  gap: AnalysisFrame[];
}

/** A frame whose lines were read; `small` is it at half size, for the camera's motion. */
interface ReadFrame extends AnalysisFrame {
  small: RgbFrame;
  lines: ReadLine[];
}

/** Gaps shorter than this between two samples are interpolated even when the lines changed. */
const MIN_GAP_TO_SPLIT = 3;
/** Boxes overlapping this much (where they were, or where the camera took them) are the same line, not moved. */
const SAME_PLACE_IOU = 0.7;

/** Below this the reading is a guess: the box still marks text to erase, but its words are not trusted. */
const MIN_READ_CONFIDENCE = 0.5;
/** Detector confidence a box needs to count as text at all. */
const MIN_BOX_SCORE = 0.6;

/** A box this close to one on the sample before is the same line, still there: its reading is reused. */
const SAME_BOX_IOU = 0.9;

/**
 * A line read on a frame, with its look there: a later box in its place is the same line only if it
 * looks the same. Its box is the detector's widened by `reach` to letters read past its ends.
 */
interface ReadLine extends TextLine {
  look: Float32Array;
  reach: Reach;
  /** Its columns' brightness, by which it is found again after its words slid along its row (row-link.ts). */
  profile: RowProfile;
}

/** What the detector last saw: each cell's signature when it was last searched, and the lines found. */
interface Searched {
  signature: Uint8Array;
  lines: ReadLine[];
}

/** A frame to read, with its signature. */
interface ToRead {
  frame: RgbFrame;
  signature: Uint8Array;
}

/**
 * The boxes of each frame: where the picture changed since `searched` (every frame of the batch is
 * compared with it), the detector searches crops of the changed cells; elsewhere the lines found
 * before still stand, with their readings (`kept`). A frame that changed too much is searched whole.
 */
async function findBoxes(
  ocr: OcrEngine,
  frames: ToRead[],
  searched: Searched | null,
): Promise<Array<{ kept: ReadLine[]; found: TextBox[]; regions: SizedRect[] | null }>> {
  const plans = frames.map(({ frame, signature }) => {
    if (!searched) return { frame, regions: null };
    const boxes = searched.lines.map(({ box }) => box);
    return {
      frame,
      regions: changedRegions(searched.signature, signature, boxes, frame.width, frame.height),
    };
  });
  const whole = plans.filter(({ regions }) => regions === null);
  const crops = plans.flatMap(({ frame, regions }) =>
    (regions ?? []).map((region) => ({ plan: frame, region, crop: cropFrame(frame, region) })),
  );
  // The corners of what is searched are searched again enlarged, for small handles (corner-search.ts).
  const corners = plans.map(({ frame, regions }) =>
    regions === null ? cornerCrops(frame, null) : regions.flatMap((region) => cornerCrops(frame, region)),
  );
  // One model call at a time: the stage clock charges the CPU between entering a stage and leaving it.
  const wholeBoxes = whole.length > 0 ? await ocr.detect(whole.map(({ frame }) => frame)) : [];
  const cropBoxes = crops.length > 0 ? await ocr.detect(crops.map(({ crop }) => crop)) : [];
  const allCorners = corners.flat();
  const cornerBoxes = allCorners.length > 0 ? await ocr.detect(allCorners.map(({ crop }) => crop)) : [];
  const sure = (boxes: TextBox[]) => boxes.filter((box) => box.score >= MIN_BOX_SCORE);
  let cornersBefore = 0;
  return plans.map(({ frame, regions }, p) => {
    const frameCorners = corners[p] ?? [];
    const boxesOfCorners = cornerBoxes.slice(cornersBefore, cornersBefore + frameCorners.length).map(sure);
    cornersBefore += frameCorners.length;
    const withCorners = (found: TextBox[]) => withCornerBoxes(frameCorners, boxesOfCorners, found);
    if (regions === null) {
      const found = sure(wholeBoxes[whole.findIndex((w) => w.frame === frame)] ?? []);
      return { kept: [], found: withCorners(found), regions };
    }
    const kept = (searched?.lines ?? []).filter(
      ({ box }) => !regions.some((region) => overlaps(region, box)),
    );
    const found = crops.flatMap(({ plan, region }, k) =>
      plan === frame ? sure(cropBoxes[k] ?? []).map((box) => offsetBox(box, region)) : [],
    );
    return { kept, found: withCorners(found), regions };
  });
}

/** A box found on a crop, in the coordinates of the frame the crop was cut from. */
function offsetBox(box: TextBox, region: SizedRect): TextBox {
  return {
    ...box,
    points: box.points.map(([x, y]): Point => [x + region.x, y + region.y]),
    box: { ...box.box, x: box.box.x + region.x, y: box.box.y + region.y },
  };
}

/**
 * Detects and reads the lines of a batch of frames. Unlike a plain OCR read, boxes the detector is
 * sure of are kept even when their words are hard to read (small or stylised letters are still
 * text to erase); such lines carry an empty text. With `reuse`, a box that sits where a line was
 * read with confidence on the sample before (`before`: the one before the batch) and looks as that
 * line did takes its reading instead of being read again: a caption on screen for seconds is read
 * once, a word replaced in the same place is read anew; so does a box in such a line's row whose words
 * are the line's slid along it (a ticker: pipeline/row-link.ts). Lines where the picture did not
 * change since `searched` are neither searched nor read again. Returns each frame's lines and what the detector
 * has seen after it.
 */
async function readLines(
  ocr: OcrEngine,
  frames: ToRead[],
  reading: { reuse: boolean; before: ReadLine[]; searched: Searched | null },
): Promise<Array<{ lines: ReadLine[]; searched: Searched }>> {
  if (!reading.searched && frames.length > 1) {
    // Nothing seen yet: the first frame is searched whole, the others only where they differ from it.
    const [first] = await readLines(ocr, frames.slice(0, 1), reading);
    if (!first) return [];
    const before = reading.reuse ? first.lines : reading.before;
    return [
      first,
      ...(await readLines(ocr, frames.slice(1), { ...reading, before, searched: first.searched })),
    ];
  }
  const boxes = await findBoxes(ocr, frames, reading.searched);
  const out: Array<{ lines: ReadLine[]; searched: Searched }> = [];
  let earlier = reading.reuse ? reading.before : [];
  for (const [i, { kept, found, regions }] of boxes.entries()) {
    const { frame, signature } = frames[i] as ToRead;
    const known = found.map(
      (box) =>
        earlier.find(
          (line) =>
            line.text !== "" &&
            iou(line.box, widened(box, line.reach).box) >= SAME_BOX_IOU &&
            sameLook(line.look, lineLook(frame, line.box)),
        ) ?? movedAlongRow(earlier, frame, box),
    );
    const unknown = found.filter((_, k) => !known[k]);
    const read = await ocr.recognizeBoxes(unknown.map((box) => ({ frame, box })));
    const others = [...kept, ...found.filter((_, k) => known[k])].map(({ box }) => box);
    const reaches = await readPastEnds(ocr, frame, read, others, MIN_READ_CONFIDENCE);
    let next = 0;
    const foundLines = found.map((box, k) => {
      const reused = known[k];
      const at = reused ? -1 : next++;
      const source = reused ?? (read[at] as TextLine);
      const reach = reused?.reach ?? (reaches[at] as Reach);
      const confident = source.confidence >= MIN_READ_CONFIDENCE;
      const text = confident ? source.text : "";
      const line = widened(box, reach);
      const { confidence, glyphs } = source;
      const look = lineLook(frame, line.box);
      return { ...line, text, confidence, glyphs, reach, look, profile: rowProfile(frame, line.box) };
    });
    const lines = [...kept, ...foundLines];
    const before = reading.searched?.signature ?? signature;
    const cells = searchedAfter(before, signature, regions, frame.width, frame.height);
    out.push({ lines, searched: { signature: cells, lines } });
    if (reading.reuse) earlier = lines;
  }
  return out;
}

/** Union of text boxes (given on a frame `scale` times bigger) as a mask, so motion features avoid the text. */
function textMask(frame: RgbFrame, lines: TextLine[], scale: number): Uint8Array {
  const mask = new Uint8Array(frame.width * frame.height);
  for (const { box } of lines) {
    const x0 = Math.max(0, Math.floor(box.x * scale));
    const x1 = Math.min(frame.width, Math.ceil((box.x + box.width) * scale));
    for (
      let y = Math.max(0, Math.floor(box.y * scale));
      y < Math.min(frame.height, Math.ceil((box.y + box.height) * scale));
      y++
    ) {
      mask.fill(255, y * frame.width + x0, y * frame.width + x1);
    }
  }
  return mask;
}

/**
 * The frame at half size (means of 2x2 pixels). Telling scene text from overlays needs the camera's
 * motion only roughly, so it is measured there, in a quarter of the time.
 */
function halved(frame: RgbFrame): RgbFrame {
  const width = frame.width >> 1;
  const height = frame.height >> 1;
  const data = new Uint8Array(width * height * 3);
  const row = frame.width * 3;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (2 * y * frame.width + 2 * x) * 3;
      for (let c = 0; c < 3; c++) {
        const sum =
          (frame.data[at + c] as number) +
          (frame.data[at + 3 + c] as number) +
          (frame.data[at + row + c] as number) +
          (frame.data[at + row + 3 + c] as number);
        data[(y * width + x) * 3 + c] = (sum + 2) >> 2;
      }
    }
  }
  return { width, height, data };
}

const WHOLE_FRAME = (frame: RgbFrame) => ({ x: 0, y: 0, width: frame.width, height: frame.height });

/** The camera's motion from one read frame to another, in analysis-frame pixels (measured at half size). */
async function cameraMotion(from: ReadFrame, to: ReadFrame): Promise<Motion | undefined> {
  const estimator = await MotionEstimator.create(
    from.small,
    textMask(from.small, from.lines, 0.5),
    WHOLE_FRAME(to.small),
  );
  try {
    const motion = estimator.track(to.small, textMask(to.small, to.lines, 0.5));
    return motion && scaleMotion(motion, 2);
  } finally {
    estimator.release();
  }
}

/** The box a box becomes under a motion (the bounding box of its moved corners). */
function movedBox(box: SizedRect, motion: Motion): SizedRect {
  const corners = [
    project(motion, box.x, box.y),
    project(motion, box.x + box.width, box.y),
    project(motion, box.x, box.y + box.height),
    project(motion, box.x + box.width, box.y + box.height),
  ];
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/**
 * The same lines in the same places on both frames: still, or carried along by the camera. Only
 * lines that were read count: boxes in textures come and go between frames without being text.
 */
function sameLines(before: TextLine[], after: TextLine[], motion: Motion | undefined): boolean {
  const read = (lines: TextLine[]) => lines.filter(({ text }) => text !== "");
  const [was, is] = [read(before), read(after)];
  if (was.length !== is.length) return false;
  return is.every(({ box }) =>
    was.some(
      (line) =>
        iou(line.box, box) >= SAME_PLACE_IOU ||
        (motion !== undefined && iou(movedBox(line.box, motion), box) >= SAME_PLACE_IOU),
    ),
  );
}

/** The frame read before, if a line sat where `box` is on it: to see what changed under the line since. */
function stillSince(before: ReadFrame | null, box: SizedRect): RgbFrame | undefined {
  return before?.lines.some((line) => iou(line.box, box) >= SAME_PLACE_IOU) ? before.frame : undefined;
}

/** A frame changing at least this share of the strongest change next to it is still the text arriving or leaving. */
const SLIDE_SHARE = 0.35;
/** Cell change below which a frame shows nothing arriving: compression noise and slow camera moves. */
const MIN_SLIDE_CHANGE = 2;

/**
 * Moves the first and last frame of a track to where its box's picture changes most (within one
 * frame), widened over the frames next to it that change nearly as much: text sliding in over the
 * frame's edge shows a sliver on the frames before the big change.
 */
function refineEnds(track: Track, sampled: number[], signatures: Uint8Array[], probe: VideoProbe): void {
  const before = sampled.filter((f) => f < track.first).at(-1) ?? -1;
  const after = sampled.find((f) => f > track.last) ?? signatures.length;
  /** Change of the box's cells on frame f (from f - 1), for f in from..to. */
  const changes = (from: number, to: number, frame: number) => {
    const cells = cellsOf(boxAt(track, frame), probe.width, probe.height);
    const found = new Map<number, number>();
    for (let f = Math.max(1, from); f <= to && f < signatures.length; f++) {
      found.set(f, cellChange(signatures[f - 1] as Uint8Array, signatures[f] as Uint8Array, cells));
    }
    return found;
  };
  const strongest = (found: Map<number, number>) => {
    let best = -1;
    let bestChange = 4; // below this, no frame clearly shows the text arriving or leaving
    for (const [f, change] of found) {
      if (change > bestChange) {
        best = f;
        bestChange = change;
      }
    }
    return { best, floor: Math.max(MIN_SLIDE_CHANGE, bestChange * SLIDE_SHARE) };
  };
  /** From the strongest change, the furthest frame in `step`'s direction still changing nearly as much. */
  const widened = (found: Map<number, number>, step: -1 | 1) => {
    const { best, floor } = strongest(found);
    if (best < 0) return null;
    let frame = best;
    while ((found.get(frame + step) ?? 0) >= floor) frame += step;
    return frame;
  };
  const first = widened(changes(before + 1, track.first, track.first), -1);
  // Without a clear change, err on the side of erasing: from just after the last sample without it.
  track.first = first ?? before + 1;
  const end = widened(changes(track.last + 1, after, track.last), 1);
  track.last = end === null ? Math.min(after, signatures.length) - 1 : end - 1;
}

/**
 * The analysis pass: decodes the video at a reduced size, reads the text on a few frames a second
 * and wherever the picture changes (batched model calls), follows each line over time, finds the
 * exact frames it appears and disappears on, and decides what to erase: every overlay, or only the
 * lines matching the customer's texts. Text that moves with the filmed scene is kept.
 */
export async function analyseVideo(
  path: string,
  probe: VideoProbe,
  options: AnalyseOptions,
): Promise<Analysis> {
  const size = analysisSize(probe);
  const toFull = probe.width / size.width;
  const interval = Math.max(1, Math.round(probe.avgFps / SAMPLES_PER_SECOND));
  const signatures: Uint8Array[] = [];
  const samples: Array<{ frame: number; detections: Detection[] }> = [];
  const motions = new Map<number, Motion | undefined>();
  let batch: Sampled[] = [];
  let previous: ReadFrame | null = null;
  let lastSampled = Number.NEGATIVE_INFINITY;
  const framePts: number[] = [];
  // The frames that start a shot, told from the whole picture (no mask is known yet, so a large
  // plate coming on or going may read as a cut too): the cleaning pass looks across none.
  const shots = new ShotCounter();
  const cuts: number[] = [];
  const wholePicture = new Uint8Array(size.width * size.height);

  const reading = { reuse: !options.texts };
  /** What the detector has seen so far: frames are searched only where they changed since. */
  let searched: Searched | null = null;
  const toRead = ({ index, frame }: AnalysisFrame): ToRead => ({
    frame,
    signature: signatures[index] as Uint8Array,
  });
  /** A line read on an analysis frame, as a detection at full resolution. */
  const detectionOf = (index: number, frame: RgbFrame, line: TextLine, before?: RgbFrame): Detection => ({
    frame: index,
    box: {
      x: line.box.x * toFull,
      y: line.box.y * toFull,
      width: line.box.width * toFull,
      height: line.box.height * toFull,
    },
    text: line.text,
    confidence: line.confidence,
    look: textLook(frame, line.box, before),
    edges: sightBoxEdges(frame, line.box, toFull),
  });
  const windows = new ReadWindows(options.ocr, {
    minBoxScore: MIN_BOX_SCORE,
    minReadConfidence: MIN_READ_CONFIDENCE,
  });
  /** Adds the lines the windows' searches found to the samples they were found on, once each. */
  const recordFound = (found: FoundLine[]) => {
    for (const { index, frame, line } of found) {
      const detection = detectionOf(index, frame, line);
      const sample = samples.find((read) => read.frame === index);
      if (sample?.detections.every(({ box }) => iou(box, detection.box) < SAME_PLACE_IOU)) {
        sample.detections.push(detection);
      }
    }
  };
  /** Keeps a read frame as a sample, with the camera's motion from the sample before it. */
  const record = (read: ReadFrame, motion: Motion | undefined) => {
    const before: ReadFrame | null = previous;
    if (previous) motions.set(read.index, motion ? scaleMotion(motion, toFull) : undefined);
    const cut = before !== null && cuts.some((frame) => frame > before.index && frame <= read.index);
    windows.add(read.index, read.frame, read.lines, cut ? undefined : motion);
    previous = read;
    samples.push({
      frame: read.index,
      detections: read.lines.map((line) =>
        detectionOf(read.index, read.frame, line, stillSince(before, line.box)),
      ),
    });
  };
  /**
   * Records `to`, read after `from`: when the lines differ between the two (text appeared, left, or
   * moved other than with the camera), the frame halfway between is read first, and so on, so that
   * sliding or changing text is followed to within a few frames.
   */
  const settle = async (from: ReadFrame, to: ReadFrame, gap: AnalysisFrame[]): Promise<void> => {
    const motion = await timed("motion", () => cameraMotion(from, to));
    if (gap.length < MIN_GAP_TO_SPLIT || sameLines(from.lines, to.lines, motion)) {
      record(to, motion);
      return;
    }
    const half = gap.length >> 1;
    const middle = gap[half] as AnalysisFrame;
    const [result] = await readLines(options.ocr, [toRead(middle)], {
      ...reading,
      before: from.lines,
      searched,
    });
    searched = result?.searched ?? searched;
    const read = { ...middle, small: halved(middle.frame), lines: result?.lines ?? [] };
    await settle(from, read, gap.slice(0, half));
    await settle(read, to, gap.slice(half + 1));
  };
  const readBatch = async () => {
    if (batch.length === 0) return;
    const results = await readLines(
      options.ocr,
      batch.map(toRead),
      // With the customer's texts every box is read: two lines in one place must not share a reading.
      { ...reading, before: previous?.lines ?? [], searched },
    );
    searched = results.at(-1)?.searched ?? searched;
    for (const [i, sample] of batch.entries()) {
      const read = { ...sample, small: halved(sample.frame), lines: results[i]?.lines ?? [] };
      if (previous) await settle(previous, read, sample.gap);
      else record(read, undefined);
    }
    batch = [];
    recordFound(await windows.search());
  };
  // Frames decoded since the last sample: read when the lines differ on the samples around them.
  let gap: AnalysisFrame[] = [];

  for await (const frame of decodeFrames(path, probe, { size, signal: options.signal })) {
    const signature = frameSignature(frame.data, size.width, size.height);
    const changed =
      signatures.length > 0 &&
      suddenChangeShare(signatures.at(-2), signatures.at(-1) as Uint8Array, signature) > CHANGE_TRIGGER;
    signatures.push(signature);
    framePts.push(frame.ptsSeconds);
    const analysisFrame = {
      index: frame.index,
      frame: { width: size.width, height: size.height, data: frame.data },
    };
    if (shots.shotOf(analysisFrame.frame, wholePicture) > cuts.length) cuts.push(frame.index);
    if (frame.index - lastSampled >= interval || (changed && frame.index - lastSampled >= 2)) {
      batch.push({ ...analysisFrame, gap });
      gap = [];
      lastSampled = frame.index;
      if (batch.length >= DETECT_BATCH) await readBatch();
    } else {
      gap.push(analysisFrame);
    }
    options.onProgress?.(Math.min(1, (frame.index + 1) / Math.max(1, probe.frameCount)));
  }
  // The last frame is always read: without it, a line still on screen at the end would be taken to
  // leave wherever its box last changed (a cut under a corner handle).
  const last = gap.pop();
  if (last) batch.push({ ...last, gap });
  await readBatch();
  recordFound(await windows.finish());

  const sampledFrames = samples.map((s) => s.frame);
  const tracks = withoutNoise(buildTracks(samples)).map((track) => {
    refineEnds(track, sampledFrames, signatures, probe);
    extendToSlivers(track, probe.width, signatures.length - 1);
    const text = trackText(track);
    const kind = isSceneText(track, motions) ? ("scene" as const) : ("overlay" as const);
    const erase = options.texts ? lineMatches(text, options.texts) : kind === "overlay";
    return { track, text, kind, erase };
  });
  return {
    tracks,
    frames: signatures.length,
    sampledFrames: samples.length,
    lastPtsSeconds: framePts.at(-1) ?? 0,
    framePts,
    cuts,
  };
}

const readable = (track: Track) => track.detections.some((d) => normaliseText(d.text).length >= 2);

/** Same text row (vertical overlap) and close sideways, at the same time: a piece of one line. */
function partOf(piece: Track, line: Track): boolean {
  if (piece.last < line.first || line.last < piece.first) return false;
  const a = piece.detections[0]?.box as SizedRect;
  const b = boxAt(line, Math.max(piece.first, line.first));
  const vertical = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const gap = Math.max(a.x - (b.x + b.width), b.x - (a.x + a.width), 0);
  return vertical > 0.5 * Math.min(a.height, b.height) && gap < 1.5 * Math.max(a.height, b.height);
}

/**
 * Drops what the detector took for text in textures: tracks never read as words. A box that could
 * not be read but sits on a line that was (a word the reader missed) is kept: it is part of it.
 */
function withoutNoise(tracks: Track[]): Track[] {
  const lines = tracks.filter(readable);
  return tracks.filter(
    (track) => readable(track) || lines.some((line) => line !== track && partOf(track, line)),
  );
}

/** A homography found on reduced frames, for full-resolution coordinates: S·H·S⁻¹. */
function scaleMotion(h: readonly number[], factor: number): Motion {
  const [a, b, c, d, e, f, g, k, l] = h as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return [a, b, c * factor, d, e, f * factor, g / factor, k / factor, l];
}
