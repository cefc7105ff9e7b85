import { describe, expect, it } from "vitest";
import { classCharacters, ctcGreedyDecode } from "../../gpu-worker/engine/ocr/ctc-decode";
import { boxesFromProbabilityMap, DEFAULT_DB_OPTIONS } from "../../gpu-worker/engine/ocr/db-postprocess";
import { detectionInputSize, sameSizeBatches } from "../../gpu-worker/engine/ocr/detector";
import { type AffineMap, samplePlanarBgr } from "../../gpu-worker/engine/ocr/frame-sampler";
import {
  convexHull,
  minAreaRect,
  orderCorners,
  rectSides,
  unclipRect,
} from "../../gpu-worker/engine/ocr/geometry";
import { textCrop } from "../../gpu-worker/engine/ocr/text-crop";
import type { Point, RgbFrame } from "../../gpu-worker/engine/ocr/types";

function expectPointsClose(actual: Point[], expected: Point[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((point, index) => {
    expect(point[0]).toBeCloseTo(expected[index]?.[0] ?? Number.NaN, 6);
    expect(point[1]).toBeCloseTo(expected[index]?.[1] ?? Number.NaN, 6);
  });
}

/** A probability map with the given value inside each rectangle [x0, y0, x1, y1) and 0 elsewhere. */
function probabilityMap(
  width: number,
  height: number,
  blocks: Array<[number, number, number, number, number]>,
) {
  const data = new Float32Array(width * height);
  for (const [x0, y0, x1, y1, value] of blocks) {
    for (let y = y0; y < y1; y++) data.fill(value, y * width + x0, y * width + x1);
  }
  return { width, height, data };
}

describe("geometry", () => {
  it("finds the min-area rectangle of rotated points and orders its corners clockwise from top-left", () => {
    const angle = Math.PI / 12;
    const [u, v]: [Point, Point] = [
      [Math.cos(angle), Math.sin(angle)],
      [-Math.sin(angle), Math.cos(angle)],
    ];
    const corner = (a: number, b: number): Point => [100 + a * u[0] + b * v[0], 50 + a * u[1] + b * v[1]];
    const inner = Array.from({ length: 50 }, (_, index) => corner((index * 37) % 200, (index * 13) % 40));
    const corners = [corner(0, 0), corner(200, 0), corner(200, 40), corner(0, 40)];
    const rectangle = orderCorners(minAreaRect(convexHull([...inner, ...corners])));
    const { width, height } = rectSides(rectangle);
    expect(width).toBeCloseTo(200, 6);
    expect(height).toBeCloseTo(40, 6);
    expectPointsClose(rectangle, corners);
  });

  it("orders shuffled axis-aligned corners", () => {
    const shuffled: Point[] = [
      [10, 30],
      [50, 10],
      [10, 10],
      [50, 30],
    ];
    expect(orderCorners(shuffled)).toEqual([
      [10, 10],
      [50, 10],
      [50, 30],
      [10, 30],
    ]);
  });

  it("unclips each side by area * ratio / perimeter", () => {
    const box: Point[] = [
      [0, 0],
      [100, 0],
      [100, 20],
      [0, 20],
    ];
    // 100 * 20 * 1.5 / 240 = 12.5
    expectPointsClose(unclipRect(box, 1.5), [
      [-12.5, -12.5],
      [112.5, -12.5],
      [112.5, 32.5],
      [-12.5, 32.5],
    ]);
  });
});

describe("DB postprocessing", () => {
  it("turns a confident region into an unclipped box and drops an unsure one", () => {
    const map = probabilityMap(200, 100, [
      [20, 40, 120, 60, 0.9],
      [150, 10, 190, 30, 0.45],
    ]);
    const boxes = boxesFromProbabilityMap(map, DEFAULT_DB_OPTIONS);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]?.score).toBeCloseTo(0.9, 6);
    expectPointsClose(boxes[0]?.points ?? [], [
      [7.5, 27.5],
      [132.5, 27.5],
      [132.5, 72.5],
      [7.5, 72.5],
    ]);
  });

  it("keeps separate regions apart, in reading order, and ignores specks", () => {
    const map = probabilityMap(300, 200, [
      [20, 150, 280, 180, 0.95],
      [160, 20, 280, 50, 0.95],
      [20, 22, 140, 52, 0.95],
      [100, 100, 102, 102, 0.95],
    ]);
    const topLefts = boxesFromProbabilityMap(map).map((box) => box.points[0] as Point);
    // Unclip offsets: 120 * 30 * 1.5 / 300 = 18 for the short lines, 260 * 30 * 1.5 / 580 for the long one.
    const longOffset = (260 * 30 * 1.5) / 580;
    expectPointsClose(topLefts, [
      [2, 4],
      [142, 2],
      [20 - longOffset, 150 - longOffset],
    ]);
  });

  it("finds nothing in an empty map", () => {
    expect(boxesFromProbabilityMap(probabilityMap(64, 64, []))).toEqual([]);
  });
});

describe("detection input", () => {
  it("shrinks the longer side to maxSide, sides multiples of 32, proportions kept, never enlarging", () => {
    expect(detectionInputSize(1280, 720, 960)).toEqual({ width: 960, height: 544, scale: 0.75 });
    expect(detectionInputSize(1080, 1920, 960)).toEqual({ width: 544, height: 960, scale: 0.5 });
    // 360 rounds to 352: the frame shrinks to 626x352 and 14 columns are padding, not a squeeze.
    expect(detectionInputSize(1280, 720, 640)).toEqual({ width: 640, height: 352, scale: 352 / 720 });
    expect(detectionInputSize(300, 100, 960)).toEqual({ width: 288, height: 96, scale: 0.96 });
    // A thin crop is padded, not stretched: 210x50 sits in 224x64 at its own size.
    expect(detectionInputSize(210, 50, 960)).toEqual({ width: 224, height: 64, scale: 1 });
  });

  it("batches frames of the same size together", () => {
    const frame = (width: number, height: number): RgbFrame => ({ width, height, data: new Uint8Array(0) });
    const frames = [frame(4, 2), frame(2, 4), frame(4, 2), frame(4, 2), frame(2, 4)];
    expect(sameSizeBatches(frames, 2)).toEqual([[0, 2], [3], [1, 4]]);
  });
});

describe("text crop", () => {
  const box = (points: Point[]) => ({ points, box: { x: 0, y: 0, width: 0, height: 0 }, score: 1 });

  it("scales a horizontal box to a 48-high strip keeping its aspect ratio", () => {
    const crop = textCrop(
      box([
        [10, 20],
        [410, 20],
        [410, 70],
        [10, 70],
      ]),
      1600,
    );
    expect(crop.width).toBe(384);
    expect(crop.map).toEqual({ origin: [10, 20], xStep: [400 / 384, 0], yStep: [0, 50 / 48] });
  });

  it("turns a tall box a quarter anticlockwise and caps the strip width", () => {
    const crop = textCrop(
      box([
        [0, 0],
        [20, 0],
        [20, 400],
        [0, 400],
      ]),
      800,
    );
    expect(crop.width).toBe(800);
    expect(crop.map.origin).toEqual([20, 0]);
    expect(crop.map.xStep).toEqual([0, 0.5]);
    expect(crop.map.yStep).toEqual([-20 / 48, 0]);
  });
});

describe("CTC decoding", () => {
  it("builds the classes as blank, the dictionary's lines, then a space", () => {
    expect(classCharacters("a\r\nb\nc\n")).toEqual(["", "a", "b", "c", " "]);
  });

  it("merges repeats, drops blanks and averages the kept probabilities", () => {
    const characters = ["", "a", "b", " "];
    const best = [1, 1, 0, 1, 3, 2, 0];
    const probabilities = new Float32Array(best.length * characters.length);
    best.forEach((index, step) => {
      probabilities.fill(0.1, step * characters.length, (step + 1) * characters.length);
      probabilities[step * characters.length + index] = 0.7 + step * 0.01;
    });
    const decoded = ctcGreedyDecode(probabilities, best.length, characters);
    expect(decoded.text).toBe("aa b");
    expect(decoded.confidence).toBeCloseTo((0.7 + 0.73 + 0.74 + 0.75) / 4, 5);
    // Each character where its step lies along the strip: steps 0, 3, 4 and 5 of 7.
    expect(decoded.glyphs.map(({ along }) => along)).toEqual([0.5 / 7, 3.5 / 7, 4.5 / 7, 5.5 / 7]);
    expect(decoded.glyphs[1]?.probability).toBeCloseTo(0.73, 5);
  });

  it("places the characters along the strip alone, not the padding after it", () => {
    // A strip 2 steps long padded to 4: a character on its second step lies at three quarters of it.
    const probabilities = new Float32Array([0.9, 0.1, 0.2, 0.8, 0.9, 0.1, 0.9, 0.1]);
    expect(ctcGreedyDecode(probabilities, 4, ["", "a"], 0, 2).glyphs[0]?.along).toBe(0.75);
  });

  it("reads nothing from all blanks", () => {
    const probabilities = new Float32Array([0.9, 0.1, 0.8, 0.2]);
    expect(ctcGreedyDecode(probabilities, 2, ["", "a"])).toEqual({ text: "", confidence: 0, glyphs: [] });
  });
});

describe("the detector's input", () => {
  const frame: RgbFrame = {
    width: 37,
    height: 23,
    data: Uint8Array.from({ length: 37 * 23 * 3 }, (_, i) => (i * 2654435761) >>> 24),
  };
  const normalisation = {
    mean: [0.485, 0.456, 0.406] as [number, number, number],
    std: [0.229, 0.224, 0.225] as [number, number, number],
  };
  const sampled = (map: AffineMap) => {
    const planeSize = frame.width * frame.height;
    const data = new Float32Array(3 * planeSize);
    samplePlanarBgr(frame, map, frame.width, frame.height, normalisation, {
      data,
      offset: 0,
      planeSize,
      rowStride: frame.width,
    });
    return data;
  };

  it("of a frame taken at its own size is each pixel normalised, in B, G, R planes, as a resampling would give it", () => {
    const input = sampled({ origin: [0, 0], xStep: [1, 0], yStep: [0, 1] });
    // A map a hair off the identity goes through the bilinear sampler.
    const resampled = sampled({ origin: [1e-9, 0], xStep: [1, 0], yStep: [0, 1] });
    const planeSize = frame.width * frame.height;
    for (let p = 0; p < planeSize; p++) {
      for (const [plane, channel] of [
        [0, 2],
        [1, 1],
        [2, 0],
      ] as const) {
        const value = (frame.data[p * 3 + channel] as number) / 255;
        const expected =
          (value - (normalisation.mean[plane] as number)) / (normalisation.std[plane] as number);
        expect(input[plane * planeSize + p]).toBeCloseTo(expected, 5);
        expect(input[plane * planeSize + p]).toBeCloseTo(resampled[plane * planeSize + p] as number, 5);
      }
    }
  });
});
