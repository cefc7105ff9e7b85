import { SELF } from "cloudflare:test";

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
