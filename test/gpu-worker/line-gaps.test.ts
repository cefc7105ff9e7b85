import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createOcrEngine,
  type OcrEngine,
  type RgbFrame,
  type TextLine,
} from "../../gpu-worker/engine/ocr/ocr";
import { missedSightings } from "../../gpu-worker/engine/pipeline/line-gaps";
import type { WindowFrame } from "../../gpu-worker/engine/pipeline/read-windows";
import { fixtureFrame } from "../helpers/pictures";

/**
 * A 9:16 frame (304x540) of a night city shot (cityCC0.mpg, the bench's city footage) with a yellow
 * outlined "UP" from x 133 to 174, y 384 to 411 over a tower's lit windows, a hook "CITY GUIDE" at
 * the top: the detector, given the whole frame, finds the hook and not the word.
 */
const WORD_OVER_WINDOWS = path.resolve(import.meta.dirname, "../fixtures/word-over-windows.png");
const WORD = { x: 133, y: 384, width: 41, height: 27 };
const OPTIONS = { minBoxScore: 0.6, minReadConfidence: 0.5 };

const picture = (): RgbFrame => fixtureFrame(WORD_OVER_WINDOWS, 304, 540);

/** A line the detector found on another frame, in the word's place. */
const seenElsewhere: TextLine = {
  box: WORD,
  points: [
    [WORD.x, WORD.y],
    [WORD.x + WORD.width, WORD.y],
    [WORD.x + WORD.width, WORD.y + WORD.height],
    [WORD.x, WORD.y + WORD.height],
  ],
  score: 0.98,
  text: "UP",
  confidence: 0.99,
  glyphs: [],
};

describe("a line the detector missed on some frames of a window", () => {
  let ocr: OcrEngine;
  beforeAll(async () => {
    ocr = await createOcrEngine();
  }, 60_000);
  afterAll(async () => {
    await ocr?.close();
  });

  it("is found on them around where other frames showed it, enlarged", async () => {
    const frame = picture();
    const [boxes] = await ocr.detect([frame]);
    const own = await ocr.recognize(frame, boxes ?? []);
    // The premise: on the whole frame the detector finds the hook only.
    expect(own.map(({ text }) => text)).toEqual(["CITYGUIDE"]);
    const window: WindowFrame[] = [
      { index: 54, frame, lines: [seenElsewhere], motion: undefined },
      { index: 40, frame, lines: own, motion: undefined },
    ];
    const found = await missedSightings(ocr, window, OPTIONS);
    // (Frame 54 is the same picture, so it shows the hook too, which frame 40 read: taken by its look.)
    expect(found.map(({ index, line }) => [index, line.text])).toEqual([
      [40, "UP"],
      [54, "CITYGUIDE"],
    ]);
    const { box } = found[0]?.line ?? seenElsewhere;
    expect(Math.abs(box.x - WORD.x)).toBeLessThanOrEqual(4);
    expect(Math.abs(box.x + box.width - (WORD.x + WORD.width))).toBeLessThanOrEqual(4);
  }, 60_000);

  it("finds nothing on a frame that shows nothing there", async () => {
    const frame = picture();
    const blank = { width: 304, height: 540, data: new Uint8Array(304 * 540 * 3).fill(40) };
    const window: WindowFrame[] = [
      { index: 54, frame, lines: [seenElsewhere], motion: undefined },
      { index: 60, frame: blank, lines: [], motion: undefined },
    ];
    expect(await missedSightings(ocr, window, OPTIONS)).toEqual([]);
  }, 60_000);

  /** A frame of grey noise, the same for the same seed: texture with no letters for the detector. */
  const noise = (seed: number): RgbFrame => {
    const data = new Uint8Array(304 * 540 * 3);
    let state = seed;
    for (let i = 0; i < data.length; i += 3) {
      state = (state * 1103515245 + 12345) % 2147483648;
      data.fill(60 + Math.floor((state / 2147483648) * 120), i, i + 3);
    }
    return { width: 304, height: 540, data };
  };

  it("takes a frame that looks in the line's place as the frame showing it does, though the detector finds nothing there", async () => {
    // The detector "read" the line on frame 10 (as a faint handle is caught on a few frames): frame
    // 11 shows the same picture there, frame 12 another.
    const window: WindowFrame[] = [
      { index: 10, frame: noise(1), lines: [seenElsewhere], motion: undefined },
      { index: 11, frame: noise(1), lines: [], motion: undefined },
      { index: 12, frame: noise(2), lines: [], motion: undefined },
    ];
    const found = await missedSightings(ocr, window, OPTIONS);
    expect(found.map(({ index, line }) => [index, line.text])).toEqual([[11, "UP"]]);
  }, 60_000);

  it("walks back into the frames of the window searched before, for a line this window found first", async () => {
    const earlier: WindowFrame[] = [
      { index: 0, frame: noise(3), lines: [], motion: undefined },
      { index: 5, frame: noise(1), lines: [], motion: undefined },
    ];
    const window: WindowFrame[] = [{ index: 10, frame: noise(1), lines: [seenElsewhere], motion: undefined }];
    const found = await missedSightings(ocr, window, OPTIONS, earlier);
    expect(found.map(({ index }) => index)).toEqual([5]);
  }, 60_000);
});
