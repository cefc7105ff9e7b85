import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendantsOf, isRunning, processTable } from "../helpers/process-tree";
import { npmRun, type RunningStack, startStack } from "../helpers/stack";

let stack: RunningStack;

beforeAll(async () => {
  stack = await startStack(18787);
});

afterAll(async () => {
  await stack?.stop();
});

describe("npm start, the admin CLI and /v1/account on the real local stack", () => {
  it("creates a workspace with the CLI and reads its full account with the key", async () => {
    const created = await npmRun("admin", ["workspace", "create", "--plan", "growth", "--credits", "1000"], {
      BASE_URL: stack.baseUrl,
    });
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const { workspace_id, api_key, signing_secret } = JSON.parse(lines[0] as string);
    expect(workspace_id).toMatch(/^ws_/);
    expect(api_key).toMatch(/^sk_live_/);
    expect(signing_secret).toMatch(/^whsec_/);

    const response = await fetch(`${stack.baseUrl}/v1/account`, {
      headers: { Authorization: `Bearer ${api_key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Request-Id")).toMatch(/^req_/);
    expect(response.headers.get("X-RateLimit-Limit")).toBe("120");
    expect(await response.json()).toMatchObject({
      object: "account",
      workspace: { id: workspace_id },
      plan: { id: "growth" },
      credits: { plan: 1000, pack: 0, total: 1000 },
      limits: { api_access: true },
    });
  });

  it("key create, key revoke, webhook set and credits add print their JSON lines and take effect", async () => {
    const env = { BASE_URL: stack.baseUrl };
    const ws = JSON.parse(
      (await npmRun("admin", ["workspace", "create", "--plan", "scale", "--credits", "0"], env)).stdout,
    );
    const key = JSON.parse(
      (await npmRun("admin", ["key", "create", "--workspace", ws.workspace_id], env)).stdout,
    );
    expect(key).toEqual({
      key_id: expect.stringMatching(/^key_/),
      api_key: expect.stringMatching(/^sk_live_/),
    });
    const auth = { Authorization: `Bearer ${key.api_key}` };
    expect((await fetch(`${stack.baseUrl}/v1/account`, { headers: auth })).status).toBe(200);

    const revoked = await npmRun(
      "admin",
      ["key", "revoke", "--workspace", ws.workspace_id, "--key-id", key.key_id],
      env,
    );
    expect(revoked.code).toBe(0);
    const refused = await fetch(`${stack.baseUrl}/v1/account`, { headers: auth });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");

    const hook = await npmRun(
      "admin",
      ["webhook", "set", "--workspace", ws.workspace_id, "--url", "http://127.0.0.1:9/h"],
      env,
    );
    expect(JSON.parse(hook.stdout)).toEqual({
      url: "http://127.0.0.1:9/h",
      signing_secret: ws.signing_secret,
    });

    const added = await npmRun(
      "admin",
      ["credits", "add", "--workspace", ws.workspace_id, "--pack", "300"],
      env,
    );
    expect(JSON.parse(added.stdout).credits).toEqual({ plan: 0, pack: 300, total: 300 });
    const wrong = await npmRun("admin", ["credits", "add", "--workspace", ws.workspace_id], env);
    expect(wrong.code).toBe(2);
  });

  it("serves a valid OpenAPI 3.1 document, version 1.0.0", async () => {
    const response = await fetch(`${stack.baseUrl}/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("X-RateLimit-Limit")).toBeTruthy();
    const document = (await response.json()) as { info: { version: string } };
    const result = await new Validator().validate(document);
    expect(result.valid).toBe(true);
    expect(document.info.version).toBe("1.0.0");
  });

  it("stops every child on SIGTERM", async () => {
    // Only this stack's own processes: the workerd tests of the other projects may run meanwhile.
    const started = await descendantsOf(stack.pid);
    expect(started.length).toBeGreaterThan(2); // wrangler, workerd, the GPU worker at least
    await stack.stop();
    const table = await processTable();
    expect(started.filter((entry) => isRunning(table.get(entry.pid)))).toEqual([]);
    const left = [...table.values()].filter(isRunning).map((entry) => entry.args);
    expect(left.filter((args) => args.includes(`--port ${stack.port}`))).toEqual([]);
    const health = await fetch(`http://127.0.0.1:${stack.workerPort}/health`).catch(() => null);
    expect(health).toBeNull();
  });
});
