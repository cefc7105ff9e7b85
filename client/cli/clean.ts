import { existsSync } from "node:fs";
import path from "node:path";
import { AdCleanError } from "../errors";
import type { AdClean } from "../index";
import type { Job, Region } from "../types";
import { contentTypeOf } from "../upload";
import { isFinished } from "../wait";
import { probeDuration } from "./duration";
import { EXIT, UsageError } from "./exit-codes";
import { jobLabel } from "./format";
import type { ProgressDisplay } from "./progress";

export interface CleanOptions {
  output: string;
  texts?: string[] | undefined;
  regions?: Region[] | undefined;
  /** Where to save the before/after picture, if wanted. */
  picture?: string | undefined;
}

export interface CleanOutcome {
  /** The job as it ended (or as it was canceled on Ctrl-C); undefined when none was created. */
  job: Job | undefined;
  /** The cleaned file, once downloaded. */
  output: string | null;
  /** The before/after picture, once saved. */
  picture: string | null;
  exitCode: number;
}

export const isUrl = (input: string) => /^https?:\/\//i.test(input);

/** `<name>-clean.mp4`, as the service names its download. */
export function defaultOutput(input: string): string {
  const name = isUrl(input) ? new URL(input).pathname.split("/").pop() || "video" : path.basename(input);
  return `${name.replace(/\.[^.]*$/, "")}-clean.mp4`;
}

/**
 * A local file over the length limit is refused before a byte is sent, as the API would refuse it
 * after the upload (422 video_too_long). Without ffprobe the check is left to the API.
 */
async function refuseTooLong(client: AdClean, input: string): Promise<void> {
  const seconds = await probeDuration(input).catch(() => null);
  if (seconds === null) return;
  const estimate = await client.estimate(seconds);
  if (!estimate.too_long) return;
  throw new AdCleanError(422, {
    type: "invalid_request_error",
    code: "video_too_long",
    message: `${path.basename(input)} lasts ${estimate.label}; the longest video the service cleans is ${estimate.max_duration_seconds / 60} minutes. Nothing was uploaded: cut it shorter first.`,
  });
}

/**
 * `adclean clean`: uploads the file (or gives the URL), creates the job, shows its progress by
 * stage, downloads the result. Ctrl-C cancels the job through the API before exiting (a second
 * Ctrl-C exits at once).
 */
export async function clean(
  client: AdClean,
  input: string,
  options: CleanOptions,
  progress: ProgressDisplay,
): Promise<CleanOutcome> {
  if (!isUrl(input)) {
    if (!existsSync(input)) throw new UsageError(`${input}: no such file.`);
    if (!contentTypeOf(input)) throw new UsageError(`${input}: only .mp4, .mov and .m4v files are taken.`);
    await refuseTooLong(client, input);
  }
  const { output } = options;
  const controller = new AbortController();
  const { signal } = controller;
  const onSigint = () => {
    if (signal.aborted) process.exit(EXIT.interrupted);
    progress.note("canceling… (Ctrl-C again to quit at once)");
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  let job: Job | undefined;
  try {
    const texts = {
      ...(options.texts?.length ? { texts: options.texts } : {}),
      ...(options.regions?.length ? { regions: options.regions } : {}),
    };
    if (isUrl(input)) {
      // Not given the signal: a job the service made must be known here, so Ctrl-C can cancel it.
      job = await client.createJob({ video_url: input, ...texts });
    } else {
      const upload = await client.uploadFile(input, {
        signal,
        onProgress: (sent, total) => progress.update("uploading", sent / total),
      });
      job = await client.createJob({ upload_id: upload.id, ...texts });
    }
    progress.note(`job ${job.id} created (${job.credits} credits)`);
    signal.throwIfAborted();
    job = await client.waitForJob(job.id, {
      signal,
      onProgress: (current) => progress.update(jobLabel(current), current.progress),
    });
    progress.end();
    if (job.status !== "succeeded") {
      progress.note(`job ${job.id} ${job.status}: ${job.error?.code}: ${job.error?.message}`);
      return { job, output: null, picture: null, exitCode: EXIT.jobFailed };
    }
    progress.update("downloading", 0);
    const size = await client.downloadResult(job, output, { signal });
    progress.update("downloading", 1);
    progress.note(`cleaned: ${output} (${size} bytes)`);
    let picture: string | null = null;
    if (options.picture && job.report?.picture) {
      await client.downloadReportPicture(job, options.picture, { signal });
      picture = options.picture;
    } else if (options.picture) progress.note("no before/after picture: nothing was erased");
    return { job, output, picture, exitCode: EXIT.ok };
  } catch (error) {
    if (!signal.aborted) throw error;
    if (job && !isFinished(job)) {
      job = await client.cancelJob(job.id);
      progress.note(`job ${job.id} ${job.status}; its credits are returned`);
    }
    return { job, output: null, picture: null, exitCode: EXIT.interrupted };
  } finally {
    process.off("SIGINT", onSigint);
  }
}
