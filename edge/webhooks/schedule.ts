/**
 * When to try a delivery again, after attempt n (1-based) failed: the Standard Webhooks schedule.
 * Attempt 1 is immediate; then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h later.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** Cloudflare Queues delay a message by at most 12 hours; longer waits are chained. */
export const MAX_QUEUE_DELAY_SECONDS = 12 * 60 * 60;
/** An endpoint that has failed for this long without one success is switched off. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * Seconds to wait before attempt `failedAttempt + 1`, with ±10 % jitter so a recovering receiver is
 * not hit by every retry at once; a 429's Retry-After is honoured when it asks for longer.
 * Null when every attempt is used.
 */
export function nextDelaySeconds(
  failedAttempt: number,
  retryAfterSeconds: number | null,
  random = Math.random,
): number | null {
  const base = RETRY_DELAYS_SECONDS[failedAttempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return Math.max(jittered, Math.min(retryAfterSeconds ?? 0, 86400));
}

/** Retry-After as seconds (a number of seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}
