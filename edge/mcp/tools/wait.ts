import { z } from "zod";
import { isTerminal } from "../../../contract/job-states";
import type { Job } from "../../schemas/jobs";
import { jobView } from "../../services/job-view";
import { findJob } from "../../services/jobs";
import { defineTool, type ToolCall } from "../tool";
import { jobSummary } from "./job-summary";
import { jobId } from "./jobs";

const POLL_INTERVAL_MS = 2_000;
const MAX_WAIT_SECONDS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls the job until it finishes or the time is up. Progress notifications go out only when the
 * progress grows: MCP requires each one to be larger than the last. A client that goes away ends
 * the Worker's invocation, and the loop with it.
 */
async function pollUntilFinished(call: ToolCall, id: string, timeoutSeconds: number): Promise<Job> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let reported = -1;
  for (;;) {
    const job = await jobView(await findJob(call.env, call.workspace.id, id), call.storage);
    if (isTerminal(job.status)) return job;
    if (job.progress > reported) {
      reported = job.progress;
      await call.reportProgress(job.progress, `${job.status}: ${job.stage}`);
    }
    const left = deadline - Date.now();
    if (left <= 0) return job;
    await sleep(Math.min(POLL_INTERVAL_MS, left));
  }
}

export const waitForJobTool = defineTool({
  name: "wait_for_job",
  endpoint: "GET /v1/jobs/{id}",
  description:
    "Wait until a job succeeds, fails or is canceled, checking it every 2 seconds for up to timeout_seconds, and return " +
    "it. Sends progress notifications (progress 0 to 1, message status: stage) when the call carries a progressToken. " +
    "If the job is still running when the time is up, it is returned as it stands: call wait_for_job again.",
  input: z.strictObject({
    job_id: jobId,
    timeout_seconds: z
      .number()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .default(60)
      .describe(`Longest wait in seconds, 0 to ${MAX_WAIT_SECONDS}`),
  }),
  async run({ job_id, timeout_seconds }, call) {
    const job = await pollUntilFinished(call, job_id, timeout_seconds);
    const stillRunning = isTerminal(job.status) ? "" : ` Still not finished after ${timeout_seconds} s.`;
    return { summary: `${jobSummary(job)}${stillRunning}`, value: job };
  },
});
