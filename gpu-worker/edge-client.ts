import type { WorkerStage } from "../contract/job-states";
import type { CleanReport } from "../contract/report";
import { parseContract } from "../contract/violation";
import {
  type ClaimedJob,
  ClaimedJobSchema,
  ProgressAnswerSchema,
  type UploadedPart,
} from "../contract/worker-api";
import type { WorkerConfig } from "./config";
import type { WorkerMetrics } from "./metrics";

export type ClaimOutcome = { claimed: ClaimedJob } | { refused: string };

export interface UploadTarget {
  url: string;
  headers: Record<string, string>;
}

/** A part's address; every part starts at (part_number - 1) * part_size of the file. */
export interface PartTarget extends UploadTarget {
  part_number: number;
  size_bytes: number;
}

export interface MultipartTarget {
  upload_id: string;
  part_size: number;
  parts: PartTarget[];
}

/** Where the result goes (edge/internal/result-upload.ts): one PUT, or parts when it is large. */
export type ResultTarget = UploadTarget | { multipart: MultipartTarget };

/** The edge says the job is not this worker's (any more): its lease was lost, or the job ended. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/**
 * The edge refused a call for another reason: a wrong WORKER_SECRET (401), a request it could not
 * read (400), or its own fault (5xx after the retries). Never read as "not yours": it is logged and
 * counted, and the job ends the loud way (failed, retried, dead-lettered), not quietly dropped.
 */
export class EdgeRefusedError extends Error {
  override name = "EdgeRefusedError";
  constructor(
    readonly path: string,
    readonly status: number,
  ) {
    super(`the edge refused ${path} with HTTP ${status}`);
  }
}

export interface EdgeClientObservers {
  log?: (entry: Record<string, unknown>) => void;
  metrics?: Pick<WorkerMetrics, "edgeRefused">;
}

const RETRIES = 4;

/**
 * The edge's internal API, as the worker uses it. Network errors and 5xx are retried with backoff.
 * The lease token a claim answers with is sent with every later call about that job.
 */
export class EdgeClient {
  private readonly leaseTokens = new Map<string, string>();

  constructor(
    private readonly config: WorkerConfig,
    private readonly observers: EdgeClientObservers = {},
  ) {}

  private async post(jobId: string, action: string, body: object): Promise<Response> {
    const path = `/jobs/${jobId}/${action}`;
    const leaseToken = this.leaseTokens.get(jobId);
    // What the last try ended with: a network error, or the edge's 5xx status.
    let lastError: unknown;
    let lastStatus: number | undefined;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      try {
        const response = await fetch(`${this.config.edgeUrl}/internal${path}`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${this.config.workerSecret}`,
            "Content-Type": "application/json",
          },
          body: JSON.stringify({
            worker_id: this.config.workerId,
            ...(leaseToken ? { lease_token: leaseToken } : {}),
            ...body,
          }),
          signal: AbortSignal.timeout(15_000),
        });
        if (response.status < 500) return response;
        await response.body?.cancel();
        lastStatus = response.status;
      } catch (error) {
        lastError = error;
        lastStatus = undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
    throw lastStatus === undefined ? lastError : this.refused(path, lastStatus);
  }

  /** Records a refusal loudly (log line and metric) and returns the error to throw. */
  private refused(path: string, status: number): EdgeRefusedError {
    const error = new EdgeRefusedError(path, status);
    this.observers.log?.({ event: "edge_refused", path, status });
    this.observers.metrics?.edgeRefused(status);
    return error;
  }

  /**
   * Why the job is not this worker's, when the answer says so: a 409 with a reason (finished,
   * leased, workspace_busy, canceled, lease_lost, not_found) or a 404 job_not_found. Null for any
   * other answer.
   */
  private static async notYours(response: Response): Promise<string | null> {
    if (response.status !== 409 && response.status !== 404) return null;
    const body = (await response.json().catch(() => ({}))) as { error?: { reason?: string; code?: string } };
    if (response.status === 409) return body.error?.reason ?? null;
    return body.error?.code === "job_not_found" ? "not_found" : null;
  }

  /** The answer when it is a 2xx; LeaseLostError when the job is not ours; EdgeRefusedError otherwise. */
  private async accepted(jobId: string, action: string, body: object): Promise<Response> {
    const response = await this.post(jobId, action, body);
    if (response.ok) return response;
    const reason = await EdgeClient.notYours(response);
    if (reason !== null) throw new LeaseLostError(reason);
    throw this.refused(`/jobs/${jobId}/${action}`, response.status);
  }

  async claim(jobId: string): Promise<ClaimOutcome> {
    try {
      const answer = await (await this.accepted(jobId, "claim", {})).json();
      const claimed = parseContract(ClaimedJobSchema, answer, "the claim's answer");
      this.leaseTokens.set(jobId, claimed.lease_token);
      return { claimed };
    } catch (error) {
      if (error instanceof LeaseLostError) return { refused: error.message };
      throw error;
    }
  }

  /** The run of a claimed job ended: its token is of no more use. */
  forget(jobId: string): void {
    this.leaseTokens.delete(jobId);
  }

  /** Reports progress (the heartbeat); resolves to true when the job was canceled. */
  async progress(jobId: string, stage: WorkerStage, progress: number): Promise<boolean> {
    const response = await this.accepted(jobId, "progress", { stage, progress });
    return parseContract(ProgressAnswerSchema, await response.json(), "the progress answer").canceled;
  }

  async resultTarget(jobId: string, sizeBytes: number): Promise<ResultTarget> {
    const response = await this.accepted(jobId, "result-target", { size_bytes: sizeBytes });
    return (await response.json()) as ResultTarget;
  }

  /** Joins the uploaded parts into the result object. */
  async completeResult(jobId: string, uploadId: string, parts: UploadedPart[]): Promise<void> {
    await this.accepted(jobId, "result-complete", { upload_id: uploadId, parts });
  }

  /** Drops the parts of an upload that will not be completed. */
  async abortResult(jobId: string, uploadId: string): Promise<void> {
    await this.accepted(jobId, "result-abort", { upload_id: uploadId });
  }

  /** Where the before/after picture goes: one presigned PUT of exactly `sizeBytes`. */
  async pictureTarget(jobId: string, sizeBytes: number): Promise<UploadTarget> {
    const response = await this.accepted(jobId, "picture-target", { size_bytes: sizeBytes });
    return (await response.json()) as UploadTarget;
  }

  async succeed(jobId: string, resultSizeBytes: number, report?: CleanReport): Promise<void> {
    await this.accepted(jobId, "complete", {
      outcome: "succeeded",
      result_size_bytes: resultSizeBytes,
      ...(report ? { report } : {}),
    });
  }

  async fail(jobId: string, code: string, message: string): Promise<void> {
    await this.accepted(jobId, "complete", { outcome: "failed", code, message });
  }
}
