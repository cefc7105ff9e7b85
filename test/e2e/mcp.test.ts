import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeVideoFixtures } from "../fixtures/media";
import { cliWorkspace, HELD_DOWNLOADS_ENV, type RunningStack, startStack } from "../helpers/stack";

let stack: RunningStack;
let files: FileServer;
let key: string;
const clients: Client[] = [];
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-mcp-"));

/** A JSON answer, loosely typed: the assertions say what it must hold. */
// biome-ignore lint/suspicious/noExplicitAny: test answers are checked by assertions, not types
type Answer = Record<string, any>;

async function createWorkspace(plan: string): Promise<string> {
  return (await cliWorkspace(stack, plan, 1000)).api_key;
}

/** The SDK's own client over Streamable HTTP, as an agent's MCP client would connect. */
async function connect(apiKey: string | null): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  const headers: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/mcp`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...result, data: result.structuredContent as Answer };
}

async function rest(route: string, method = "GET") {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${key}` },
  });
  return (await response.json()) as Answer;
}

beforeAll(async () => {
  makeVideoFixtures(dir);
  files = await startFileServer(dir);
  stack = await startStack(18807, HELD_DOWNLOADS_ENV);
  key = await createWorkspace("growth");
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the MCP server on the real local stack", () => {
  it("lists the eight tools, each with a description and an input schema", async () => {
    const { tools } = await (await connect(key)).listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "get_account",
      "estimate_credits",
      "create_upload",
      "create_job",
      "get_job",
      "list_jobs",
      "cancel_job",
      "wait_for_job",
    ]);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe("object");
    }
    const wait = tools.find((tool) => tool.name === "wait_for_job");
    expect(wait?.inputSchema.properties).toHaveProperty("timeout_seconds");
  });

  it("estimates, creates a job from a URL with source mcp, cancels it with a refund, and waits on it at once", async () => {
    const client = await connect(key);
    const estimate = await call(client, "estimate_credits", { duration_seconds: 61.2 });
    expect(estimate.data).toMatchObject({ object: "estimate", credits: 155, label: "1 min 2 s" });
    expect(estimate.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("155 credits") });

    // The worker's download of this address is held open: the job cannot finish before the cancel.
    const created = await call(client, "create_job", { video_url: `${files.url}/held-once/clip.mp4` });
    expect(created.isError).toBeFalsy();
    expect(created.data).toMatchObject({ object: "job", status: "queued", source: "mcp", credits: 25 });
    const jobId = created.data.id as string;
    expect(await rest(`/v1/jobs/${jobId}`)).toMatchObject({ id: jobId, source: "mcp" });
    expect((await rest("/v1/account")).credits.total).toBe(975);

    const canceled = await call(client, "cancel_job", { job_id: jobId });
    expect(canceled.data).toMatchObject({ id: jobId, status: "canceled", credits_refunded: true });
    expect((await rest("/v1/account")).credits.total).toBe(1000);

    // A finished job is returned at once: asked to wait up to 300 s, the call must answer within
    // the client's 20 s request timeout (or it rejects), and not as a wait that ran out.
    const waited = (await client.callTool(
      { name: "wait_for_job", arguments: { job_id: jobId, timeout_seconds: 300 } },
      undefined,
      { timeout: 20_000 },
    )) as CallToolResult;
    expect(waited.structuredContent).toMatchObject({ id: jobId, status: "canceled" });
    expect(waited.content[0]).not.toMatchObject({ text: expect.stringContaining("Still not finished") });
  });

  it("refuses a connection without a key with 401", async () => {
    await expect(connect(null)).rejects.toMatchObject({ code: 401 });
    const response = await fetch(`${stack.baseUrl}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("X-RateLimit-Limit")).toBe("120");
    const body = (await response.json()) as Answer;
    expect(body.error).toMatchObject({
      code: "invalid_api_key",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("answers a bad argument with a tool error naming it", async () => {
    const client = await connect(key);
    const negative = await call(client, "estimate_credits", { duration_seconds: -1 });
    expect(negative.isError).toBe(true);
    expect(negative.data.error).toMatchObject({ code: "invalid_parameter", param: "duration_seconds" });
    expect(negative.content[0]).toMatchObject({ text: expect.stringContaining("duration_seconds") });
    const missing = await call(client, "get_job", {});
    expect(missing.isError).toBe(true);
    expect(missing.data.error).toMatchObject({ code: "invalid_parameter", param: "job_id" });
  });

  it("lets a starter workspace read its account but not create jobs (plan_required)", async () => {
    const client = await connect(await createWorkspace("starter"));
    const account = await call(client, "get_account");
    expect(account.data).toMatchObject({
      object: "account",
      plan: { id: "starter" },
      limits: { api_access: false },
    });
    const refused = await call(client, "create_job", { video_url: `${files.url}/files/clip.mp4` });
    expect(refused.isError).toBe(true);
    expect(refused.data.error).toMatchObject({ code: "plan_required", type: "permission_error" });
  });
});
