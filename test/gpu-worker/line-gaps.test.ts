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
    expect(found.map(({ index, line }) => [index, line.text])).toEqual([[40, "UP"]]);
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
});
