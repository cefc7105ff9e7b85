/** The mixed customer traffic of the load test: what to send, and a record of every answer. */

export interface Tenant {
  workspaceId: string;
  apiKey: string;
  startingCredits: number;
}

/** One answer as the invariants and the report need it. */
export interface Sample {
  phase: string;
  tenant: Tenant;
  /** The spec's rate-limit endpoint: method and path template. */
  endpoint: string;
  status: number;
  /** error.code of an error answer; "network" when no answer came. */
  code: string | null;
  /** The start of a 5xx answer's body, so a report can say what answered it (ours or the runtime's). */
  serverErrorText: string | null;
  latencyMs: number;
  /** X-RateLimit-Reset: which one-minute window counted the request. */
  window: string | null;
  jobId: string | null;
  idempotencyKey: string | null;
  replayed: boolean;
}

export interface TrafficContext {
  baseUrl: string;
  videoUrl: string;
  tenants: Tenant[];
  /** Jobs answered 201, per workspace, so gets and cancels aim at real jobs. */
  jobsByTenant: Map<string, string[]>;
  random: () => number;
  phase: string;
  record: (sample: Sample) => void;
}

interface Call {
  endpoint: string;
  method: string;
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}

const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;

let idempotencySerial = 0;

/** Weighted mix of what customers do; job creations half the time carry an Idempotency-Key. */
const MIX: readonly [number, (ctx: TrafficContext, tenant: Tenant) => Call][] = [
  [
    20,
    (ctx) => ({
      endpoint: "GET /v1/estimate",
      method: "GET",
      path: `/v1/estimate?duration_seconds=${1 + Math.floor(ctx.random() * 900)}`,
    }),
  ],
  [15, () => ({ endpoint: "GET /v1/account", method: "GET", path: "/v1/account" })],
  [15, () => ({ endpoint: "GET /v1/jobs", method: "GET", path: "/v1/jobs?limit=20" })],
  [
    20,
    (ctx, tenant) => {
      const id = pick(ctx.random, ctx.jobsByTenant.get(tenant.workspaceId) ?? ["job_none"]);
      return { endpoint: "GET /v1/jobs/{id}", method: "GET", path: `/v1/jobs/${id}` };
    },
  ],
  [
    15,
    (ctx) => ({
      endpoint: "POST /v1/jobs",
      method: "POST",
      path: "/v1/jobs",
      body: { video_url: ctx.videoUrl },
      ...(ctx.random() < 0.5 ? { idempotencyKey: `lt-${process.pid}-${idempotencySerial++}` } : {}),
    }),
  ],
  [
    10,
    (ctx, tenant) => {
      const id = pick(ctx.random, ctx.jobsByTenant.get(tenant.workspaceId) ?? ["job_none"]);
      return { endpoint: "POST /v1/jobs/{id}/cancel", method: "POST", path: `/v1/jobs/${id}/cancel` };
    },
  ],
  [
    5,
    () => ({
      endpoint: "POST /v1/uploads",
      method: "POST",
      path: "/v1/uploads",
      body: { filename: "ad.mp4", content_type: "video/mp4", size_bytes: 1000 },
    }),
  ],
];
const TOTAL_WEIGHT = MIX.reduce((sum, [weight]) => sum + weight, 0);

function nextCall(ctx: TrafficContext, tenant: Tenant): Call {
  let roll = ctx.random() * TOTAL_WEIGHT;
  for (const [weight, make] of MIX) {
    roll -= weight;
    if (roll < 0) return make(ctx, tenant);
  }
  return (MIX[0] as (typeof MIX)[number])[1](ctx, tenant);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends one call and records its answer; never throws. */
export async function send(ctx: TrafficContext, tenant: Tenant, call: Call): Promise<Sample> {
  const started = performance.now();
  const sample: Sample = {
    phase: ctx.phase,
    tenant,
    endpoint: call.endpoint,
    status: 0,
    code: "network",
    latencyMs: 0,
    window: null,
    jobId: null,
    idempotencyKey: call.idempotencyKey ?? null,
    replayed: false,
    serverErrorText: null,
  };
  try {
    const response = await fetch(`${ctx.baseUrl}${call.path}`, {
      method: call.method,
      headers: {
        Authorization: `Bearer ${tenant.apiKey}`,
        "Content-Type": "application/json",
        ...(call.idempotencyKey ? { "Idempotency-Key": call.idempotencyKey } : {}),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status >= 500) sample.serverErrorText = text.slice(0, 160);
    const body = (parseJson(text) ?? {}) as {
      id?: string;
      object?: string;
      error?: { code?: string };
    };
    sample.status = response.status;
    // A job's own `error` (a canceled job's) is no error answer: only 4xx and 5xx carry the envelope.
    sample.code = response.status >= 400 ? (body.error?.code ?? null) : null;
    sample.window = response.headers.get("X-RateLimit-Reset");
    sample.replayed = response.headers.get("Idempotent-Replayed") === "true";
    if (call.endpoint === "POST /v1/jobs" && response.status === 201 && body.id) {
      sample.jobId = body.id;
      const jobs = ctx.jobsByTenant.get(tenant.workspaceId) ?? [];
      if (!jobs.includes(body.id)) jobs.push(body.id);
      ctx.jobsByTenant.set(tenant.workspaceId, jobs);
    }
  } catch {
    // No answer (refused, reset, timed out): recorded as "network".
  }
  sample.latencyMs = performance.now() - started;
  ctx.record(sample);
  return sample;
}

/** An idempotent creation sent again with the same key, as a client does after a lost answer. */
async function sendWithRetry(ctx: TrafficContext, tenant: Tenant, call: Call): Promise<void> {
  const first = send(ctx, tenant, call);
  // A third of keyed creations race their retry; the rest retry once the first answer is in.
  if (ctx.random() < 1 / 3) await Promise.all([first, send(ctx, tenant, call)]);
  else if ((await first).status !== 0 && ctx.random() < 0.5) await send(ctx, tenant, call);
}

/**
 * Open-loop load: starts `rate` calls a second for `seconds`, whatever the answers' latency, with at
 * most `maxInFlight` outstanding (a saturated service shows up as latency, then as a lower rate).
 */
export async function runPhase(
  ctx: TrafficContext,
  rate: number,
  seconds: number,
  maxInFlight = 64,
): Promise<number> {
  const inFlight = new Set<Promise<unknown>>();
  const started = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    const tenant = pick(ctx.random, ctx.tenants);
    const call = nextCall(ctx, tenant);
    const work = call.idempotencyKey ? sendWithRetry(ctx, tenant, call) : send(ctx, tenant, call);
    const tracked = work.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
  return (performance.now() - started) / 1000;
}

/** Over the limit on purpose: `count` calls at once from one key to one endpoint. */
export async function burst(
  ctx: TrafficContext,
  tenant: Tenant,
  endpoint: "estimate" | "jobs",
  count: number,
): Promise<void> {
  const call: Call =
    endpoint === "estimate"
      ? { endpoint: "GET /v1/estimate", method: "GET", path: "/v1/estimate?duration_seconds=30" }
      : { endpoint: "POST /v1/jobs", method: "POST", path: "/v1/jobs", body: { video_url: ctx.videoUrl } };
  await Promise.all(Array.from({ length: count }, () => send(ctx, tenant, call)));
}
