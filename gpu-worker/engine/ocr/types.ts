import type { SizedRect } from "../geometry";
import type { Glyph } from "./ctc-decode";
/** One decoded video frame, RGB24 packed row by row (width * height * 3 bytes). */
export interface RgbFrame {
  width: number;
  height: number;
  data: Uint8Array;
}

export type Point = [number, number];

/** A detected text region in frame pixels: 4 corners clockwise from top-left, and its bounding rectangle. */
export interface TextBox {
  points: Point[];
  box: SizedRect;
  score: number;
}

export interface TextLine extends TextBox {
  text: string;
  confidence: number;
  /** Where each character was read along the box, and how surely. */
  glyphs: Glyph[];
}

export interface BoxInFrame {
  frame: RgbFrame;
  box: TextBox;
}

export type ExecutionProvider = "cuda" | "cpu";

export interface OcrEngine {
  /** One list of boxes per frame, in the order given; frames of the same size share model calls. */
  detect(frames: RgbFrame[]): Promise<TextBox[][]>;
  recognize(frame: RgbFrame, boxes: TextBox[]): Promise<TextLine[]>;
  /** Like recognize, for boxes from any frames: their strips share model calls. */
  recognizeBoxes(items: BoxInFrame[]): Promise<TextLine[]>;
  /**
   * Runs both models once on blank input of the common shapes, so that the first job does not pay
   * for the models' first runs (on CUDA, the convolution tuning of each new input shape).
   */
  warmUp(): Promise<void>;
  provider: ExecutionProvider;
  /** Why CUDA was not used, when the provider is "cpu". */
  cpuReason?: string;
  close(): Promise<void>;
}
