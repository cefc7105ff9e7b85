import { Tensor } from "onnxruntime-node";
import { boxesFromProbabilityMap, type DbOptions, type MapBox } from "./db-postprocess";
import { type AffineMap, type Normalisation, samplePlanarBgr } from "./frame-sampler";
import { boundingRect } from "./geometry";
import type { OpenedModel } from "./model-loader";
import type { RgbFrame, TextBox } from "./types";

export interface DetectorOptions {
  /** The frame is shrunk so that its longer side is at most this many pixels (never enlarged). */
  maxSide: number;
  /** Frames of one size per model call. */
  batchSize: number;
  db: DbOptions;
}

/** PaddleOCR's det_limit_side_len. */
export const DEFAULT_MAX_SIDE = 960;

/** ImageNet statistics in B, G, R order, as PP-OCRv4 det was trained with. */
const DETECTION_NORMALISATION: Normalisation = { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] };

/** The model's input size for a frame: longer side at most maxSide, sides multiples of 32 (DB's stride). */
export function detectionInputSize(
  width: number,
  height: number,
  maxSide: number,
): { width: number; height: number } {
  const ratio = Math.min(1, maxSide / Math.max(width, height));
  const toMultipleOf32 = (side: number) => Math.max(32, Math.round((side * ratio) / 32) * 32);
  return { width: toMultipleOf32(width), height: toMultipleOf32(height) };
}

export async function detectText(
  model: OpenedModel,
  frames: RgbFrame[],
  options: DetectorOptions,
): Promise<TextBox[][]> {
  for (const frame of frames) assertRgbFrame(frame);
  const results: TextBox[][] = frames.map(() => []);
  for (const indices of sameSizeBatches(frames, options.batchSize)) {
    const batch = indices.map((index) => frames[index] as RgbFrame);
    const boxes = await detectBatch(model, batch, options);
    indices.forEach((frameIndex, batchIndex) => {
      results[frameIndex] = boxes[batchIndex] ?? [];
    });
  }
  return results;
}

export function assertRgbFrame(frame: RgbFrame): void {
  if (frame.width <= 0 || frame.height <= 0 || frame.data.length !== frame.width * frame.height * 3) {
    throw new RangeError(
      `an RGB24 frame of ${frame.width}x${frame.height} needs ${frame.width * frame.height * 3} bytes`,
    );
  }
}

/** Frame indices grouped by frame size, each group cut into runs of at most batchSize. */
export function sameSizeBatches(frames: RgbFrame[], batchSize: number): number[][] {
  const bySize = new Map<string, number[]>();
  frames.forEach((frame, index) => {
    const key = `${frame.width}x${frame.height}`;
    bySize.set(key, [...(bySize.get(key) ?? []), index]);
  });
  const batches: number[][] = [];
  for (const indices of bySize.values()) {
    for (let start = 0; start < indices.length; start += batchSize) {
      batches.push(indices.slice(start, start + batchSize));
    }
  }
  return batches;
}

async function detectBatch(
  model: OpenedModel,
  frames: RgbFrame[],
  options: DetectorOptions,
): Promise<TextBox[][]> {
  const first = frames[0] as RgbFrame;
  const input = detectionInputSize(first.width, first.height, options.maxSide);
  const planeSize = input.width * input.height;
  const data = new Float32Array(frames.length * 3 * planeSize);
  const map: AffineMap = {
    origin: [0, 0],
    xStep: [first.width / input.width, 0],
    yStep: [0, first.height / input.height],
  };
  frames.forEach((frame, index) => {
    const target = { data, offset: index * 3 * planeSize, planeSize, rowStride: input.width };
    samplePlanarBgr(frame, map, input.width, input.height, DETECTION_NORMALISATION, target);
  });
  const feeds = {
    [model.inputName]: new Tensor("float32", data, [frames.length, 3, input.height, input.width]),
  };
  const output = (await model.session.run(feeds))[model.outputName] as Tensor;
  const probabilities = output.data as Float32Array;
  return frames.map((frame, index) => {
    const probabilityMap = {
      width: input.width,
      height: input.height,
      data: probabilities.subarray(index * planeSize, (index + 1) * planeSize),
    };
    return boxesFromProbabilityMap(probabilityMap, options.db).map((box) => toFrameBox(box, frame, input));
  });
}

function toFrameBox(box: MapBox, frame: RgbFrame, input: { width: number; height: number }): TextBox {
  const scaleX = frame.width / input.width;
  const scaleY = frame.height / input.height;
  const points = box.points.map(([x, y]): [number, number] => [
    clamp(x * scaleX, 0, frame.width),
    clamp(y * scaleY, 0, frame.height),
  ]);
  return { points, box: boundingRect(points), score: box.score };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
