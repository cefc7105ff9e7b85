/**
 * A job's statuses and stages, and which status may follow which: the edge stores and serves them,
 * the GPU worker reports the stages. Both import this module, so renaming a stage on one side is a
 * type error on the other, not jobs that silently stop.
 */

export const JOB_STATUSES = ["queued", "analyzing", "processing", "succeeded", "failed", "canceled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Every stage the API may show (the spec's list, in the order a job passes them). */
export const JOB_STAGES = [
  "queued",
  "preparing",
  "downloading",
  "reading_text",
  "masking",
  "cleaning",
  "verifying",
  "assembling",
  "finalizing",
  "retrying",
] as const;
export type JobStage = (typeof JOB_STAGES)[number];

/**
 * Stages no GPU worker reports: the edge sets `queued` and `retrying`; `masking` and `verifying`
 * stay in the API's list, but the masks are drawn and the cleaned regions checked frame by frame
 * inside `cleaning`, so they have no time of their own.
 */
const NOT_REPORTED = ["queued", "retrying", "masking", "verifying"] as const satisfies readonly JobStage[];

/** The stages a GPU worker reports, in order (README, "Stages"). */
export type WorkerStage = Exclude<JobStage, (typeof NOT_REPORTED)[number]>;
export const WORKER_STAGES = JOB_STAGES.filter(
  (stage): stage is WorkerStage => !(NOT_REPORTED as readonly string[]).includes(stage),
);

/** The stages the cleaning engine itself goes through (between downloading and finalizing). */
export const ENGINE_STAGES = [
  "reading_text",
  "cleaning",
  "assembling",
] as const satisfies readonly WorkerStage[];
export type EngineStage = (typeof ENGINE_STAGES)[number];

/** Statuses of a job that is not finished; analyzing and processing count as running. */
export const ACTIVE_STATUSES = ["queued", "analyzing", "processing"] as const satisfies readonly JobStatus[];
export const RUNNING_STATUSES = ["analyzing", "processing"] as const satisfies readonly JobStatus[];
export const TERMINAL_STATUSES = ["succeeded", "failed", "canceled"] as const satisfies readonly JobStatus[];

/** Whether `status` (a stored string) is one a job ends in. */
export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** Whether `status` (a stored string) is one of a job that is not finished. */
export function isActive(status: string): boolean {
  return (ACTIVE_STATUSES as readonly string[]).includes(status);
}

/**
 * The status a reported stage puts the job in: analyzing while the input is fetched and read,
 * processing while it is cleaned, assembled and handed over.
 */
export function statusForStage(stage: WorkerStage): "analyzing" | "processing" {
  return stage === "preparing" || stage === "downloading" || stage === "reading_text"
    ? "analyzing"
    : "processing";
}

/**
 * Which status may follow which. A claim moves queued to analyzing; reports move analyzing on to
 * processing; the reaper puts a running job whose lease ran out back in the queue (stage
 * `retrying`); every unfinished status may end. A finished job never changes status again.
 */
export const STATUS_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ["analyzing", "failed", "canceled"],
  analyzing: ["processing", "queued", "succeeded", "failed", "canceled"],
  processing: ["queued", "succeeded", "failed", "canceled"],
  succeeded: [],
  failed: [],
  canceled: [],
};

/** The statuses a job may be in for it to move to `to`. */
export function statusesLeadingTo(to: JobStatus): JobStatus[] {
  return JOB_STATUSES.filter((from) => STATUS_TRANSITIONS[from].includes(to));
}
