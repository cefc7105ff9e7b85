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

/** The model's input for a frame: the frame shrunk by `scale` in its top-left corner, zero-padded to `width` x `height`. */
export interface DetectionInput {
  width: number;
  height: number;
  scale: number;
}

/**
 * The model's input for a frame: longer side at most maxSide, sides rounded to multiples of 32 (DB's
 * stride), the frame shrunk to fit them with its proportions kept and the rest padded. Padding rather
 * than stretching keeps thin crops (a line searched for after cleaning) undistorted, and frames of one
 * size give one input shape: the CUDA provider tunes its convolutions once per shape.
 */
export function detectionInputSize(width: number, height: number, maxSide: number): DetectionInput {
  const limit = Math.min(1, maxSide / Math.max(width, height));
  const toMultipleOf32 = (side: number) => Math.max(32, Math.round((side * limit) / 32) * 32);
  const input = { width: toMultipleOf32(width), height: toMultipleOf32(height) };
  return { ...input, scale: Math.min(limit, input.width / width, input.height / height) };
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
  const map: AffineMap = { origin: [0, 0], xStep: [1 / input.scale, 0], yStep: [0, 1 / input.scale] };
  // The frame fills the top-left corner; zero, after normalisation, is the mean colour it was trained on.
  const covered = {
    width: Math.min(input.width, Math.round(first.width * input.scale)),
    height: Math.min(input.height, Math.round(first.height * input.scale)),
  };
  frames.forEach((frame, index) => {
    const target = { data, offset: index * 3 * planeSize, planeSize, rowStride: input.width };
    samplePlanarBgr(frame, map, covered.width, covered.height, DETECTION_NORMALISATION, target);
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

function toFrameBox(box: MapBox, frame: RgbFrame, input: DetectionInput): TextBox {
  const points = box.points.map(([x, y]): [number, number] => [
    clamp(x / input.scale, 0, frame.width),
    clamp(y / input.scale, 0, frame.height),
  ]);
  return { points, box: boundingRect(points), score: box.score };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
