import type { WorkerConfig } from "./config";

/** A job as the edge hands it over on claim (edge/services/leases.ts, ClaimedJob). */
export interface ClaimedJob {
  id: string;
  workspace_id: string;
  attempt: number;
  texts: string[] | null;
  input: {
    filename: string;
    duration_seconds: number;
    width: number | null;
    height: number | null;
    size_bytes: number | null;
  };
  source: { type: "upload" | "url"; url: string };
  lease_expires_at: string;
}

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

export interface UploadedPart {
  part_number: number;
  etag: string;
}

export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

const RETRIES = 4;

/** The edge's internal API, as the worker uses it. Network errors and 5xx are retried with backoff. */
export class EdgeClient {
  constructor(private readonly config: WorkerConfig) {}

  private async post(path: string, body: unknown): Promise<Response> {
    let lastError: unknown;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      try {
        const response = await fetch(`${this.config.edgeUrl}/internal${path}`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${this.config.workerSecret}`,
            "Content-Type": "application/json",
          },
          body: JSON.stringify({ worker_id: this.config.workerId, ...(body as object) }),
          signal: AbortSignal.timeout(15_000),
        });
        if (response.status < 500) return response;
        lastError = new Error(`edge answered ${response.status}`);
      } catch (error) {
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
    throw lastError;
  }

  /** 409 answers carry why the job cannot be taken: finished, leased, workspace_busy, canceled, lease_lost. */
  private static async refusal(response: Response): Promise<string> {
    const body = (await response.json().catch(() => ({}))) as { error?: { reason?: string; code?: string } };
    return body.error?.reason ?? body.error?.code ?? `http_${response.status}`;
  }

  async claim(jobId: string): Promise<ClaimOutcome> {
    const response = await this.post(`/jobs/${jobId}/claim`, {});
    if (response.ok) return { claimed: (await response.json()) as ClaimedJob };
    return { refused: await EdgeClient.refusal(response) };
  }

  /** Reports progress (the heartbeat); resolves to true when the job was canceled. */
  async progress(jobId: string, stage: string, progress: number): Promise<boolean> {
    const response = await this.post(`/jobs/${jobId}/progress`, { stage, progress });
    if (!response.ok) throw new LeaseLostError(await EdgeClient.refusal(response));
    return ((await response.json()) as { canceled: boolean }).canceled;
  }

  async resultTarget(jobId: string, sizeBytes: number): Promise<ResultTarget> {
    const response = await this.post(`/jobs/${jobId}/result-target`, { size_bytes: sizeBytes });
    if (!response.ok) throw new LeaseLostError(await EdgeClient.refusal(response));
    return (await response.json()) as ResultTarget;
  }

  /** Joins the uploaded parts into the result object. */
  async completeResult(jobId: string, uploadId: string, parts: UploadedPart[]): Promise<void> {
    const response = await this.post(`/jobs/${jobId}/result-complete`, { upload_id: uploadId, parts });
    if (!response.ok) throw new LeaseLostError(await EdgeClient.refusal(response));
  }

  /** Drops the parts of an upload that will not be completed. */
  async abortResult(jobId: string, uploadId: string): Promise<void> {
    const response = await this.post(`/jobs/${jobId}/result-abort`, { upload_id: uploadId });
    if (!response.ok) throw new Error(`result abort refused: HTTP ${response.status}`);
  }

  async succeed(jobId: string, resultSizeBytes: number): Promise<void> {
    const response = await this.post(`/jobs/${jobId}/complete`, {
      outcome: "succeeded",
      result_size_bytes: resultSizeBytes,
    });
    if (!response.ok) throw new LeaseLostError(await EdgeClient.refusal(response));
  }

  async fail(jobId: string, code: string, message: string): Promise<void> {
    const response = await this.post(`/jobs/${jobId}/complete`, { outcome: "failed", code, message });
    if (!response.ok) throw new LeaseLostError(await EdgeClient.refusal(response));
  }
}
