/** The human-readable (not --json) forms of the API's objects. */
import { reportSummary } from "../../edge/schemas/report-summary";
import type { Account, Estimate, Job, JobList } from "../types";

const percent = (fraction: number) => `${Math.floor(fraction * 100)}%`;

/** `processing: cleaning`, or the status alone when the stage adds nothing (none, or `queued`). */
export const jobLabel = (job: Job) =>
  job.stage && job.stage !== job.status ? `${job.status}: ${job.stage}` : job.status;

export function formatJob(job: Job): string {
  const lines = [
    `${job.id}  ${jobLabel(job)}  ${percent(job.progress)}`,
    `input    ${job.input.filename} (${job.input.duration_seconds} s)`,
    `credits  ${job.credits}${job.credits_refunded ? " (refunded)" : ""}`,
    `created  ${job.created_at}`,
  ];
  if (job.result) lines.push(`result   ${job.result.url} (valid until ${job.result.expires_at})`);
  if (job.error) lines.push(`error    ${job.error.code}: ${job.error.message}`);
  if (job.report) lines.push(`report   ${reportSummary(job.report)}`);
  if (job.report?.picture) lines.push(`picture  ${job.report.picture.url} (save it with --picture FILE)`);
  return lines.join("\n");
}

export function formatJobList(list: JobList): string {
  const rows = list.data.map(
    (job) =>
      `${job.id}  ${jobLabel(job).padEnd(22)} ${percent(job.progress).padStart(4)}  ${job.created_at}  ${job.input.filename}`,
  );
  if (rows.length === 0) rows.push("no jobs");
  if (list.has_more) rows.push(`more: adclean jobs list --starting-after ${list.next_cursor}`);
  return rows.join("\n");
}

export function formatEstimate(estimate: Estimate): string {
  if (estimate.too_long)
    return (
      `${estimate.label}: over the ${estimate.max_duration_seconds / 60}-minute limit; a job for it is refused ` +
      "(video_too_long). Cut it shorter first."
    );
  const plans = estimate.plans.map((entry) => `  ${entry.plan}: ${entry.videos_per_month} videos a month`);
  return [`${estimate.label}: ${estimate.credits} credits`, ...plans].join("\n");
}

export function formatAccount(account: Account): string {
  const { credits, limits } = account;
  return [
    `workspace ${account.workspace.name} (${account.workspace.id})`,
    `plan      ${account.plan ? account.plan.name : "none"} (${account.subscription_status})`,
    `credits   ${credits.total} (plan ${credits.plan}, pack ${credits.pack}): ${account.minutes_available} minutes of video`,
    `limits    ${limits.concurrent_jobs} concurrent jobs, ${limits.active_jobs} active, API ${limits.api_access ? "yes" : "no"}, webhooks ${limits.webhooks ? "yes" : "no"}`,
  ].join("\n");
}
