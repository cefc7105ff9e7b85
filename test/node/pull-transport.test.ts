import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ClaimedJob } from "../../contract/worker-api";
import { loadConfig, type WorkerConfig } from "../../gpu-worker/config";
import { EdgeClient } from "../../gpu-worker/edge-client";
import { JobIntake } from "../../gpu-worker/intake";
import { PullJobSource } from "../../gpu-worker/pull-source";
import { jobMessageOf, QueuesPullApi } from "../../gpu-worker/queues-pull-api";
import { QueuesPullStandIn } from "../helpers/queues-pull-stand-in";

const TOKEN = "cf-api-token-5ecret-value";
const WORKER_SECRET = "worker-secret";

/** The edge's internal API, as far as claims go: per job, a ClaimedJob or a 409 reason. */
function fakeEdge(answers: Map<string, string>, claims: string[]): Server {
  return createServer((request, response) => {
    const jobId = request.url?.match(/^\/internal\/jobs\/([^/]+)\/claim$/)?.[1];
    request.resume();
    if (request.method !== "POST" || !jobId || request.headers.authorization !== `Bearer ${WORKER_SECRET}`) {
      response.writeHead(404).end();
      return;
    }
    claims.push(jobId);
    const reason = answers.get(jobId) ?? "claimed";
    if (reason === "edge_down") {
      response.writeHead(503).end();
      return;
    }
    if (reason === "wrong_secret") {
      response.writeHead(401, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ error: { code: "invalid_api_key" } }));
      return;
    }
    response.writeHead(reason === "claimed" ? 200 : 409, { "Content-Type": "application/json" });
    response.end(
      JSON.stringify(
        reason === "claimed"
          ? {
              id: jobId,
              workspace_id: "ws_1",
              attempt: 1,
              texts: null,
              input: {
                filename: "ad.mp4",
                duration_seconds: 12,
                width: 1080,
                height: 1920,
                size_bytes: 1000,
              },
              source: { type: "upload", url: "http://127.0.0.1:1/storage/ad.mp4" },
              lease_token: `token-${jobId}`,
              lease_expires_at: new Date().toISOString(),
            }
          : { error: { code: "job_not_claimable", reason } },
      ),
    );
  });
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the pull transport against a Cloudflare Queues stand-in", () => {
  let standIn: QueuesPullStandIn;
  let edge: Server;
  let answers: Map<string, string>;
  let claims: string[];
  let logs: Record<string, unknown>[];
  let runs: { job: ClaimedJob; finish: () => void }[];
  let source: PullJobSource | undefined;
  let config: WorkerConfig;
  /** How often the pull loop has looked at the busy slots. */
  let slotChecks = 0;

  beforeEach(async () => {
    standIn = new QueuesPullStandIn("acc_1", "queue_1", TOKEN);
    const baseUrl = await standIn.start();
    answers = new Map();
    claims = [];
    logs = [];
    runs = [];
    edge = fakeEdge(answers, claims);
    await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
    config = loadConfig({
      EDGE_URL: `http://127.0.0.1:${(edge.address() as AddressInfo).port}`,
      WORKER_SECRET,
      GPU_WORKER_TRANSPORT: "pull",
      CF_API_BASE_URL: baseUrl,
      CF_ACCOUNT_ID: "acc_1",
      CF_QUEUE_ID: "queue_1",
      CF_API_TOKEN: TOKEN,
      PULL_VISIBILITY_MS: "60000",
      PULL_INTERVAL_MS: "20",
    });
  });

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    for (const run of runs) run.finish();
    await standIn.close();
    await new Promise((resolve) => edge.close(resolve));
  });

  /** Starts pulling with `slots` slots; each run lasts until the test calls its finish(). */
  async function startSource(slots = 1, settings = config.pull): Promise<void> {
    if (!settings) throw new Error("pull settings missing");
    const intake = new JobIntake(
      slots,
      new EdgeClient(config),
      (job) => new Promise<void>((resolve) => runs.push({ job, finish: resolve })),
    );
    // Each turn of the pull loop reads how many slots are busy: counting the reads counts the turns.
    const busy = Object.getOwnPropertyDescriptor(JobIntake.prototype, "busy")?.get;
    Object.defineProperty(intake, "busy", {
      get() {
        slotChecks++;
        return busy?.call(intake);
      },
    });
    source = new PullJobSource(settings, intake, (entry) => logs.push(entry));
    await source.start();
  }

  it("claims a pulled job, runs it, and acks its message when the run ends", async () => {
    const message = standIn.send({ job_id: "job_a", workspace_id: "ws_1" });
    await startSource();
    await waitFor(() => runs.length === 1);
    expect(runs[0]?.job.id).toBe("job_a");
    expect(claims).toEqual(["job_a"]);
    expect(standIn.pulls()[0]?.body).toEqual({ visibility_timeout_ms: 60000, batch_size: 1 });
    // Held under its lease while it runs: not acked yet.
    expect(standIn.messages).toEqual([expect.objectContaining({ id: message.id, attempts: 1 })]);
    expect(standIn.acks()).toEqual([]);

    runs[0]?.finish();
    await waitFor(() => standIn.messages.length === 0);
    expect(standIn.acks().map((call) => call.body)).toEqual([
      { acks: [{ lease_id: expect.any(String) }], retries: [] },
    ]);
  });

  it("acks the messages of finished, canceled and elsewhere-leased jobs without running them", async () => {
    const refusals: [string, string][] = [
      ["job_done", "finished"],
      ["job_canceled", "canceled"],
      ["job_elsewhere", "leased"],
    ];
    for (const [jobId, reason] of refusals) {
      answers.set(jobId, reason);
      standIn.send({ job_id: jobId, workspace_id: "ws_1" });
    }
    await startSource(3);
    await waitFor(() => standIn.messages.length === 0);
    expect(claims.sort()).toEqual(["job_canceled", "job_done", "job_elsewhere"]);
    expect(runs).toEqual([]);
    expect(standIn.pulls()[0]?.body).toMatchObject({ batch_size: 3 });
  });

  it("does not pull while every slot is busy, and pulls again once one frees up", async () => {
    standIn.send({ job_id: "job_first", workspace_id: "ws_1" });
    await startSource(1);
    await waitFor(() => runs.length === 1);
    const second = standIn.send({ job_id: "job_second", workspace_id: "ws_1" });
    const pullsWhileBusy = standIn.pulls().length;
    // Ten turns of the loop that found every slot busy, however slowly this machine runs them.
    const checks = slotChecks;
    await waitFor(() => slotChecks >= checks + 10);
    expect(standIn.pulls().length).toBe(pullsWhileBusy);
    expect(second.attempts).toBe(0);

    runs[0]?.finish();
    await waitFor(() => runs.length === 2);
    expect(runs[1]?.job.id).toBe("job_second");
  });

  it("a job whose workspace is at its limit waits in a fresh message: no retry is used", async () => {
    answers.set("job_waits", "workspace_busy");
    const message = standIn.send({ job_id: "job_waits", workspace_id: "ws_1" });
    await startSource();
    await waitFor(() => standIn.acks().length === 1);
    expect(standIn.publishes().map((call) => call.body)).toEqual([
      { body: { job_id: "job_waits", workspace_id: "ws_1" }, content_type: "json", delay_seconds: 5 },
    ]);
    expect(standIn.acks()[0]?.body).toEqual({ acks: [{ lease_id: expect.any(String) }], retries: [] });
    // The pulled message is gone; the new one, never attempted, is invisible for the delay; nothing ran.
    expect(standIn.messages).toEqual([
      expect.objectContaining({
        body: JSON.stringify({ job_id: "job_waits", workspace_id: "ws_1" }),
        attempts: 0,
      }),
    ]);
    expect(standIn.messages[0]?.id).not.toBe(message.id);
    expect((standIn.messages[0]?.visibleAt ?? 0) - Date.now()).toBeGreaterThan(4000);
    expect(runs).toEqual([]);
  });

  it("waiting jobs cost one message each, however many busy rounds they wait", async () => {
    const waiting = ["job_w1", "job_w2", "job_w3"];
    for (const jobId of waiting) {
      answers.set(jobId, "workspace_busy");
      standIn.send({ job_id: jobId, workspace_id: "ws_1" });
    }
    await startSource(3);
    for (let round = 1; round <= 4; round++) {
      await waitFor(() => claims.length === waiting.length * round);
      await waitFor(() => standIn.acks().length === round && standIn.publishes().length === 3 * round);
      const bodies = standIn.messages.map(
        (message) => (JSON.parse(message.body) as { job_id: string }).job_id,
      );
      expect(bodies.sort()).toEqual(waiting);
      // The 5 s busy delay passes at once: the next round starts.
      for (const message of standIn.messages) message.visibleAt = 0;
    }
    expect(runs).toEqual([]);
  });

  it("when publishing fails, the busy job's message is retried with a delay instead", async () => {
    answers.set("job_waits", "workspace_busy");
    standIn.failPublishing = true;
    const message = standIn.send({ job_id: "job_waits", workspace_id: "ws_1" });
    await startSource();
    await waitFor(() => standIn.acks().length === 1);
    expect(standIn.acks()[0]?.body).toEqual({
      acks: [],
      retries: [{ lease_id: expect.any(String), delay_seconds: 5 }],
    });
    expect(standIn.messages).toEqual([
      expect.objectContaining({ id: message.id, leaseId: null, attempts: 1 }),
    ]);
    expect(logs).toContainEqual(expect.objectContaining({ event: "publish_failed", job_id: "job_waits" }));
  });

  it("when the edge cannot be reached to claim, the message is retried later the more often it was tried", async () => {
    answers.set("job_stranded", "edge_down");
    // Three deliveries already failed the same way: this is the fourth.
    const message = standIn.send({ job_id: "job_stranded", workspace_id: "ws_1" });
    message.attempts = 3;
    await startSource();
    // The worker's own retries of the claim (about 8 s of backoff) come first.
    await waitFor(() => standIn.acks().length === 1, 15_000);
    expect(standIn.acks()[0]?.body).toEqual({
      acks: [],
      retries: [{ lease_id: expect.any(String), delay_seconds: 80 }],
    });
    expect(claims.length).toBeGreaterThan(1);
    expect(standIn.messages).toEqual([expect.objectContaining({ id: message.id, attempts: 4 })]);
    expect(runs).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({ event: "job_offer_failed", job_id: "job_stranded" }),
    );
  }, 20_000);

  it("a claim refused with 401 (wrong WORKER_SECRET) is a counted retry heading for the dead letters, never a busy wait", async () => {
    answers.set("job_locked_out", "wrong_secret");
    const message = standIn.send({ job_id: "job_locked_out", workspace_id: "ws_1" });
    await startSource();
    await waitFor(() => standIn.acks().length === 1);
    // Not published again as a fresh message (which would loop for ever with its credits held):
    // the pulled message is retried, so its attempts count towards the dead-letter queue.
    expect(standIn.publishes()).toEqual([]);
    expect(standIn.acks()[0]?.body).toEqual({
      acks: [],
      retries: [{ lease_id: expect.any(String), delay_seconds: 10 }],
    });
    expect(standIn.messages).toEqual([expect.objectContaining({ id: message.id, attempts: 1 })]);
    expect(claims).toEqual(["job_locked_out"]);
    expect(logs).toContainEqual(
      expect.objectContaining({ event: "job_offer_failed", job_id: "job_locked_out" }),
    );
  });

  it("acks an unreadable message instead of retrying it for ever", async () => {
    standIn.messages.push({
      id: "m_bad",
      body: "not json",
      timestamp_ms: 0,
      attempts: 0,
      visibleAt: 0,
      leaseId: null,
    });
    await startSource();
    await waitFor(() => standIn.messages.length === 0);
    expect(claims).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({ event: "message_unreadable", message_id: "m_bad" }),
    );
  });

  it("gets a message back once its lease runs out; the stale lease's ack is ignored", async () => {
    if (!config.pull) throw new Error("pull settings missing");
    const api = new QueuesPullApi({ ...config.pull, visibilityMs: 100 });
    standIn.send({ job_id: "job_lost", workspace_id: "ws_1" });
    const [first] = await api.pull(1);
    expect(await api.pull(1)).toEqual([]); // invisible while leased
    await sleep(150);
    const [again] = await api.pull(1);
    expect(again).toMatchObject({ id: first?.id, attempts: 2 });
    expect(again?.lease_id).not.toBe(first?.lease_id);
    await api.settle([first?.lease_id ?? ""]);
    expect(standIn.messages).toHaveLength(1);
    await api.settle([again?.lease_id ?? ""]);
    expect(standIn.messages).toHaveLength(0);
  });

  it("sends the API token as a Bearer token and never prints it", async () => {
    const printed = vi.spyOn(console, "log");
    const warned = vi.spyOn(console, "error");
    try {
      standIn.send({ job_id: "job_t", workspace_id: "ws_1" });
      await startSource();
      await waitFor(() => runs.length === 1);
      runs[0]?.finish();
      await waitFor(() => standIn.messages.length === 0);
      expect(standIn.calls.every((call) => call.authorization === `Bearer ${TOKEN}`)).toBe(true);
      await source?.stop();

      // A refused token: the failure is logged with Cloudflare's error, not the token.
      if (!config.pull) throw new Error("pull settings missing");
      await startSource(1, { ...config.pull, apiToken: `${TOKEN}-revoked` });
      await waitFor(() => logs.some((entry) => entry.event === "pull_failed"));
      expect(logs).toContainEqual(
        expect.objectContaining({ error: "Error: queue pull answered HTTP 401: 10000 Authentication error" }),
      );
      const everything = JSON.stringify([logs, printed.mock.calls, warned.mock.calls]);
      expect(everything).not.toContain(TOKEN);
    } finally {
      printed.mockRestore();
      warned.mockRestore();
    }
  });
});

describe("jobMessageOf", () => {
  it("reads the JSON text of a json message, and base64 too", () => {
    const json = JSON.stringify({ job_id: "job_1", workspace_id: "ws_1" });
    expect(jobMessageOf(json)?.job_id).toBe("job_1");
    expect(jobMessageOf(Buffer.from(json).toString("base64"))?.job_id).toBe("job_1");
    expect(jobMessageOf({ job_id: "job_2", workspace_id: "ws_1" })?.job_id).toBe("job_2");
    expect(jobMessageOf("not json")).toBeNull();
    expect(jobMessageOf(JSON.stringify({ job_id: 7 }))).toBeNull();
  });
});

describe("loadConfig", () => {
  it("keeps push as the default and names what pull is missing, never a value", () => {
    expect(loadConfig({}).transport).toBe("push");
    expect(() => loadConfig({ GPU_WORKER_TRANSPORT: "pull", CF_API_TOKEN: TOKEN })).toThrow(
      "GPU_WORKER_TRANSPORT=pull needs CF_ACCOUNT_ID, CF_QUEUE_ID",
    );
  });
});
