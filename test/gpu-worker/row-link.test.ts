import { describe, expect, it } from "vitest";
import type { RgbFrame, TextBox } from "../../gpu-worker/engine/ocr/ocr";
import { NO_REACH } from "../../gpu-worker/engine/pipeline/read-ends";
import { movedAlongRow, rowProfile } from "../../gpu-worker/engine/pipeline/row-link";

const WIDTH = 640;
const HEIGHT = 120;
/** The ticker's row: white letters over a dark band. */
const ROW = { y: 50, height: 20 };

/** Letter-like strokes: columns lit or not by a fixed pseudo-random run pattern of `words` from `offset`. */
function tickerFrame(words: number, offset: number): RgbFrame {
  const data = new Uint8Array(WIDTH * HEIGHT * 3).fill(30);
  for (let x = 0; x < WIDTH; x++) {
    const at = x + offset;
    const lit = ((Math.imul(Math.floor(at / 5) ^ Math.imul(words, 0x9e3779b9), 2654435761) >>> 16) & 3) !== 0;
    if (!lit) continue;
    for (let y = ROW.y + 3; y < ROW.y + ROW.height - 3; y++)
      data.fill(235, (y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3);
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** A box the detector found across the whole row, pinned to the frame's edges. */
const acrossRow = (y = ROW.y): TextBox => {
  const box = { x: 0, y, width: WIDTH, height: ROW.height };
  return {
    box,
    score: 0.9,
    points: [
      [0, y],
      [WIDTH, y],
      [WIDTH, y + ROW.height],
      [0, y + ROW.height],
    ],
  };
};

/** The line as read on `frame`. */
function readOn(frame: RgbFrame, text = "BREAKING - PRICES CUT") {
  const { box, points, score } = acrossRow();
  return {
    text,
    confidence: 0.95,
    box,
    points,
    score,
    glyphs: [],
    reach: NO_REACH,
    profile: rowProfile(frame, box),
  };
}

describe("a line found again after its words slid along its row", () => {
  it("is a ticker whose words moved 30 px while its box stayed pinned to the frame's edges", () => {
    const line = readOn(tickerFrame(0, 0));
    expect(movedAlongRow([line], tickerFrame(0, 30), acrossRow())).toBe(line);
    expect(movedAlongRow([line], tickerFrame(0, -45), acrossRow())).toBe(line);
  });

  it("is not a line that shows a quarter more of itself than when it was read: its new words are read", () => {
    const frame = tickerFrame(0, 0);
    const half = { x: WIDTH / 2, y: ROW.y, width: WIDTH / 2, height: ROW.height };
    const line = { ...readOn(frame), box: half, profile: rowProfile(frame, half) };
    expect(movedAlongRow([line], tickerFrame(0, 30), acrossRow())).toBeUndefined();
  });

  it("is not other words in the same row, a line never read, or a line in another row", () => {
    const line = readOn(tickerFrame(0, 0));
    expect(movedAlongRow([line], tickerFrame(7, 30), acrossRow())).toBeUndefined();
    expect(movedAlongRow([{ ...line, text: "" }], tickerFrame(0, 30), acrossRow())).toBeUndefined();
    expect(movedAlongRow([line], tickerFrame(0, 30), acrossRow(ROW.y + 30))).toBeUndefined();
  });
});
