import {
  createExecutionContext,
  createScheduledController,
  env,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { inject } from "vitest";
import type { Env } from "../../edge/env";
import worker from "../../edge/index";

export const ADMIN_TOKEN = "test-admin-token";
const BASE = "http://edge.test";

export interface Created {
  workspace_id: string;
  api_key: string;
  key_id: string;
  signing_secret: string;
}

export function api(path: string, init: RequestInit & { key?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("Authorization", `Bearer ${init.key}`);
  return SELF.fetch(`${BASE}${path}`, { ...init, headers });
}

export function admin(path: string, method = "GET", body?: unknown): Promise<Response> {
  return SELF.fetch(`${BASE}/admin${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function createWorkspace(body: Record<string, unknown> = { plan: "growth" }): Promise<Created> {
  const response = await admin("/workspaces", "POST", body);
  if (response.status !== 201)
    throw new Error(`workspace create: ${response.status} ${await response.text()}`);
  return response.json();
}

export interface ErrorEnvelope {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

/** Asserts the spec's error envelope and returns it. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorEnvelope> {
  const text = await response.text();
  if (response.status !== status)
    throw new Error(`expected ${status} ${code}, got ${response.status}: ${text}`);
  const body = JSON.parse(text) as ErrorEnvelope;
  if (body.error.code !== code) throw new Error(`expected code ${code}, got ${text}`);
  if (body.error.request_id !== response.headers.get("X-Request-Id"))
    throw new Error("request_id differs from header");
  return body;
}

/** Fixed windows restart at each clock minute: start a burst well inside one so it cannot straddle two. */
export async function awayFromWindowEdge(burstSeconds = 10): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - burstSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
  }
}

export const RATE_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const;

export function expectStandardHeaders(response: Response): void {
  const requestId = response.headers.get("X-Request-Id");
  if (!requestId?.match(/^req_[0-9A-Za-z]{24}$/)) throw new Error(`bad X-Request-Id: ${requestId}`);
  for (const name of RATE_HEADERS) {
    if (!/^\d+$/.test(response.headers.get(name) ?? "")) throw new Error(`missing ${name}`);
  }
}

/** Address of a fixture on the loopback file server (see global-setup). */
export function fixtureUrl(name: string, kind = "files"): string {
  return `${inject("fixturesUrl")}/${kind}/${name}`;
}

export async function fixtureBytes(name: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(fixtureUrl(name))).arrayBuffer());
}

export function postJson(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  return api(path, {
    method: "POST",
    key,
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

export interface UploadAnswer {
  id: string;
  object: string;
  upload_url: string;
  method: string;
  headers: Record<string, string>;
  expires_at: string;
}

/** Creates an upload slot and, unless told otherwise, sends the fixture's bytes to it, declared as `contentType`. */
export async function uploadFixture(
  key: string,
  name: string,
  send = true,
  contentType = name.endsWith(".mov") ? "video/quicktime" : "video/mp4",
): Promise<UploadAnswer> {
  const bytes = await fixtureBytes(name);
  const created = await postJson("/v1/uploads", key, {
    filename: name,
    content_type: contentType,
    size_bytes: bytes.length,
  });
  if (created.status !== 201) throw new Error(`upload create: ${created.status} ${await created.text()}`);
  const upload = await created.json<UploadAnswer>();
  if (send) {
    const put = await SELF.fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: bytes });
    if (put.status !== 200) throw new Error(`upload PUT: ${put.status} ${await put.text()}`);
  }
  return upload;
}

export interface JobAnswer {
  id: string;
  object: string;
  status: string;
  stage: string | null;
  progress: number;
  source: string;
  input: {
    filename: string;
    duration_seconds: number;
    width: number | null;
    height: number | null;
    size_bytes: number | null;
  };
  credits: number;
  credits_refunded: boolean;
  result: { url: string; expires_at: string; size_bytes: number | null } | null;
  error: { code: string; message: string } | null;
  metadata: Record<string, string>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export async function createJob(
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JobAnswer> {
  const response = await postJson("/v1/jobs", key, body, headers);
  if (response.status !== 201) throw new Error(`job create: ${response.status} ${await response.text()}`);
  return response.json<JobAnswer>();
}

export async function balance(key: string): Promise<{ plan: number; pack: number; total: number }> {
  return (
    await (
      await api("/v1/account", { key })
    ).json<{ credits: { plan: number; pack: number; total: number } }>()
  ).credits;
}

/** Fires the Worker's scheduled handler (plan renewals, the job reaper) and waits for it. */
export async function runCron(workerEnv: Env = env): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }),
    workerEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** The lease token of each claim made here, by job and worker id. */
const leaseTokens = new Map<string, string>();

/**
 * A POST to the internal GPU-worker API, as a worker sends it: a worker's calls about a job it
 * claimed carry that claim's lease token (unless the body names one); a worker that never claimed
 * the job sends a token that is no lease's.
 */
export async function internal(
  path: string,
  body: Record<string, unknown>,
  secret = "test-worker-secret",
): Promise<Response> {
  const key = `${path.split("/")[2]}/${String(body.worker_id)}`;
  const isClaim = path.endsWith("/claim");
  const sent =
    isClaim || "lease_token" in body ? body : { lease_token: leaseTokens.get(key) ?? "unclaimed", ...body };
  const response = await SELF.fetch(`${BASE}/internal${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
    body: JSON.stringify(sent),
  });
  if (isClaim && response.ok) {
    leaseTokens.set(key, (await response.clone().json<{ lease_token: string }>()).lease_token);
  }
  return response;
}

export const claim = (jobId: string, worker = "w1") =>
  internal(`/jobs/${jobId}/claim`, { worker_id: worker });

/** Stores a result the way a worker does (presigned PUT), then completes the job; answers the completion. */
export async function succeed(jobId: string, bytes: Uint8Array, worker = "w1"): Promise<Response> {
  const target = await (
    await internal(`/jobs/${jobId}/result-target`, { worker_id: worker, size_bytes: bytes.length })
  ).json<{ url: string; headers: Record<string, string> }>();
  const put = await SELF.fetch(target.url, { method: "PUT", headers: target.headers, body: bytes });
  if (put.status !== 200) throw new Error(`result PUT: ${put.status} ${await put.text()}`);
  return internal(`/jobs/${jobId}/complete`, {
    worker_id: worker,
    outcome: "succeeded",
    result_size_bytes: bytes.length,
  });
}

export async function getJob(key: string, id: string): Promise<JobAnswer> {
  return (await api(`/v1/jobs/${id}`, { key })).json<JobAnswer>();
}
