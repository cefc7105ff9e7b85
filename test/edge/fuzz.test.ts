import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  bodyBytes,
  CONTENT_TYPES,
  fieldsObject,
  IDEMPOTENCY_KEYS,
  jsonValue,
  PATH_IDS,
  pick,
  QUERY_VALUES,
  type Random,
  seededRandom,
} from "./fuzz-values";
import { claim, createJob, createWorkspace, getJob, succeed, uploadFixture } from "./helpers";

interface Endpoint {
  method: string;
  path: string;
  query?: readonly string[];
  body?: readonly string[];
  idempotent?: boolean;
}

/** Every /v1 endpoint of the spec and of the webhook management API, and the local storage addresses. */
const ENDPOINTS: readonly Endpoint[] = [
  { method: "GET", path: "/v1/account" },
  { method: "GET", path: "/v1/estimate", query: ["duration_seconds"] },
  {
    method: "POST",
    path: "/v1/uploads",
    body: ["filename", "content_type", "size_bytes"],
    idempotent: true,
  },
  {
    method: "POST",
    path: "/v1/jobs",
    body: ["upload_id", "video_url", "filename", "texts", "metadata"],
    idempotent: true,
  },
  { method: "GET", path: "/v1/jobs", query: ["limit", "status", "starting_after"] },
  { method: "GET", path: "/v1/jobs/{id}" },
  { method: "POST", path: "/v1/jobs/{id}/cancel", body: [] },
  { method: "GET", path: "/v1/webhook_endpoint" },
  { method: "PUT", path: "/v1/webhook_endpoint", body: ["url", "enabled"] },
  { method: "POST", path: "/v1/webhook_endpoint/rotate_secret", body: ["overlap_seconds"] },
  { method: "GET", path: "/v1/events", query: ["limit", "starting_after", "type"] },
  { method: "GET", path: "/v1/events/{id}/deliveries" },
  { method: "POST", path: "/v1/events/{id}/redeliver", body: [] },
  // The Worker's own presigned addresses (local mode): reachable without a key, so just as exposed.
  {
    method: "PUT",
    path: "/storage/upload/{id}",
    query: ["content_type", "size", "expires", "signature"],
    body: ["filename"],
  },
  { method: "GET", path: "/storage/download/{id}", query: ["expires", "filename", "signature"] },
];

/** Requests per key before a fresh workspace is used, below the tightest limit (30 job creations a minute). */
const REQUESTS_PER_KEY = 25;
const ITERATIONS = 400;
const SEED = 20_261_123;

function hostileRequest(random: Random, endpoint: Endpoint, apiKey: string): Request | null {
  let path = endpoint.path.replace("{id}", pick(random, PATH_IDS));
  if (endpoint.query) {
    const params = endpoint.query
      .filter(() => random() < 0.8)
      .map((name) => `${name}=${pick(random, QUERY_VALUES)}`);
    if (random() < 0.2) params.push(`${pick(random, endpoint.query)}=${pick(random, QUERY_VALUES)}`); // repeated
    if (params.length) path += `?${params.join("&")}`;
  }
  const headers: [string, string][] = [["Authorization", `Bearer ${apiKey}`]];
  let body: Uint8Array | string | undefined;
  if (endpoint.body) {
    const value = random() < 0.8 ? fieldsObject(random, endpoint.body) : jsonValue(random);
    body = bodyBytes(random, value);
    const contentType = pick(random, CONTENT_TYPES);
    if (contentType) headers.push(["Content-Type", contentType]);
  }
  if (endpoint.idempotent && random() < 0.5)
    headers.push(["Idempotency-Key", pick(random, IDEMPOTENCY_KEYS)]);
  try {
    return new Request(`http://edge.test${path}`, { method: endpoint.method, headers, body });
  } catch {
    // A header no HTTP client can send (CR, LF, NUL, beyond Latin-1): fetch refuses it before the wire.
    return null;
  }
}

interface Outcome {
  status: number;
  /** error.code of an error answer, else the status. */
  kind: string;
  problem: string | null;
}

/** Whether `error` is the spec's error envelope, naming the answer's request id. */
function isApiError(error: Record<string, unknown> | undefined, response: Response): boolean {
  return (
    typeof error?.type === "string" &&
    typeof error.code === "string" &&
    typeof error.message === "string" &&
    error.request_id === response.headers.get("X-Request-Id")
  );
}

/** The answer a user sees: below 500, and any error in the spec's envelope with the request id. */
async function judge(response: Response): Promise<Outcome> {
  const { status } = response;
  const text = await response.text();
  if (status >= 500) return { status, kind: String(status), problem: `server error: ${text.slice(0, 300)}` };
  if (status < 400) return { status, kind: String(status), problem: null };
  try {
    const error = (JSON.parse(text) as { error?: Record<string, unknown> }).error;
    const kind = String(error?.code);
    return {
      status,
      kind,
      problem: isApiError(error, response) ? null : `not the error envelope: ${text.slice(0, 300)}`,
    };
  } catch {
    return { status, kind: "not_json", problem: `not JSON: ${text.slice(0, 300)}` };
  }
}

/** Fails a request that takes longer than this instead of letting the test hang. */
const REQUEST_TIMEOUT_MS = 20_000;
/** A whole seeded run: hundreds of requests while another test file shares the machine's cores. */
const FUZZ_RUN = { timeout: 240_000 };

async function send(request: Request): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no answer: the request hung")), REQUEST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([SELF.fetch(request), hang]);
  } finally {
    clearTimeout(timer);
  }
}

describe("fuzz: hostile /v1 requests get a 4xx in the error envelope, never a 5xx or a hang", () => {
  it(`${ITERATIONS} seeded requests across every endpoint (seed ${SEED})`, FUZZ_RUN, async () => {
    const random = seededRandom(SEED);
    const problems: string[] = [];
    const kinds = new Map<string, number>();
    let apiKey = "";
    for (let i = 0; i < ITERATIONS; i++) {
      if (i % REQUESTS_PER_KEY === 0)
        apiKey = (await createWorkspace({ plan: "scale", credits: 100 })).api_key;
      const endpoint = pick(random, ENDPOINTS);
      const request = hostileRequest(random, endpoint, apiKey);
      if (!request) continue;
      const label = `#${i} ${request.method} ${request.url.slice(0, 200)}`;
      const outcome = await judge(await send(request));
      kinds.set(outcome.kind, (kinds.get(outcome.kind) ?? 0) + 1);
      if (outcome.problem) problems.push(`${label}: ${outcome.status} ${outcome.problem}`);
    }
    expect(problems).toEqual([]);
    // The run reached validation and the handlers, not only the front door.
    expect([...kinds.keys()]).toEqual(
      expect.arrayContaining(["invalid_json", "invalid_parameter", "job_not_found", "200"]),
    );
  });

  it("header values a raw client could still send are refused or ignored, never echoed into headers", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 100 });
    for (const key of ["x".repeat(256), "\u00e9\u00ff"]) {
      const response = await SELF.fetch("http://edge.test/v1/uploads", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${api_key}`,
          "Content-Type": "application/json",
          "Idempotency-Key": key,
        },
        body: JSON.stringify({ filename: "a.mp4", content_type: "video/mp4", size_bytes: 10 }),
      });
      expect(response.status).toBeLessThan(500);
      if (key.length > 255) expect(response.status).toBe(400);
      await response.body?.cancel();
    }
  });

  it("a filename with CR/LF (JSON carries them raw) never splits the download's headers", async () => {
    // The one customer text the service writes into a response header: Content-Disposition.
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const upload = await uploadFixture(api_key, "clip.mp4");
    const job = await createJob(api_key, { upload_id: upload.id, filename: "ad\r\nInjected: 1\r\n\r\n.mp4" });
    expect((await claim(job.id)).status).toBe(200);
    expect((await succeed(job.id, new Uint8Array(64).fill(1))).status).toBe(200);
    const download = await SELF.fetch((await getJob(api_key, job.id)).result?.url as string);
    expect(download.status).toBe(200);
    expect(download.headers.get("Injected")).toBeNull();
    expect(download.headers.get("Content-Disposition")).not.toMatch(/[\r\n]/);
    expect(download.headers.get("Content-Disposition")).toContain("Injected");
    expect((await download.arrayBuffer()).byteLength).toBe(64);
  });
});

/** The MCP tools and their arguments, so most calls get past "unknown tool" to the arguments' checks. */
const MCP_TOOLS: Record<string, readonly string[]> = {
  get_account: [],
  estimate_credits: ["duration_seconds"],
  create_upload: ["filename", "content_type", "size_bytes", "idempotency_key"],
  create_job: ["upload_id", "video_url", "filename", "texts", "metadata", "idempotency_key"],
  get_job: ["job_id"],
  list_jobs: ["limit", "status", "starting_after"],
  cancel_job: ["job_id"],
  wait_for_job: ["job_id", "timeout_seconds"],
};
const MCP_METHODS = [
  "tools/call",
  "tools/call",
  "tools/call",
  "tools/list",
  "initialize",
  "ping",
  "resources/list",
];
const MCP_ACCEPTS = [
  "application/json, text/event-stream",
  "application/json",
  "text/event-stream",
  "*/*",
  "",
];
const MCP_ITERATIONS = 250;
/** Below the /mcp limit of 120 messages a minute per key. */
const MCP_REQUESTS_PER_KEY = 100;

/** A JSON-RPC message with hostile parts: version, id, method, tool name and arguments. */
function hostileRpc(random: Random): unknown {
  const name = random() < 0.85 ? pick(random, Object.keys(MCP_TOOLS)) : jsonValue(random, 1);
  const fields = Object.hasOwn(MCP_TOOLS, String(name))
    ? (MCP_TOOLS[String(name)] as readonly string[])
    : ["a"];
  const message: Record<string, unknown> = {
    jsonrpc: random() < 0.9 ? "2.0" : jsonValue(random, 1),
    id: random() < 0.8 ? Math.floor(random() * 1000) : jsonValue(random, 1),
    method: random() < 0.9 ? pick(random, MCP_METHODS) : jsonValue(random, 1),
    params:
      random() < 0.85
        ? { name, arguments: random() < 0.8 ? fieldsObject(random, fields) : jsonValue(random) }
        : jsonValue(random),
  };
  if (random() < 0.05) delete message.id; // a notification
  return random() < 0.1 ? [message, hostileRpc(random)] : message;
}

/** What went wrong in one /mcp answer, or null: no 5xx, errors shaped, no internal error inside a 200. */
async function mcpProblem(response: Response): Promise<string | null> {
  const { status } = response;
  const text = await response.text();
  if (status >= 500) return `server error ${status}: ${text.slice(0, 300)}`;
  if (/\n\s+at /.test(text)) return `a stack trace: ${text.slice(0, 300)}`;
  if (status >= 400) {
    try {
      const { error } = JSON.parse(text) as { error?: Record<string, unknown> };
      const rpcError = typeof error?.code === "number" && typeof error.message === "string";
      return rpcError || isApiError(error, response) ? null : `not an error object: ${text.slice(0, 300)}`;
    } catch {
      return `not JSON: ${text.slice(0, 300)}`;
    }
  }
  const payloads = response.headers.get("Content-Type")?.startsWith("text/event-stream")
    ? text.split("\n").flatMap((line) => (line.startsWith("data: ") ? [line.slice(6)] : []))
    : text
      ? [text]
      : [];
  for (const payload of payloads) {
    const messages = [JSON.parse(payload)].flat() as Array<{
      error?: { code?: number };
      result?: { structuredContent?: { error?: { code?: string } } };
    }>;
    for (const message of messages) {
      if (message.error?.code === -32603) return `JSON-RPC internal error: ${payload.slice(0, 300)}`;
      if (message.result?.structuredContent?.error?.code === "internal_error")
        return `a tool's internal_error: ${payload.slice(0, 300)}`;
    }
  }
  return null;
}

describe("fuzz: hostile MCP messages get a JSON-RPC or API error, never a 5xx, an internal error or a hang", () => {
  it(`${MCP_ITERATIONS} seeded POSTs to /mcp (seed ${SEED})`, FUZZ_RUN, async () => {
    const random = seededRandom(SEED);
    const problems: string[] = [];
    const statuses = new Set<number>();
    let apiKey = "";
    for (let i = 0; i < MCP_ITERATIONS; i++) {
      if (i % MCP_REQUESTS_PER_KEY === 0)
        apiKey = (await createWorkspace({ plan: "scale", credits: 1_000 })).api_key;
      const headers: [string, string][] = [["Authorization", `Bearer ${apiKey}`]];
      const accept = pick(random, MCP_ACCEPTS);
      if (accept) headers.push(["Accept", accept]);
      const contentType = random() < 0.8 ? "application/json" : pick(random, CONTENT_TYPES);
      if (contentType) headers.push(["Content-Type", contentType]);
      const body =
        random() < 0.85 ? JSON.stringify(hostileRpc(random)) : bodyBytes(random, hostileRpc(random));
      const request = new Request("http://edge.test/mcp", { method: "POST", headers, body });
      const response = await send(request);
      statuses.add(response.status);
      const problem = await mcpProblem(response);
      if (problem) problems.push(`#${i}: ${problem}`);
    }
    expect(problems).toEqual([]);
    // The run reached the tools (200) as well as the transport's refusals.
    expect([...statuses]).toEqual(expect.arrayContaining([200, 406]));
  });
});
