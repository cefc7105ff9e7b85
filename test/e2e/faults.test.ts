// Faults on the real stack (`npm start`): the edge restarted mid-traffic on the same state, a
// webhook receiver down for a while and then back, and what the stack's logs must never hold.
// Every job ends succeeded, or failed with its credits returned; nothing is lost or charged twice.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../edge/webhooks/signature";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeCaptionedClip } from "../fixtures/media";
import {
  type CliWorkspace,
  cliWorkspace,
  HELD_DOWNLOADS_ENV,
  makeStateDir,
  npmRun,
  PROJECT_ROOT,
  type RunningStack,
  startStack,
} from "../helpers/stack";

const PORT = 18857;
const RECEIVER_PORT = 18859;
/** Short leases and a fast local cron, so a job cut off by the restart comes back within seconds. */
const STACK_ENV = {
  LEASE_SECONDS: "6",
  GPU_WORKER_HEARTBEAT_MS: "1500",
  LOCAL_CRON_INTERVAL_MS: "2000",
  ...HELD_DOWNLOADS_ENV,
};

const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-faults-"));
const stateDir = makeStateDir();
let stack: RunningStack;
/** Everything every `npm start` of this file printed, across the restart. */
const outputs: (() => string)[] = [];
let files: FileServer;
let workspace: CliWorkspace;

interface Job {
  id: string;
  status: string;
  credits: number;
  credits_refunded: boolean;
}

async function call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${workspace.api_key}`, "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Polls `probe` until it gives a value; `describeState` says what was last seen when it gives up. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  // Under the file's 120 s test timeout, so giving up reports what was last seen.
  timeoutMs = 100_000,
  describeState: () => Promise<unknown> = async () => null,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(
    `gave up waiting: ${what}; last seen ${JSON.stringify(await describeState().catch(String))}`,
  );
}

const credits = async () => ((await call("GET", "/v1/account")).body.credits as { total: number }).total;
const finished = (job: Job) => ["succeeded", "failed", "canceled"].includes(job.status);

async function start(): Promise<void> {
  stack = await startStack(PORT, STACK_ENV, { stateDir });
  outputs.push(stack.output);
}

beforeAll(async () => {
  makeCaptionedClip(path.join(dir, "ad.mp4"), 1);
  copyFileSync(path.join(dir, "ad.mp4"), path.join(dir, "to-cancel.mp4"));
  files = await startFileServer(dir);
  await start();
  workspace = await cliWorkspace(stack, "scale", 5000);
});

afterAll(async () => {
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

describe("faults on the real stack", () => {
  it("a webhook receiver down for a while: the delivery is retried and acknowledged once it is back", async () => {
    const url = `http://127.0.0.1:${RECEIVER_PORT}/hooks`;
    const set = await call("PUT", "/v1/webhook_endpoint", { url });
    expect(set.status).toBe(200);
    const secret = set.body.signing_secret as string;
    // Nothing listens on the receiver's port yet: the first attempt meets a refused connection.
    // Its download is held open by the file server: it cannot finish before the cancel.
    const job = (await call("POST", "/v1/jobs", { video_url: `${files.url}/held-once/to-cancel.mp4` }))
      .body as unknown as Job;
    expect((await call("POST", `/v1/jobs/${job.id}/cancel`)).body.status).toBe("canceled");
    const eventId = await until("the job.canceled event", async () => {
      const events = (await call("GET", "/v1/events")).body.data as {
        id: string;
        type: string;
        data: { object: Job };
      }[];
      return events.find((event) => event.type === "job.canceled" && event.data.object.id === job.id)?.id;
    });
    await until("a failed first attempt", async () => {
      const attempts = (await call("GET", `/v1/events/${eventId}/deliveries`)).body.data as unknown[];
      return attempts.length > 0 ? attempts : undefined;
    });

    const received: string[] = [];
    const receiver: Server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", async () => {
        try {
          await verifyWebhook({
            payload: body,
            header: String(request.headers["service-signature"]),
            secret,
          });
          received.push(String(request.headers["service-event-id"]));
          response.writeHead(200).end();
        } catch {
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(RECEIVER_PORT, "127.0.0.1", resolve));
    try {
      const delivery = await until("the delivery acknowledged", async () => {
        const events = (await call("GET", "/v1/events")).body.data as {
          id: string;
          delivery: { status: string; attempts: number };
        }[];
        const event = events.find((candidate) => candidate.id === eventId);
        return event?.delivery.status === "delivered" ? event.delivery : undefined;
      });
      expect(delivery.attempts).toBeGreaterThanOrEqual(2);
      expect(received.filter((id) => id === eventId)).toHaveLength(1);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
    // The receiver's address stays set; the rest of the file does not need it.
    await call("PUT", "/v1/webhook_endpoint", { url, enabled: false });
  });

  it("the edge restarted while a job provably runs: it is retried and succeeds, charged once; nothing lost or doubled", async () => {
    const startCredits = await credits();
    // The first job's download is held open by the file server, so it is running when the stack
    // stops; the second waits in the queue behind it (one worker slot).
    const sources = ["held-once/ad.mp4", "files/ad.mp4"];
    const createJob = (i: number) =>
      call(
        "POST",
        "/v1/jobs",
        { video_url: `${files.url}/${sources[i]}`, metadata: { n: String(i) } },
        { "Idempotency-Key": `restart-${i}` },
      );
    const created: Job[] = [];
    for (let i = 0; i < 2; i++) {
      const answer = await createJob(i);
      expect(answer.status).toBe(201);
      created.push(answer.body as unknown as Job);
    }
    const wholeDownloads = () =>
      files.fileRequests.filter((line) => line === "/held-once/ad.mp4 whole").length;
    await until("the worker downloading the first job", async () =>
      wholeDownloads() === 1 ? true : undefined,
    );
    // Its download cannot end while the request is held: the job is running when the stack stops.
    await until("the first job reported downloading", async () => {
      const job = (await call("GET", `/v1/jobs/${created[0]?.id}`)).body;
      return job.status === "analyzing" && job.stage === "downloading" ? job : undefined;
    });
    expect(await stack.stop()).toBe(0);
    await start();

    // A client retrying its creations after the outage gets the same jobs back.
    for (const [i, job] of created.entries()) {
      const replay = await createJob(i);
      expect(replay.status).toBe(201);
      expect(replay.body.id).toBe(job.id);
    }
    const listed = ((await call("GET", "/v1/jobs?limit=100")).body.data as Job[]).map((job) => job.id);
    for (const job of created) expect(listed.filter((id) => id === job.id)).toHaveLength(1);

    const ended = await Promise.all(
      created.map((job) =>
        until(
          `job ${job.id} to end`,
          async () => {
            const now = (await call("GET", `/v1/jobs/${job.id}`)).body as unknown as Job;
            return finished(now) ? now : undefined;
          },
          300_000,
          async () => (await call("GET", `/v1/jobs/${job.id}`)).body,
        ),
      ),
    );
    for (const job of ended) expect(job).toMatchObject({ status: "succeeded", credits_refunded: false });
    // The cut-off job ran again from the start: its file was downloaded a second time.
    expect(wholeDownloads()).toBe(2);
    const charged = created.reduce((sum, job) => sum + job.credits, 0);
    expect(await credits()).toBe(startCredits - charged);
  }, 480_000);

  it("no API key, signing secret, stack secret, presigned signature or request body appears in the stack's logs", async () => {
    const key = JSON.parse(
      (
        await npmRun("admin", ["key", "create", "--workspace", workspace.workspace_id], {
          BASE_URL: stack.baseUrl,
        })
      ).stdout,
    ) as { api_key: string };
    const hook = await call("PUT", "/v1/webhook_endpoint", { url: `${files.url}/hook/ok/secrets` });
    const upload = await call("POST", "/v1/uploads", {
      filename: "a.mp4",
      content_type: "video/mp4",
      size_bytes: 4,
    });
    const uploadUrl = new URL(upload.body.upload_url as string);
    const put = await fetch(uploadUrl, {
      method: "PUT",
      headers: upload.body.headers as Record<string, string>,
      body: "abcd",
    });
    expect(put.status).toBe(200);
    // Request bodies are never logged: a job's texts, metadata and filename, and a body the API
    // refuses. The job runs to the end here, so its result's presigned address is checked too.
    const bodyMarker = `body-marker-${Date.now()}`;
    const created = await call("POST", "/v1/jobs", {
      video_url: `${files.url}/files/ad.mp4`,
      filename: `${bodyMarker}.mp4`,
      texts: [bodyMarker],
      metadata: { note: bodyMarker },
    });
    expect(created.status).toBe(201);
    const refused = await fetch(`${stack.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${workspace.api_key}`, "Content-Type": "application/json" },
      body: `{"video_url": "${bodyMarker}`,
    });
    expect(refused.status).toBe(400);
    const ended = await until("the job to end", async () => {
      const now = (await call("GET", `/v1/jobs/${created.body.id}`)).body as unknown as Job & {
        result: { url: string } | null;
      };
      return finished(now) ? now : undefined;
    });
    expect(ended.status).toBe("succeeded");
    const secrets = [
      workspace.api_key,
      workspace.signing_secret,
      key.api_key,
      hook.body.signing_secret as string,
      uploadUrl.searchParams.get("signature") as string,
      new URL(ended.result?.url as string).searchParams.get("signature") as string,
      ...readFileSync(path.join(PROJECT_ROOT, ".dev.vars"), "utf8")
        .split("\n")
        .map((line) => line.split("=").slice(1).join("="))
        .filter((value) => value.length >= 16),
    ];
    expect(secrets.every((secret) => typeof secret === "string" && secret.length >= 16)).toBe(true);
    const logs = outputs.map((output) => output()).join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [...secrets, bodyMarker])
      expect(logs.includes(secret), `a secret starting ${secret.slice(0, 8)}`).toBe(false);
  });
});
