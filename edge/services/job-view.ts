import type { JobStage, JobStatus } from "../../contract/job-states";
import type { CleanReport, JobReport } from "../../contract/report";
import type { jobs } from "../db/schema";
import type { Job } from "../schemas/jobs";
import type { MediaStorage } from "../storage/media-storage";

export type JobRow = typeof jobs.$inferSelect;

/** Result download addresses are valid one hour from the answer that carries them (spec). */
export const RESULT_URL_TTL_MS = 60 * 60 * 1000;

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

export function resultFilename(inputFilename: string): string {
  const base = inputFilename.replace(/\.[A-Za-z0-9]{1,5}$/, "");
  return `${base}-clean.mp4`;
}

/** What the job was made from (the Job's `input`). */
export function jobInput(row: JobRow): Job["input"] {
  return {
    filename: row.filename,
    duration_seconds: row.durationSeconds,
    width: row.width,
    height: row.height,
    size_bytes: row.sizeBytes,
  };
}

/** The engine's report of a succeeded job, with a fresh presigned address of its before/after picture. */
async function reportView(row: JobRow, storage: MediaStorage, expiresAt: number): Promise<JobReport> {
  const report = JSON.parse(row.report as string) as CleanReport;
  const picture = row.pictureKey
    ? {
        url: await storage.downloadUrl(row.pictureKey, expiresAt, pictureFilename(row.filename)),
        expires_at: new Date(expiresAt).toISOString(),
      }
    : null;
  return { ...report, picture };
}

export function pictureFilename(inputFilename: string): string {
  return resultFilename(inputFilename).replace(/\.mp4$/, "-before-after.jpg");
}

/** The Job as the API shows it; a succeeded job gets a fresh presigned result address. */
export async function jobView(row: JobRow, storage: MediaStorage, nowMs = Date.now()): Promise<Job> {
  let result: Job["result"] = null;
  if (row.status === "succeeded" && row.resultKey) {
    const expiresAt = nowMs + RESULT_URL_TTL_MS;
    result = {
      url: await storage.downloadUrl(row.resultKey, expiresAt, resultFilename(row.filename)),
      expires_at: new Date(expiresAt).toISOString(),
      size_bytes: row.resultSizeBytes,
    };
  }
  return {
    id: row.id,
    object: "job",
    status: row.status as JobStatus,
    stage: row.stage as JobStage | null,
    progress: row.progress,
    source: row.source as Job["source"],
    input: jobInput(row),
    credits: row.credits,
    credits_refunded: row.creditsRefunded,
    result,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    created_at: iso(row.createdAt) as string,
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    // An addition to 1.0.0: only succeeded jobs carry it, so no earlier answer changes.
    ...(row.status === "succeeded" && row.report
      ? { report: await reportView(row, storage, nowMs + RESULT_URL_TTL_MS) }
      : {}),
  };
}
