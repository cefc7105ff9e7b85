import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { describe, expect, it } from "vitest";
import {
  api,
  awayFromWindowEdge,
  balance,
  createWorkspace,
  expectError,
  expectStandardHeaders,
  fixtureBytes,
  fixtureUrl,
  postJson,
} from "./helpers";

const MCP_URL = new URL("http://edge.test/mcp");

/** The SDK's client over Streamable HTTP, sent into the Worker under test. */
async function connect(key: string): Promise<Client> {
  // The client too would compile schemas with ajv (`new Function`), which workerd forbids.
  const client = new Client(
    { name: "edge-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(MCP_URL, {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: (url, init) => SELF.fetch(url, init),
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorOf(result: CallToolResult) {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: { code: string; type: string; param?: string } }).error;
}

/** One JSON-RPC message POSTed to /mcp the way a Streamable HTTP client sends it, with `key` when given. */
function postMcp(message: unknown, key?: string): Promise<Response> {
  return api("/mcp", {
    method: "POST",
    ...(key ? { key } : {}),
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify(message),
  });
}

describe("/mcp in the Worker", () => {
  it("refuses a request without a key with the API's 401, request id and rate headers", async () => {
    const response = await postMcp({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expectStandardHeaders(response);
    await expectError(response, 401, "invalid_api_key");
  });

  it("answers a keyed POST as an event stream carrying the API's request id and rate headers", async () => {
    const { api_key } = await createWorkspace();
    const response = await postMcp({ jsonrpc: "2.0", id: 1, method: "tools/list" }, api_key);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/event-stream");
    expectStandardHeaders(response);
    expect(await response.text()).toContain("wait_for_job");
  });

  it("answers GET with 405: the server is stateless and offers no standalone stream", async () => {
    const { api_key } = await createWorkspace();
    const response = await api("/mcp", { key: api_key, headers: { Accept: "text/event-stream" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toBe("POST");
    expectStandardHeaders(response);
  });

  it("answers a request whose params break the method's schema with -32602 Invalid params, not an internal error", async () => {
    const { api_key } = await createWorkspace();
    const response = await postMcp(
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 42 } },
      api_key,
    );
    expect(response.status).toBe(200);
    const data = (await response.text()).split("\n").find((line) => line.startsWith("data: ")) ?? "";
    const answer = JSON.parse(data.slice(6)) as { id: number; error: { code: number; message: string } };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toMatch(/^Invalid params: params\.name: .*expected string/);
  });

  it("validates arguments before running a tool: invalid_parameter names the argument", async () => {
    const client = await connect((await createWorkspace()).api_key);
    expect(errorOf(await call(client, "estimate_credits", { duration_seconds: 0 }))).toMatchObject({
      code: "invalid_parameter",
      type: "invalid_request_error",
      param: "duration_seconds",
    });
    expect(errorOf(await call(client, "list_jobs", { limit: 101 })).param).toBe("limit");
    expect(errorOf(await call(client, "get_job", { id: "job_x" })).code).toBe("invalid_parameter");
    expect(
      errorOf(await call(client, "create_job", { upload_id: "up_1", video_url: "http://x" })).param,
    ).toBe("video_url");
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it("creates an upload, takes the PUT, then a job from it with source mcp; an idempotency_key replays", async () => {
    const { api_key } = await createWorkspace({ plan: "growth", credits: 500 });
    const client = await connect(api_key);
    const bytes = await fixtureBytes("clip.mp4");
    const upload = await call(client, "create_upload", {
      filename: "ad.mp4",
      content_type: "video/mp4",
      size_bytes: bytes.length,
    });
    const slot = upload.structuredContent as {
      id: string;
      upload_url: string;
      headers: Record<string, string>;
    };
    expect(upload.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("PUT") });
    const put = await SELF.fetch(slot.upload_url, { method: "PUT", headers: slot.headers, body: bytes });
    expect(put.status).toBe(200);

    const args = { upload_id: slot.id, texts: ["SALE"], idempotency_key: "mcp-1" };
    const created = await call(client, "create_job", args);
    expect(created.structuredContent).toMatchObject({ status: "queued", source: "mcp", credits: 25 });
    const replay = await call(client, "create_job", args);
    expect((replay.structuredContent as { id: string }).id).toBe(
      (created.structuredContent as { id: string }).id,
    );
    expect(replay.content[0]).toMatchObject({ text: expect.stringContaining("replayed") });
    expect(await balance(api_key)).toMatchObject({ total: 475 });

    const again = await call(client, "create_job", { upload_id: slot.id });
    expect(errorOf(again)).toMatchObject({ code: "upload_already_used", param: "upload_id" });
    await client.close();
  });

  it("wait_for_job sends progress while a job is queued and returns it when the time is up", async () => {
    const { api_key } = await createWorkspace();
    const client = await connect(api_key);
    const created = await call(client, "create_job", { video_url: fixtureUrl("clip.mp4") });
    const { id } = created.structuredContent as { id: string };
    const progress: Array<{ progress: number; message?: string }> = [];
    const waited = (await client.callTool(
      { name: "wait_for_job", arguments: { job_id: id, timeout_seconds: 1 } },
      undefined,
      {
        onprogress: (notification) => progress.push(notification),
      },
    )) as CallToolResult;
    expect(waited.structuredContent).toMatchObject({ id, status: "queued" });
    expect(waited.content[0]).toMatchObject({ text: expect.stringContaining("Still not finished") });
    expect(progress).toEqual([{ progress: 0, total: 1, message: "queued: queued" }]);
    await client.close();
  });

  it("wait_for_job wakes when the job ends: a cancel during the wait returns the canceled job", async () => {
    const { api_key } = await createWorkspace();
    const client = await connect(api_key);
    const created = await call(client, "create_job", { video_url: fixtureUrl("clip.mp4") });
    const { id } = created.structuredContent as { id: string };
    let waiting: () => void = () => undefined;
    const firstProgress = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    // Asked to wait up to 300 s, it must answer within the client's 20 s request timeout (or reject).
    const waited = client.callTool(
      { name: "wait_for_job", arguments: { job_id: id, timeout_seconds: 300 } },
      undefined,
      {
        onprogress: () => waiting(),
        timeout: 20_000,
      },
    ) as Promise<CallToolResult>;
    await firstProgress; // the wait has seen the job queued
    expect((await api(`/v1/jobs/${id}/cancel`, { method: "POST", key: api_key })).status).toBe(200);
    const answer = await waited;
    expect(answer.structuredContent).toMatchObject({ id, status: "canceled", credits_refunded: true });
    expect(answer.content[0]).not.toMatchObject({ text: expect.stringContaining("Still not finished") });
    await client.close();
  });

  it("applies the /v1 plan gate per tool: a starter workspace gets the account, not jobs", async () => {
    const { api_key } = await createWorkspace({ plan: "starter" });
    const client = await connect(api_key);
    const account = await call(client, "get_account");
    expect(account.structuredContent).toMatchObject({ object: "account", limits: { api_access: false } });
    expect(
      (await call(client, "estimate_credits", { duration_seconds: 61.2 })).structuredContent,
    ).toMatchObject({
      credits: 155,
    });
    expect(errorOf(await call(client, "create_job", { video_url: fixtureUrl("clip.mp4") }))).toMatchObject({
      code: "plan_required",
      type: "permission_error",
    });
    expect(errorOf(await call(client, "list_jobs")).code).toBe("plan_required");
    await client.close();
  });

  it("counts every tool call of a JSON-RPC batch in the key's window of its /v1 endpoint", async () => {
    await awayFromWindowEdge();
    const { api_key } = await createWorkspace();
    // 31 create_job calls in one POST; their arguments fail validation, which comes after the count.
    const batch = Array.from({ length: 31 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "create_job", arguments: {} },
    }));
    const response = await postMcp(batch, api_key);
    expect(response.status).toBe(200);
    const answers = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { id: number; result: CallToolResult });
    const codes = answers.sort((a, b) => a.id - b.id).map((answer) => errorOf(answer.result).code);
    expect(codes.filter((code) => code === "invalid_parameter")).toHaveLength(30);
    expect(codes.filter((code) => code === "rate_limited")).toHaveLength(1);
    // The same window as POST /v1/jobs: the key has no job creation left this minute.
    await expectError(await postJson("/v1/jobs", api_key, {}), 429, "rate_limited");
    // Another endpoint's window is untouched.
    expect((await api("/v1/account", { key: api_key })).status).toBe(200);
  });

  it("says a video over 15 minutes would be refused, instead of only pricing it", async () => {
    const { api_key } = await createWorkspace();
    const client = await connect(api_key);
    const result = await call(client, "estimate_credits", { duration_seconds: 100_000 });
    expect(result.structuredContent).toMatchObject({ too_long: true, max_duration_seconds: 900 });
    expect(result.content[0]).toMatchObject({
      text: expect.stringContaining(
        "over the 15-minute limit: a job for it would be refused with video_too_long",
      ),
    });
    await client.close();
  });
});
