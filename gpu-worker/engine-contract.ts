/** What the worker needs of the cleaning engine (gpu-worker/engine implements it). */
export type EngineStage = "reading_text" | "masking" | "cleaning" | "verifying" | "assembling";

export interface CleanOptions {
  /** Exact texts to erase; null or absent: read the text on screen and erase every overlay. */
  texts?: string[] | null;
  signal?: AbortSignal;
  onProgress?: (stage: EngineStage, fraction: number) => void;
}

export interface CleanSummary {
  frames: number;
  linesErased: number;
  /** Lines still found in cleaned regions after the verify pass. */
  residualLines: number;
}

export type CleanVideo = (input: string, output: string, options: CleanOptions) => Promise<CleanSummary>;
