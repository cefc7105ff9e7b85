import type { Job } from "../../schemas/jobs";
import { reportSummary } from "../../schemas/report-summary";

const percent = (progress: number) => `${Math.round(progress * 100)}%`;

/** One or two sentences a model can act on: where the job stands and what to do next. */
export function jobSummary(job: Job): string {
  const refund = job.credits_refunded ? ` Its ${job.credits} credits were returned.` : "";
  switch (job.status) {
    case "succeeded": {
      const report = job.report
        ? ` ${reportSummary(job.report)}${job.report.picture ? " A before/after picture is at report.picture.url." : ""}`
        : "";
      return `Job ${job.id} succeeded: download the clean MP4 from result.url (valid until ${job.result?.expires_at}).${report}`;
    }
    case "failed":
      return `Job ${job.id} failed (${job.error?.code}: ${job.error?.message}).${refund}`;
    case "canceled":
      return `Job ${job.id} is canceled.${refund}`;
    default:
      return (
        `Job ${job.id} is ${job.status} (stage ${job.stage}, ${percent(job.progress)} done); ` +
        `${job.credits} credits reserved. Call wait_for_job to follow it.`
      );
  }
}
