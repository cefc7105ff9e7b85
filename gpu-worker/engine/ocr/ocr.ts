import { timed } from "../stage-clock";
import { classCharacters, type DecodedText } from "./ctc-decode";
import { DEFAULT_DB_OPTIONS } from "./db-postprocess";
import { assertRgbFrame, DEFAULT_MAX_SIDE, detectText } from "./detector";
import { rectBox } from "./geometry";
import { findModel, loadModelBytes, type OpenedModel, openModels, readModelManifest } from "./model-loader";
import { DEFAULT_STRIP_WIDTHS, recognizeBoxes } from "./recognizer";
import type { BoxInFrame, ExecutionProvider, OcrEngine, RgbFrame, TextLine } from "./types";

export type { Glyph } from "./ctc-decode";
export type {
  BoxInFrame,
  ExecutionProvider,
  OcrEngine,
  Point,
  RgbFrame,
  TextBox,
  TextLine,
} from "./types";

export interface OcrEngineOptions {
  /** Longest side, in pixels, frames are shrunk to for detection: smaller is faster, misses smaller text. */
  maxSide?: number;
  /** Intra-op threads per model on CPU (TEXT_MODEL_THREADS, one, by default). */
  threads?: number;
  provider?: "auto" | ExecutionProvider;
  /** Frames of one size per detection call; 4 on CUDA, 1 on CPU by default. */
  detectBatchSize?: number;
  /** Text strips per recognition call; 8 on CUDA, 1 on CPU by default. */
  recognizeBatchSize?: number;
}

/** Entries of models/models.json this engine runs. */
const MODEL_NAMES = { detection: "ppocr-v4-det", recognition: "ppocr-v4-rec", dictionary: "ppocr-keys-v1" };

/**
 * Frames or text strips per model call. On CPU a batch ran slower than its items one at a time (about 25%
 * for detection: the same arithmetic on bigger tensors), so only CUDA batches unless asked to.
 */
const DEFAULT_BATCH_SIZES: Record<ExecutionProvider, { detect: number; recognize: number }> = {
  cuda: { detect: 4, recognize: 8 },
  cpu: { detect: 1, recognize: 1 },
};

/**
 * Frame sizes the reading pass gives the detector most (landscape and portrait ads at its 640 px):
 * onnxruntime-node passes the CUDA provider nothing but its device id, so cuDNN keeps its default
 * exhaustive search of convolution algorithms, once per input shape; warming these shapes up at the
 * worker's start takes that search out of the first jobs.
 */
const WARM_UP_SHAPES = [
  { width: 640, height: 360 },
  { width: 360, height: 640 },
];

/** Opens the models once; the engine reuses its sessions until close(). */
export async function createOcrEngine(options: OcrEngineOptions = {}): Promise<OcrEngine> {
  const manifest = await readModelManifest();
  const dictionary = await loadModelBytes(findModel(manifest, MODEL_NAMES.dictionary));
  const characters = classCharacters(new TextDecoder().decode(dictionary));
  const opened = await openModels(
    [findModel(manifest, MODEL_NAMES.detection), findModel(manifest, MODEL_NAMES.recognition)],
    { provider: options.provider, threads: options.threads },
  );
  const [detector, recognizer] = opened.models as [OpenedModel, OpenedModel];
  const batchSizes = DEFAULT_BATCH_SIZES[opened.provider];
  const detectorOptions = {
    maxSide: options.maxSide ?? DEFAULT_MAX_SIDE,
    batchSize: options.detectBatchSize ?? batchSizes.detect,
    db: DEFAULT_DB_OPTIONS,
  };
  const recognizerOptions = {
    ...DEFAULT_STRIP_WIDTHS,
    batchSize: options.recognizeBatchSize ?? batchSizes.recognize,
  };

  const recognizeAll = async (items: BoxInFrame[]): Promise<TextLine[]> => {
    for (const { frame } of items) assertRgbFrame(frame);
    const decoded = await timed("recognition", () =>
      recognizeBoxes(recognizer, characters, items, recognizerOptions),
    );
    return items.map(({ box }, index) => ({ ...box, ...(decoded[index] as DecodedText) }));
  };
  const detect = (frames: RgbFrame[]) =>
    timed("detection", () => detectText(detector, frames, detectorOptions));
  let closed = false;
  return {
    provider: opened.provider,
    ...(opened.cpuReason === undefined ? {} : { cpuReason: opened.cpuReason }),
    detect,
    warmUp: async () => {
      const blank = WARM_UP_SHAPES.map(({ width, height }) => ({
        width,
        height,
        data: new Uint8Array(width * height * 3),
      }));
      for (const frame of blank) await detect([frame]);
      const strip = rectBox({ x: 0, y: 0, width: 160, height: 24 }, 1);
      await recognizeAll([{ frame: blank[0] as RgbFrame, box: strip }]);
    },
    recognize: (frame, boxes) => recognizeAll(boxes.map((box) => ({ frame, box }))),
    recognizeBoxes: recognizeAll,
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all(opened.models.map(({ session }) => session.release()));
    },
  };
}
