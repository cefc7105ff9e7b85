import { setTimeout as sleep } from "node:timers/promises";
import { AdCleanConnectionError } from "./errors";

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** The first retry waits up to this long, each next one up to twice as long (default 250). */
  baseDelayMs?: number;
  /** The cap of the backoff; a longer Retry-After is still honoured (default 8000). */
  maxDelayMs?: number;
  /** Told before each wait, e.g. to say on a terminal that a retry is coming. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  /** `HTTP 503`, or the network error's code (`ECONNRESET`, `UND_ERR_SOCKET`, `TimeoutError`…). */
  reason: string;
}

/**
 * `any`: repeating the request is safe (GET, PUT, a POST with an Idempotency-Key, cancel), so
 * network errors, 429 and 5xx are retried. `refused`: a repeat could act twice, so only what the
 * service certainly did not act on is retried: 429 (refused before any work) and a refused connection.
 */
export type RetryPolicy = "any" | "refused";

export interface SendOptions extends RetryOptions {
  policy: RetryPolicy;
  /** The caller's cancel: stops the attempt in flight and the waits, never retried. */
  signal?: AbortSignal | undefined;
  /** Each attempt's limit; a timed-out attempt counts as a network error. None when unset. */
  timeoutMs?: number | undefined;
}

/** The code that names a network failure of fetch, or undefined for any other error. */
function networkErrorCode(error: unknown): string | undefined {
  if (error instanceof DOMException && error.name === "TimeoutError") return error.name;
  // undici rejects with TypeError("fetch failed") and the socket's error as cause.
  if (error instanceof TypeError && error.message === "fetch failed") {
    const cause = error.cause as { code?: string } | undefined;
    return cause?.code ?? "fetch_failed";
  }
  return undefined;
}

/** Seconds (the spec's form) to milliseconds; undefined when absent or not a number. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base · 2^(attempt-1))). */
function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  return Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
}

/**
 * Sends a request (built anew by `send` for each attempt, so a streamed body can be reopened) and
 * retries it as the policy allows. Resolves with the last answer, successful or not; rejects with
 * AdCleanConnectionError when the last attempt failed on the network.
 */
export async function sendWithRetry(
  send: (signal: AbortSignal | undefined) => Promise<Response>,
  options: SendOptions,
): Promise<Response> {
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 8000;
  for (let attempt = 1; ; attempt++) {
    const signals = [options.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined];
    const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
    let reason: string;
    let waitMs: number | undefined;
    try {
      const response = await send(present.length > 0 ? AbortSignal.any(present) : undefined);
      const retryable = response.status === 429 || (options.policy === "any" && response.status >= 500);
      if (!retryable || attempt >= maxAttempts) return response;
      reason = `HTTP ${response.status}`;
      waitMs = retryAfterMs(response.headers.get("Retry-After"));
      await response.body?.cancel();
    } catch (error) {
      options.signal?.throwIfAborted();
      const code = networkErrorCode(error);
      if (code === undefined) throw error;
      const retryable = options.policy === "any" || code === "ECONNREFUSED";
      if (!retryable || attempt >= maxAttempts) {
        throw new AdCleanConnectionError(
          `The service could not be reached (${code}, attempt ${attempt} of ${maxAttempts}).`,
          { cause: error },
        );
      }
      reason = code;
    }
    const delayMs = waitMs ?? backoffMs(attempt, baseDelayMs, maxDelayMs);
    options.onRetry?.({ attempt, delayMs, reason });
    await sleep(delayMs, undefined, options.signal ? { signal: options.signal } : {});
  }
}
