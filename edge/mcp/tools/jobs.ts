import { z } from "zod";
import { JOB_STATUSES } from "../../../contract/job-states";
import { type Job, JobCreateSchema } from "../../schemas/jobs";
import { cancelJob } from "../../services/cancel";
import { jobView } from "../../services/job-view";
import { createJob, findJob, listJobs } from "../../services/jobs";
import { defineTool } from "../tool";
import { idempotencyKey, replayNote } from "./idempotency";
import { jobSummary } from "./job-summary";

export const jobId = z.string().min(1).max(100).describe("Id of the job, job_…");

export const createJobTool = defineTool({
  name: "create_job",
  endpoint: "POST /v1/jobs",
  description:
    "Start cleaning a video: removes captions, hooks and text overlays and produces a clean MP4. Give exactly one of " +
    "video_url (a public URL of the file) or upload_id (from create_upload, after the PUT). The video's credits are " +
    "reserved at once and returned if the job fails or is canceled. Returns the job, queued; follow it with wait_for_job.",
  // The fields and their descriptions are the API's (edge/schemas/jobs.ts).
  input: JobCreateSchema.safeExtend({ idempotency_key: idempotencyKey }),
  async run({ idempotency_key, ...body }, call) {
    const answer = await createJob(call.env, call.storage, {
      workspace: call.workspace,
      body,
      source: "mcp",
      idempotencyKey: idempotency_key,
    });
    const job = JSON.parse(answer.body) as Job;
    return { summary: `${jobSummary(job)}${replayNote(answer)}`, value: job };
  },
});

export const getJobTool = defineTool({
  name: "get_job",
  endpoint: "GET /v1/jobs/{id}",
  description:
    "Show one job: status, stage, progress, credits and, once succeeded, result.url (a download address valid one hour) " +
    "and report (the lines erased, the areas erased, the lines kept and why, what the verify stage still found, and a before/after picture).",
  input: z.strictObject({ job_id: jobId }),
  async run({ job_id }, call) {
    const job = await jobView(await findJob(call.env, call.workspace.id, job_id), call.storage);
    return { summary: jobSummary(job), value: job };
  },
});

export const listJobsTool = defineTool({
  name: "list_jobs",
  endpoint: "GET /v1/jobs",
  description:
    "List the workspace's jobs, newest first, optionally only those of one status. When has_more is true, call again " +
    "with starting_after set to next_cursor for the next page.",
  input: z.strictObject({
    limit: z.number().int().min(1).max(100).default(20).describe("Jobs per page, 1 to 100"),
    status: z.enum(JOB_STATUSES).optional().describe("Only jobs with this status"),
    starting_after: z.string().max(100).optional().describe("next_cursor of the previous page"),
  }),
  async run({ limit, status, starting_after }, call) {
    const page = await listJobs(call.env, call.storage, call.workspace.id, {
      limit,
      status,
      startingAfter: starting_after,
    });
    const lines = page.data.map((job) => `${job.id}: ${job.status}, ${job.input.filename}`);
    const more = page.has_more ? ` More after ${page.next_cursor}.` : "";
    return { summary: [`${page.data.length} jobs.${more}`, ...lines].join("\n"), value: page };
  },
});

export const cancelJobTool = defineTool({
  name: "cancel_job",
  endpoint: "POST /v1/jobs/{id}/cancel",
  description:
    "Stop a queued or running job and get its credits back. A job that already succeeded, failed or was canceled is " +
    "returned unchanged.",
  input: z.strictObject({ job_id: jobId }),
  async run({ job_id }, call) {
    const job = await jobView(
      await cancelJob(call.env, call.storage, call.workspace.id, job_id),
      call.storage,
    );
    return { summary: jobSummary(job), value: job };
  },
});
