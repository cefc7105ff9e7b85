/** The spec's limits, per API key (or client address), per method and endpoint, per minute. */
export const WINDOW_MS = 60_000;

const ENDPOINT_LIMITS: ReadonlyArray<{ method: string; pattern: RegExp; endpoint: string; limit: number }> = [
  { method: "POST", pattern: /^\/v1\/jobs$/, endpoint: "/v1/jobs", limit: 30 },
  { method: "POST", pattern: /^\/v1\/uploads$/, endpoint: "/v1/uploads", limit: 60 },
  { method: "GET", pattern: /^\/v1\/jobs\/[^/]+$/, endpoint: "/v1/jobs/{id}", limit: 240 },
  { method: "POST", pattern: /^\/v1\/jobs\/[^/]+\/cancel$/, endpoint: "/v1/jobs/{id}/cancel", limit: 120 },
  { method: "GET", pattern: /^\/v1\/[a-z_]+$/, endpoint: "", limit: 120 },
];
const DEFAULT_LIMIT = 120;

export interface RateBucket {
  /** Method and endpoint template, e.g. "GET /v1/jobs/{id}": one window per key and bucket. */
  name: string;
  limit: number;
}

/**
 * Which window a request counts in. A templated path counts under its template; any other path
 * that is not a plain /v1/<name> shares one "unknown" window per method, so random paths cannot
 * grow the table of windows.
 */
export function rateBucketFor(method: string, path: string): RateBucket {
  const match = ENDPOINT_LIMITS.find((rule) => rule.method === method && rule.pattern.test(path));
  if (!match) return { name: `${method} *`, limit: DEFAULT_LIMIT };
  return { name: `${method} ${match.endpoint || path}`, limit: match.limit };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  reset: number;
  /** Seconds until a refused request may be sent again. */
  retryAfter: number;
}

/** Fixed one-minute windows aligned to the clock minute. */
export function windowStart(nowMs: number): number {
  return nowMs - (nowMs % WINDOW_MS);
}

export function decide(count: number, limit: number, startMs: number, nowMs: number): RateDecision {
  const endMs = startMs + WINDOW_MS;
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.ceil(endMs / 1000),
    retryAfter: Math.max(1, Math.ceil((endMs - nowMs) / 1000)),
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.reset),
  };
}
