import { Tensor } from "onnxruntime-node";
import { ctcGreedyDecode, type DecodedText } from "./ctc-decode";
import { type Normalisation, samplePlanarBgr } from "./frame-sampler";
import type { OpenedModel } from "./model-loader";
import { RECOGNITION_HEIGHT, type TextCrop, textCrop } from "./text-crop";
import type { BoxInFrame, RgbFrame } from "./types";

export interface RecognizerOptions {
  /** Text strips per model call. */
  batchSize: number;
  /** Strips are padded to at least this width, the width PP-OCRv4 rec was trained at. */
  minWidth: number;
  /** Longer strips are squeezed to this width. */
  maxWidth: number;
}

export const DEFAULT_STRIP_WIDTHS = { minWidth: 320, maxWidth: 1600 };

const RECOGNITION_NORMALISATION: Normalisation = { mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] };

/**
 * Batch widths are rounded up to a multiple of this (a multiple of the 8 columns per output time step):
 * fewer distinct shapes spare CUDA the convolution tuning it redoes for each new input shape.
 */
const WIDTH_STEP = 32;

/** Reads each box; strips of similar width share a model call so little of a batch is padding. */
export async function recognizeBoxes(
  model: OpenedModel,
  characters: string[],
  items: BoxInFrame[],
  options: RecognizerOptions,
): Promise<DecodedText[]> {
  const crops = items.map((item, index) => ({ ...item, index, crop: textCrop(item.box, options.maxWidth) }));
  crops.sort((a, b) => a.crop.width - b.crop.width);
  const results: DecodedText[] = new Array(items.length);
  for (let start = 0; start < crops.length; start += options.batchSize) {
    const batch = crops.slice(start, start + options.batchSize);
    const decoded = await recognizeBatch(model, characters, batch, options.minWidth);
    batch.forEach((item, position) => {
      results[item.index] = decoded[position] as DecodedText;
    });
  }
  return results;
}

async function recognizeBatch(
  model: OpenedModel,
  characters: string[],
  batch: Array<{ frame: RgbFrame; crop: TextCrop }>,
  minWidth: number,
): Promise<DecodedText[]> {
  const widest = Math.max(minWidth, ...batch.map(({ crop }) => crop.width));
  const width = Math.ceil(widest / WIDTH_STEP) * WIDTH_STEP;
  const planeSize = RECOGNITION_HEIGHT * width;
  // Zero is mid-grey after normalisation: the padding PaddleOCR uses right of shorter strips.
  const data = new Float32Array(batch.length * 3 * planeSize);
  batch.forEach(({ frame, crop }, index) => {
    const target = { data, offset: index * 3 * planeSize, planeSize, rowStride: width };
    samplePlanarBgr(frame, crop.map, crop.width, RECOGNITION_HEIGHT, RECOGNITION_NORMALISATION, target);
  });
  const feeds = {
    [model.inputName]: new Tensor("float32", data, [batch.length, 3, RECOGNITION_HEIGHT, width]),
  };
  const output = (await model.session.run(feeds))[model.outputName] as Tensor;
  const [, steps = 0, classes = 0] = output.dims;
  if (classes !== characters.length) {
    throw new Error(`recognition model has ${classes} classes but its dictionary gives ${characters.length}`);
  }
  const probabilities = output.data as Float32Array;
  return batch.map(({ crop }, index) =>
    ctcGreedyDecode(probabilities, steps, characters, index * steps * classes, (steps * crop.width) / width),
  );
}
