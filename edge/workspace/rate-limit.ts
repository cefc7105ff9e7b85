/** The spec's limits, per API key (or client address), per method and endpoint, per minute. */
export const WINDOW_MS = 60_000;

const DEFAULT_LIMIT = 120;

/** Endpoints with a path parameter, counted under their template; "*" matches any method. */
const TEMPLATED: ReadonlyArray<{ method: string; pattern: RegExp; endpoint: string; limit: number }> = [
  { method: "GET", pattern: /^\/v1\/jobs\/[^/]+$/, endpoint: "/v1/jobs/{id}", limit: 240 },
  {
    method: "POST",
    pattern: /^\/v1\/jobs\/[^/]+\/cancel$/,
    endpoint: "/v1/jobs/{id}/cancel",
    limit: DEFAULT_LIMIT,
  },
  {
    method: "*",
    pattern: /^\/v1\/events\/[^/]+\/deliveries$/,
    endpoint: "/v1/events/{id}/deliveries",
    limit: DEFAULT_LIMIT,
  },
  {
    method: "*",
    pattern: /^\/v1\/events\/[^/]+\/redeliver$/,
    endpoint: "/v1/events/{id}/redeliver",
    limit: DEFAULT_LIMIT,
  },
];

/** Fixed paths; the spec's table names the two with their own limits, the rest allow 120. */
const FIXED_PATHS = new Set([
  "/v1/account",
  "/v1/estimate",
  "/v1/uploads",
  "/v1/jobs",
  "/v1/openapi.json",
  "/v1/webhook_endpoint",
  "/v1/webhook_endpoint/test",
  "/v1/webhook_endpoint/rotate_secret",
  "/v1/events",
  "/mcp",
]);
const FIXED_LIMITS: Record<string, number> = { "POST /v1/jobs": 30, "POST /v1/uploads": 60 };

export interface RateBucket {
  /** Method and endpoint template, e.g. "GET /v1/jobs/{id}": one window per key and bucket. */
  name: string;
  limit: number;
}

/**
 * Which window a request counts in. A templated path counts under its template and a known path
 * under itself; any other path shares one "unknown" window per method, so random paths cannot
 * grow the table of windows.
 */
export function rateBucketFor(method: string, path: string): RateBucket {
  if (FIXED_PATHS.has(path)) {
    const name = `${method} ${path}`;
    return { name, limit: FIXED_LIMITS[name] ?? DEFAULT_LIMIT };
  }
  const match = TEMPLATED.find(
    (rule) => (rule.method === "*" || rule.method === method) && rule.pattern.test(path),
  );
  if (!match) return { name: `${method} *`, limit: DEFAULT_LIMIT };
  return { name: `${method} ${match.endpoint}`, limit: match.limit };
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
