/**
 * The TypeScript client of the adclean API (`/v1`): every endpoint of the spec and the webhook
 * management API, typed from the OpenAPI document, with retries that are safe to repeat.
 */
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import { downloadTo } from "./download";
import { AdCleanError } from "./errors";
import { type RetryOptions, type RetryPolicy, sendWithRetry } from "./http";
import type {
  Account,
  Estimate,
  EventList,
  EventListQuery,
  EventWithDelivery,
  Job,
  JobCreate,
  JobList,
  JobListQuery,
  RotateSecret,
  Upload,
  UploadCreate,
  WebhookAttemptList,
  WebhookEndpoint,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from "./types";
import { contentTypeOf, putFile } from "./upload";
import { type WaitOptions, waitForJob } from "./wait";

export {
  signatureHeader,
  type VerifyOptions,
  verifyWebhook,
  WebhookVerificationError,
} from "../edge/webhooks/signature";
export { AdCleanConnectionError, AdCleanError, type ApiErrorBody } from "./errors";
export type { RetryEvent, RetryOptions, RetryPolicy } from "./http";
export type * from "./types";
export { contentTypeOf } from "./upload";
export { FINISHED_STATUSES, isFinished, type WaitOptions, WaitTimeoutError } from "./wait";

export interface AdCleanOptions extends RetryOptions {
  apiKey: string;
  /** The service's origin, e.g. `http://127.0.0.1:8787` for `npm start`. */
  baseUrl: string;
  /** Each API attempt's time limit (default 60000). Uploads and downloads have none. */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
}

export interface CreateOptions extends RequestOptions {
  /** Sent on every attempt of the request; a random UUID when not given. */
  idempotencyKey?: string | undefined;
}

export interface UploadFileOptions extends CreateOptions {
  /** Defaults to the file's base name. */
  filename?: string;
  /** Defaults to the type of the extension: .mp4, .mov or .m4v. */
  contentType?: UploadCreate["content_type"];
  onProgress?: (sentBytes: number, totalBytes: number) => void;
}

interface CallOptions extends RequestOptions {
  query?: Record<string, string | number | undefined> | undefined;
  body?: unknown;
  idempotencyKey?: string | undefined;
  policy?: RetryPolicy;
}

export class AdClean {
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #retry: RetryOptions;

  constructor(options: AdCleanOptions) {
    const { apiKey, baseUrl, timeoutMs, fetch: fetchImpl, ...retry } = options;
    this.#apiKey = apiKey;
    this.#baseUrl = baseUrl.replace(/\/+$/, "");
    this.#timeoutMs = timeoutMs ?? 60_000;
    this.#fetch = fetchImpl ?? fetch;
    this.#retry = retry;
  }

  /** One API call: JSON in and out, retried per `policy`, a failed answer thrown as AdCleanError. */
  async #call<T>(method: string, route: string, options: CallOptions = {}): Promise<T> {
    const url = new URL(`${this.#baseUrl}${route}`);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#apiKey}`,
      Accept: "application/json",
    };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    if (options.idempotencyKey !== undefined) headers["Idempotency-Key"] = options.idempotencyKey;
    const body = options.body === undefined ? null : JSON.stringify(options.body);
    const response = await sendWithRetry(
      (signal) => this.#fetch(url, { method, headers, body, signal: signal ?? null }),
      { ...this.#retry, policy: options.policy ?? "any", signal: options.signal, timeoutMs: this.#timeoutMs },
    );
    if (!response.ok) throw await AdCleanError.from(response);
    return (await response.json()) as T;
  }

  getAccount(options?: RequestOptions): Promise<Account> {
    return this.#call("GET", "/v1/account", options);
  }

  estimate(durationSeconds: number, options?: RequestOptions): Promise<Estimate> {
    return this.#call("GET", "/v1/estimate", { ...options, query: { duration_seconds: durationSeconds } });
  }

  createUpload(body: UploadCreate, options: CreateOptions = {}): Promise<Upload> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    return this.#call("POST", "/v1/uploads", { signal: options.signal, body, idempotencyKey });
  }

  /** Creates an upload for a local file and PUTs the file to it (streamed); resolves with the Upload. */
  async uploadFile(file: string, options: UploadFileOptions = {}): Promise<Upload> {
    const contentType = options.contentType ?? contentTypeOf(file);
    if (!contentType) throw new Error(`${file}: only .mp4, .mov and .m4v files can be uploaded.`);
    const { size } = await stat(file);
    const upload = await this.createUpload(
      { filename: options.filename ?? path.basename(file), content_type: contentType, size_bytes: size },
      options,
    );
    await putFile(upload, file, size, {
      ...this.#retry,
      fetch: this.#fetch,
      signal: options.signal,
      onProgress: options.onProgress,
    });
    return upload;
  }

  createJob(body: JobCreate, options: CreateOptions = {}): Promise<Job> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    return this.#call("POST", "/v1/jobs", { signal: options.signal, body, idempotencyKey });
  }

  listJobs(query: JobListQuery = {}, options?: RequestOptions): Promise<JobList> {
    return this.#call("GET", "/v1/jobs", { ...options, query });
  }

  getJob(id: string, options?: RequestOptions): Promise<Job> {
    return this.#call("GET", `/v1/jobs/${encodeURIComponent(id)}`, options);
  }

  /** Cancels a queued or running job (credits returned); a finished job comes back unchanged. */
  cancelJob(id: string, options?: RequestOptions): Promise<Job> {
    return this.#call("POST", `/v1/jobs/${encodeURIComponent(id)}/cancel`, options);
  }

  /** Polls the job until it is succeeded, failed or canceled; see WaitOptions. */
  waitForJob(id: string, options: WaitOptions = {}): Promise<Job> {
    return waitForJob((jobId, signal) => this.getJob(jobId, { signal }), id, options);
  }

  /** Streams a succeeded job's result to a file; resolves with its size in bytes. */
  downloadResult(job: Job, destination: string, options: RequestOptions = {}): Promise<number> {
    if (!job.result) throw new Error(`Job ${job.id} has no result (status ${job.status}).`);
    return downloadTo(job.result.url, destination, {
      ...this.#retry,
      fetch: this.#fetch,
      signal: options.signal,
    });
  }

  /**
   * Saves a succeeded job's before/after picture (a JPEG: the frame with the most erased text,
   * before and after, side by side); resolves with its size in bytes.
   */
  downloadReportPicture(job: Job, destination: string, options: RequestOptions = {}): Promise<number> {
    const url = job.report?.picture?.url;
    if (!url) throw new Error(`Job ${job.id} has no before/after picture (status ${job.status}).`);
    return downloadTo(url, destination, { ...this.#retry, fetch: this.#fetch, signal: options.signal });
  }

  getWebhookEndpoint(options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.#call("GET", "/v1/webhook_endpoint", options);
  }

  /** Sets the endpoint's URL (and whether it is enabled); the answer carries the signing secret. */
  setWebhookEndpoint(
    body: WebhookEndpointUpdate,
    options?: RequestOptions,
  ): Promise<WebhookEndpointWithSecret> {
    return this.#call("PUT", "/v1/webhook_endpoint", { ...options, body });
  }

  /** A new signing secret. Not retried after a lost answer: a second rotation would drop the first. */
  rotateWebhookSecret(body: RotateSecret = {}, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return this.#call("POST", "/v1/webhook_endpoint/rotate_secret", { ...options, body, policy: "refused" });
  }

  /** Sends a webhook.test event to the endpoint. */
  sendTestWebhook(options?: RequestOptions): Promise<EventWithDelivery> {
    return this.#call("POST", "/v1/webhook_endpoint/test", { ...options, policy: "refused" });
  }

  listEvents(query: EventListQuery = {}, options?: RequestOptions): Promise<EventList> {
    return this.#call("GET", "/v1/events", { ...options, query });
  }

  listEventDeliveries(eventId: string, options?: RequestOptions): Promise<WebhookAttemptList> {
    return this.#call("GET", `/v1/events/${encodeURIComponent(eventId)}/deliveries`, options);
  }

  /** Sends an event again now. */
  redeliverEvent(eventId: string, options?: RequestOptions): Promise<EventWithDelivery> {
    return this.#call("POST", `/v1/events/${encodeURIComponent(eventId)}/redeliver`, {
      ...options,
      policy: "refused",
    });
  }
}
