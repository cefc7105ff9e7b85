// The worker's side of the edge's internal API: which answers mean "not yours", which fail loudly,
// and the lease token a claim hands over (issue 23, items 7 and 8).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContractViolationError } from "../../contract/violation";
import { loadConfig, type WorkerConfig } from "../../gpu-worker/config";
import { EdgeClient, EdgeRefusedError, LeaseLostError } from "../../gpu-worker/edge-client";
import { JobIntake } from "../../gpu-worker/intake";
import { WorkerMetrics } from "../../gpu-worker/metrics";
import { jobMessageOf } from "../../gpu-worker/queues-pull-api";
import { createWorkerServer } from "../../gpu-worker/server";

const WORKER_SECRET = "worker-secret";

interface Received {
  path: string;
  body: Record<string, unknown>;
}

/** The edge's internal API on 127.0.0.1: each path answers what the test set, and every call is kept. */
function fakeEdge(answers: Map<string, [number, unknown]>, received: Received[]): Server {
  return createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    const path = (request.url ?? "").replace(/^\/internal/, "");
    received.push({ path, body: JSON.parse(text || "{}") as Record<string, unknown> });
    const [status, body] = answers.get(path) ?? [404, { error: { code: "not_found" } }];
    response.writeHead(status, { "Content-Type": "application/json" });
    response.end(JSON.stringify(body));
  });
}

const claimed = (jobId: string, token: string) => ({
  id: jobId,
  workspace_id: "ws_1",
  attempt: 1,
  texts: null,
  input: { filename: "ad.mp4", duration_seconds: 12, width: 1080, height: 1920, size_bytes: 1000 },
  source: { type: "upload", url: "http://127.0.0.1:1/storage/ad.mp4" },
  lease_token: token,
  lease_expires_at: new Date().toISOString(),
});
const stillYours = () => ({ canceled: false, lease_expires_at: new Date().toISOString() });

describe("the worker's edge client", () => {
  let edge: Server;
  let answers: Map<string, [number, unknown]>;
  let received: Received[];
  let logs: Record<string, unknown>[];
  let metrics: WorkerMetrics;
  let config: WorkerConfig;
  let client: EdgeClient;

  beforeEach(async () => {
    answers = new Map();
    received = [];
    logs = [];
    metrics = new WorkerMetrics(1, async () => []);
    edge = fakeEdge(answers, received);
    await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
    const edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`;
    config = loadConfig({ EDGE_URL: edgeUrl, WORKER_SECRET });
    client = new EdgeClient(config, { log: (entry) => logs.push(entry), metrics });
  });

  afterEach(async () => {
    await new Promise((resolve) => edge.close(resolve));
  });

  it("names each process apart, even with one port and PID 1 in every container", () => {
    const env = { GPU_WORKER_PORT: "8788" };
    const ids = new Set(Array.from({ length: 20 }, () => loadConfig(env).workerId));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).not.toMatch(/^worker-8788-\d+$/);
    expect(loadConfig({ GPU_WORKER_ID: "gpu-a" }).workerId).toMatch(/^gpu-a-[0-9a-f]{8}$/);
  });

  it("presents the claim's lease token on every later call about the job, and forgets it after the run", async () => {
    answers.set("/jobs/job_1/claim", [200, claimed("job_1", "token-of-this-claim")]);
    answers.set("/jobs/job_1/progress", [200, stillYours()]);
    answers.set("/jobs/job_1/complete", [200, { status: "succeeded" }]);
    expect(await client.claim("job_1")).toMatchObject({ claimed: { id: "job_1" } });
    await client.progress("job_1", "cleaning", 0.5);
    await client.succeed("job_1", 1024);
    expect(received.map((call) => [call.path, call.body.lease_token, call.body.worker_id])).toEqual([
      ["/jobs/job_1/claim", undefined, config.workerId],
      ["/jobs/job_1/progress", "token-of-this-claim", config.workerId],
      ["/jobs/job_1/complete", "token-of-this-claim", config.workerId],
    ]);
    client.forget("job_1");
    await client.progress("job_1", "cleaning", 0.6);
    expect(received.at(-1)?.body.lease_token).toBeUndefined();
  });

  it("reads only 409 with a reason and 404 job_not_found as 'not yours'", async () => {
    answers.set("/jobs/job_1/progress", [
      409,
      { error: { code: "job_not_claimable", reason: "lease_lost" } },
    ]);
    answers.set("/jobs/job_2/progress", [404, { error: { code: "job_not_found" } }]);
    answers.set("/jobs/job_3/claim", [409, { error: { code: "job_not_claimable", reason: "leased" } }]);
    await expect(client.progress("job_1", "cleaning", 0.5)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(client.progress("job_2", "cleaning", 0.5)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await client.claim("job_3")).toEqual({ refused: "leased" });
    expect(logs).toEqual([]);
  });

  it("fails loudly on a wrong WORKER_SECRET: an error, a log line and a metric, never a refusal to drop or wait on", async () => {
    const unauthorised: [number, unknown] = [401, { error: { code: "invalid_api_key" } }];
    answers.set("/jobs/job_1/claim", unauthorised);
    answers.set("/jobs/job_1/progress", unauthorised);
    answers.set("/jobs/job_1/complete", [400, { error: { code: "invalid_parameter" } }]);
    await expect(client.claim("job_1")).rejects.toBeInstanceOf(EdgeRefusedError);
    await expect(client.progress("job_1", "cleaning", 0.5)).rejects.toMatchObject({
      name: "EdgeRefusedError",
      status: 401,
    });
    await expect(client.fail("job_1", "processing_failed", "x")).rejects.toBeInstanceOf(EdgeRefusedError);
    expect(logs).toEqual([
      { event: "edge_refused", path: "/jobs/job_1/claim", status: 401 },
      { event: "edge_refused", path: "/jobs/job_1/progress", status: 401 },
      { event: "edge_refused", path: "/jobs/job_1/complete", status: 400 },
    ]);
    const text = await metrics.render();
    expect(text).toContain('adclean_worker_edge_refusals_total{status="401"} 2');
    expect(text).toContain('adclean_worker_edge_refusals_total{status="400"} 1');
  });

  it("refuses a claim answer that breaks the contract, naming the field, and runs nothing", async () => {
    answers.set("/jobs/job_1/claim", [200, { ...claimed("job_1", "t"), texts: "Shop now" }]);
    answers.set("/jobs/job_2/claim", [200, { ...claimed("job_2", "t"), source: { type: "ftp", url: "x" } }]);
    const run: string[] = [];
    const intake = new JobIntake(1, client, async (job) => run.push(job.id));
    await expect(intake.offer("job_1")).rejects.toThrow(
      /the claim's answer breaks the edge-worker contract: texts/,
    );
    await expect(client.claim("job_2")).rejects.toThrow(/source\.type/);
    await expect(client.claim("job_2")).rejects.toBeInstanceOf(ContractViolationError);
    expect(run).toEqual([]);
    expect(intake.busy).toBe(0);
  });

  it("refuses a progress answer that breaks the contract instead of reading it as 'not canceled'", async () => {
    answers.set("/jobs/job_1/claim", [200, claimed("job_1", "t")]);
    answers.set("/jobs/job_1/progress", [200, { cancelled: true }]);
    await client.claim("job_1");
    await expect(client.progress("job_1", "cleaning", 0.5)).rejects.toThrow(
      /the progress answer breaks the edge-worker contract: canceled/,
    );
  });

  it("push transport: a job message that breaks the contract is answered 400 naming the field, and nothing is claimed", async () => {
    const intake = new JobIntake(1, client, async () => undefined);
    const server = createWorkerServer({ config, intake, metrics });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const offer = (body: string) =>
        fetch(`http://127.0.0.1:${port}/jobs`, {
          method: "POST",
          headers: { Authorization: `Bearer ${WORKER_SECRET}`, "Content-Type": "application/json" },
          body,
        });
      const noWorkspace = await offer(JSON.stringify({ job_id: "job_1" }));
      expect(noWorkspace.status).toBe(400);
      expect(((await noWorkspace.json()) as { error: string }).error).toMatch(
        /the job message breaks the edge-worker contract: workspace_id/,
      );
      const numericId = await offer(JSON.stringify({ job_id: 7, workspace_id: "ws_1" }));
      expect(((await numericId.json()) as { error: string }).error).toMatch(/job_id/);
      expect((await offer("not json")).status).toBe(400);
      expect(received).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("pull transport: a pulled message that is no job message is not offered", () => {
    expect(jobMessageOf(JSON.stringify({ job_id: "job_1", workspace_id: "ws_1" }))).toMatchObject({
      job_id: "job_1",
    });
    expect(jobMessageOf(JSON.stringify({ job_id: "job_1" }))).toBeNull();
    expect(jobMessageOf(JSON.stringify({ job: "job_1", workspace_id: "ws_1" }))).toBeNull();
  });

  it("push transport: a claim the edge refuses is answered 502 (a counted retry), not 503 (busy)", async () => {
    answers.set("/jobs/job_1/claim", [401, { error: { code: "invalid_api_key" } }]);
    const intake = new JobIntake(1, client, async () => undefined);
    const server = createWorkerServer({ config, intake, metrics });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const offered = await fetch(`http://127.0.0.1:${port}/jobs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${WORKER_SECRET}`, "Content-Type": "application/json" },
        body: JSON.stringify({ job_id: "job_1", workspace_id: "ws_1" }),
      });
      expect(offered.status).toBe(502);
      expect(intake.busy).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
