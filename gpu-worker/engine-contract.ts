import type { EngineStage } from "../contract/job-states";
import type { CleanReport } from "../contract/report";
import type { Region } from "../contract/worker-api";

/** What the worker needs of the cleaning engine (gpu-worker/engine implements it). */

/** What ffprobe read of an input, before any frame is decoded. */
export interface InputVideo {
  /** How long the file really plays: the longest of its container's, streams' and frames' timing. */
  durationSeconds: number;
  /** The frame size the engine works at. */
  width: number;
  height: number;
}

export interface CleanOptions {
  /** Called once the input is probed, before any work: throwing refuses the input. */
  admit?: (video: InputVideo) => void;
  /** The text on screen is read either way; these choose the lines erased. Null or absent: every overlay. */
  texts?: string[] | null;
  /** Areas to erase whole over their span, without reading (fractions of the frame, seconds). */
  regions?: Region[];
  /** Where to write the before/after JPEG (the frame with the most erased text); none when nothing is erased. */
  picturePath?: string;
  signal?: AbortSignal;
  onProgress?: (stage: EngineStage, fraction: number) => void;
}

export interface CleanSummary {
  frames: number;
  linesErased: number;
  /** Lines still found in cleaned regions after the verify pass. */
  residualLines: number;
  /** What was erased, kept and still found, for the customer (contract/report.ts); an engine without reports gives none. */
  report?: CleanReport;
  /** Whether the before/after picture was written to `picturePath`. */
  pictureWritten?: boolean;
}

export type CleanVideo = (input: string, output: string, options: CleanOptions) => Promise<CleanSummary>;
