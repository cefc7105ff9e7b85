import { isActive } from "../../contract/job-states";
import type { Env } from "../env";
import type { MediaStorage } from "../storage/media-storage";
import { finishJob } from "./job-lifecycle";
import type { JobRow } from "./job-view";
import { findJob } from "./jobs";

/**
 * Cancels a queued or running job (credits back, job.canceled recorded). A finished job is
 * returned as it is: cancel is idempotent and never changes a succeeded or failed job.
 */
export async function cancelJob(
  env: Env,
  storage: MediaStorage,
  workspaceId: string,
  jobId: string,
): Promise<JobRow> {
  const row = await findJob(env, workspaceId, jobId);
  if (!isActive(row.status)) return row;
  return (await finishJob(env, storage, jobId, { status: "canceled" })).row;
}
