import type { JobStage, JobStatus } from "../schemas/jobs";

/**
 * Stages a worker reports, in the order they occur, and the status each implies: analyzing while
 * the input is fetched and read, processing while it is cleaned and assembled (README).
 */
export const WORKER_STAGES = [
  "preparing",
  "downloading",
  "reading_text",
  "masking",
  "cleaning",
  "verifying",
  "assembling",
  "finalizing",
] as const satisfies readonly JobStage[];
export type WorkerStage = (typeof WORKER_STAGES)[number];

const ANALYZING: ReadonlySet<WorkerStage> = new Set(["preparing", "downloading", "reading_text"]);

export function statusForStage(stage: WorkerStage): JobStatus {
  return ANALYZING.has(stage) ? "analyzing" : "processing";
}
