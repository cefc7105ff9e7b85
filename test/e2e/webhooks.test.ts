import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../edge/webhooks/signature";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeVideoFixtures } from "../fixtures/media";
import { cliWorkspace, HELD_DOWNLOADS_ENV, type RunningStack, startStack } from "../helpers/stack";

let stack: RunningStack;
let files: FileServer;
let workspace: { api_key: string; signing_secret: string; workspace_id: string };
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-hooks-"));

async function call(method: string, route: string, body?: unknown, token = workspace.api_key) {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function receivedEvents(
  id: string,
  count: number,
): Promise<Array<{ headers: Record<string, string>; body: string }>> {
  // Bounded: the stack's CPU worker cleans the 2 s clip well within this.
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline) {
    const log = (await (await fetch(`${files.url}/hook-log/${id}`)).json()) as Array<{
      headers: Record<string, string>;
      body: string;
    }>;
    if (log.length >= count) return log;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the receiver got fewer than ${count} deliveries`);
}

beforeAll(async () => {
  makeVideoFixtures(dir);
  files = await startFileServer(dir);
  stack = await startStack(18817, HELD_DOWNLOADS_ENV);
  workspace = await cliWorkspace(stack, "growth", 1000);
});

afterAll(async () => {
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("webhooks on the real local stack", () => {
  it("a receiver on 127.0.0.1 gets job.canceled and job.succeeded, each signed with the workspace's secret", async () => {
    await call("PUT", "/v1/webhook_endpoint", { url: `${files.url}/hook/ok/e2e` });
    // Its download is held open by the file server: it cannot finish before the cancel.
    const toCancel = await call("POST", "/v1/jobs", { video_url: `${files.url}/held-once/clip.mp4` });
    await call("POST", `/v1/jobs/${toCancel.id}/cancel`);
    // The stack's own GPU worker cleans this one.
    const toFinish = await call("POST", "/v1/jobs", { video_url: `${files.url}/files/clip.mp4` });

    const deliveries = await receivedEvents("e2e", 2);
    const byType = Object.fromEntries(deliveries.map((d) => [JSON.parse(d.body).type, d]));
    expect(Object.keys(byType).sort()).toEqual(["job.canceled", "job.succeeded"]);
    for (const delivery of deliveries) {
      await verifyWebhook({
        payload: delivery.body,
        header: delivery.headers["service-signature"],
        secret: workspace.signing_secret,
      });
    }
    const succeeded = JSON.parse(byType["job.succeeded"]?.body as string);
    expect(succeeded.data.object).toMatchObject({
      id: toFinish.id,
      status: "succeeded",
      result: { size_bytes: expect.any(Number) },
    });
    const canceled = JSON.parse(byType["job.canceled"]?.body as string);
    expect(canceled.data.object).toMatchObject({
      id: toCancel.id,
      status: "canceled",
      credits_refunded: true,
    });
  });
});
