import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdClean,
  AdCleanError,
  type AdCleanOptions,
  type Job,
  type RetryEvent,
  verifyWebhook,
  WebhookVerificationError,
} from "../../client/index";
import { type FileServer, startFileServer } from "../fixtures/file-server";
import { makeCaptionedClip, makeLongTinyClip } from "../fixtures/media";
import { cliWorkspace, npmRun, PROJECT_ROOT, type RunningStack, startStack } from "../helpers/stack";

const PORT = 18837;
const dir = mkdtempSync(path.join(tmpdir(), "adclean-e2e-client-"));
const clip = path.join(dir, "ad.mp4");
const longClip = path.join(dir, "long.mp4");
let stack: RunningStack;
let files: FileServer;

/** An API key of a fresh growth workspace, so each test counts only its own jobs. */
const freshKey = async () => (await cliWorkspace(stack, "growth", 1000)).api_key;

const clientFor = (apiKey: string, options: Partial<AdCleanOptions> = {}) =>
  new AdClean({ apiKey, baseUrl: stack.baseUrl, baseDelayMs: 20, ...options });

/** ffprobe's view of a file: throws when the file is no readable video. */
function probe(file: string) {
  const args = ["-v", "error", "-show_entries", "stream=codec_type:format=duration", "-of", "json", file];
  const out = execFileSync(process.env.FFPROBE_PATH ?? "ffprobe", args);
  return JSON.parse(out.toString()) as {
    streams: Array<{ codec_type: string }>;
    format: { duration: string };
  };
}

interface ProxyAttempt {
  idempotencyKey: string | undefined;
  answer: string;
  createdJobId?: string;
  replayed?: string | undefined;
}

/**
 * A proxy in front of the stack that forwards everything but spoils the first three POST /v1/jobs:
 * the first reaches the service (the job is made) and its answer is lost with the connection, the
 * second gets 429 with Retry-After: 1, the third 503; the fourth goes through.
 */
async function startFlakyProxy(
  target: string,
): Promise<{ url: string; attempts: ProxyAttempt[]; server: Server }> {
  const attempts: ProxyAttempt[] = [];
  const upstream = new URL(target);
  const forward = (incoming: IncomingMessage, onAnswer: (answer: IncomingMessage) => void) => {
    const outgoing = request(
      new URL(incoming.url ?? "/", upstream),
      // Uncompressed, so the proxy can read the first answer.
      {
        method: incoming.method,
        headers: { ...incoming.headers, host: upstream.host, "accept-encoding": "identity" },
      },
      onAnswer,
    );
    incoming.pipe(outgoing);
  };
  const server = createServer((incoming, response) => {
    if (incoming.method !== "POST" || incoming.url !== "/v1/jobs") {
      forward(incoming, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      return;
    }
    const key = incoming.headers["idempotency-key"] as string | undefined;
    const attempt: ProxyAttempt = { idempotencyKey: key, answer: "" };
    attempts.push(attempt);
    const refuse = (status: number, headers: Record<string, string>) => {
      attempt.answer = String(status);
      incoming.resume();
      const body = {
        error: { type: "api_error", code: "internal_error", message: "proxy", request_id: "req_proxy" },
      };
      response
        .writeHead(status, { "Content-Type": "application/json", ...headers })
        .end(JSON.stringify(body));
    };
    if (attempts.length === 2) return refuse(429, { "Retry-After": "1" });
    if (attempts.length === 3) return refuse(503, {});
    forward(incoming, (answer) => {
      if (attempts.length === 1) {
        let body = "";
        answer.on("data", (chunk) => {
          body += chunk;
        });
        answer.on("end", () => {
          response.socket?.destroy();
          attempt.answer = `${answer.statusCode}, connection dropped`;
          attempt.createdJobId = (JSON.parse(body) as Job).id;
        });
        return;
      }
      attempt.answer = String(answer.statusCode);
      attempt.replayed = answer.headers["idempotent-replayed"] as string | undefined;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts, server };
}

beforeAll(async () => {
  makeCaptionedClip(clip, 2);
  makeCaptionedClip(longClip, 14);
  files = await startFileServer(dir);
  stack = await startStack(PORT);
});

afterAll(async () => {
  await stack?.stop();
  await files?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the TypeScript client against npm start", () => {
  it("cleans a file: streamed upload, job, progress by stage, download", async () => {
    const client = clientFor(await freshKey());
    const before = await client.getAccount();
    let uploaded = 0;
    const upload = await client.uploadFile(clip, {
      onProgress: (sent) => {
        uploaded = sent;
      },
    });
    expect(upload.id).toMatch(/^up_/);
    expect(uploaded).toBeGreaterThan(0);
    const created = await client.createJob({ upload_id: upload.id });
    const seen: Job[] = [];
    const job = await client.waitForJob(created.id, {
      intervalMs: 200,
      onProgress: (update) => seen.push(update),
    });
    expect(job.status).toBe("succeeded");
    expect(seen.at(-1)).toEqual(job);
    expect(new Set(seen.map((update) => update.status)).size).toBeGreaterThan(1);
    const output = path.join(dir, "client-clean.mp4");
    const size = await client.downloadResult(job, output);
    expect(size).toBe(job.result?.size_bytes);
    const probed = probe(output);
    expect(probed.streams.map((stream) => stream.codec_type)).toContain("video");
    expect(Number(probed.format.duration)).toBeCloseTo(2, 0);
    expect(existsSync(`${output}.part`)).toBe(false);
    expect((await client.getAccount()).credits.total).toBe(before.credits.total - job.credits);
  });

  it("retries a dropped connection, 429 and 503 with one Idempotency-Key, making exactly one job", async () => {
    const key = await freshKey();
    const direct = clientFor(key);
    const upload = await direct.uploadFile(clip);
    const proxy = await startFlakyProxy(stack.baseUrl);
    try {
      const retries: RetryEvent[] = [];
      const viaProxy = clientFor(key, { baseUrl: proxy.url, onRetry: (event) => retries.push(event) });
      const job = await viaProxy.createJob({ upload_id: upload.id });
      expect(proxy.attempts.map((attempt) => attempt.answer)).toEqual([
        "201, connection dropped",
        "429",
        "503",
        "201",
      ]);
      const keys = new Set(proxy.attempts.map((attempt) => attempt.idempotencyKey));
      expect(keys.size).toBe(1);
      expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
      // The fourth attempt got the first one's job back, replayed.
      expect(proxy.attempts[3]?.replayed).toBe("true");
      expect(job.id).toBe(proxy.attempts[0]?.createdJobId);
      expect(retries.map((event) => (event.reason.startsWith("HTTP") ? event.reason : "network"))).toEqual([
        "network",
        "HTTP 429",
        "HTTP 503",
      ]);
      expect(retries[1]?.delayMs).toBe(1000); // Retry-After honoured
      const list = await direct.listJobs();
      expect(list.data.map((listed) => listed.id)).toEqual([job.id]);
      expect((await direct.cancelJob(job.id)).status).toBe("canceled");
    } finally {
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
  });

  it("throws the API's errors typed: type, code, message, param, request_id, status", async () => {
    const client = clientFor(await freshKey());
    const missing = await client.getJob("job_doesnotexist").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(AdCleanError);
    expect(missing).toMatchObject({ status: 404, type: "not_found_error", code: "job_not_found" });
    expect((missing as AdCleanError).requestId).toMatch(/^req_/);
    expect((missing as AdCleanError).message).not.toBe("");
    await expect(client.estimate(-1)).rejects.toMatchObject({
      status: 400,
      code: "invalid_parameter",
      param: "duration_seconds",
    });
    await expect(clientFor("sk_live_unknown").getAccount()).rejects.toMatchObject({
      status: 401,
      type: "authentication_error",
      code: "invalid_api_key",
    });
  });

  it("manages the webhook endpoint; verifyWebhook accepts its deliveries and refuses another secret", async () => {
    const client = clientFor(await freshKey());
    const endpoint = await client.setWebhookEndpoint({ url: `${files.url}/hook/ok/client` });
    expect(endpoint.signing_secret).toMatch(/^whsec_/);
    const event = await client.sendTestWebhook();
    expect(event.type).toBe("webhook.test");
    let log: Array<{ headers: Record<string, string>; body: string }> = [];
    for (let i = 0; i < 100 && log.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      log = await (await fetch(`${files.url}/hook-log/client`)).json();
    }
    const delivery = log[0];
    if (!delivery) throw new Error("the receiver got no delivery");
    const header = delivery.headers["service-signature"];
    await verifyWebhook({ payload: delivery.body, header, secret: endpoint.signing_secret });
    await expect(
      verifyWebhook({ payload: delivery.body, header, secret: "whsec_other" }),
    ).rejects.toBeInstanceOf(WebhookVerificationError);
    expect((await client.listEvents()).data.map((listed) => listed.id)).toContain(event.id);
    expect((await client.listEventDeliveries(event.id)).data.length).toBeGreaterThan(0);
    expect((await client.redeliverEvent(event.id)).id).toBe(event.id);
    const rotated = await client.rotateWebhookSecret({ overlap_seconds: 60 });
    expect(rotated.signing_secret).not.toBe(endpoint.signing_secret);
    expect((await client.getWebhookEndpoint()).previous_secret_expires_at).not.toBeNull();
  });
});

describe("the adclean command line", () => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { ADCLEAN_API_KEY: await freshKey(), ADCLEAN_BASE_URL: stack.baseUrl };
  });

  /** The one JSON line a --json run prints on stdout. */
  const jsonLine = (stdout: string) => {
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0] as string);
  };

  it("cleans a file end to end; --json prints one line with the job and the output", async () => {
    const output = path.join(dir, "cli-clean.mp4");
    const run = await npmRun("adclean", ["clean", clip, "-o", output, "--json"], env);
    expect(run.code, run.stderr).toBe(0);
    const answer = jsonLine(run.stdout) as { job: Job; output: string };
    expect(answer.output).toBe(output);
    expect(answer.job).toMatchObject({ object: "job", status: "succeeded", progress: 1 });
    expect(probe(output).streams.map((stream) => stream.codec_type)).toContain("video");
    // Progress went to stderr, by stage.
    expect(run.stderr).toMatch(/uploading/);
    expect(run.stderr).toMatch(/^(queued|analyzing|processing)/m);
    // The job commands on the job just made: newest in the list, read back, a cancel leaves it as it is.
    const id = answer.job.id;
    const list = jsonLine((await npmRun("adclean", ["jobs", "list", "--limit", "5", "--json"], env)).stdout);
    expect(list.object).toBe("list");
    expect(list.data[0].id).toBe(id);
    const got = jsonLine((await npmRun("adclean", ["jobs", "get", id, "--json"], env)).stdout);
    expect(got).toMatchObject({ id, status: "succeeded" });
    const canceled = jsonLine((await npmRun("adclean", ["jobs", "cancel", id, "--json"], env)).stdout);
    expect(canceled).toMatchObject({ id, status: "succeeded" }); // a finished job is left as it is
  });

  it("estimates seconds and files, shows the account", async () => {
    const seconds = await npmRun("adclean", ["estimate", "61.2", "--json"], env);
    expect(seconds.code).toBe(0);
    expect(jsonLine(seconds.stdout)).toMatchObject({ object: "estimate", credits: 155 });
    const file = jsonLine((await npmRun("adclean", ["estimate", clip, "--json"], env)).stdout);
    expect(file).toMatchObject({ object: "estimate", credits: 25 });
    expect(file.duration_seconds).toBeCloseTo(2, 0);
    const account = jsonLine((await npmRun("adclean", ["account", "--json"], env)).stdout);
    expect(account).toMatchObject({ object: "account", limits: { api_access: true } });
    const human = await npmRun("adclean", ["account"], env);
    expect(human.stdout).toMatch(/^workspace /);
  });

  it("says what failed in its exit status", async () => {
    const refused = await npmRun("adclean", ["jobs", "get", "job_nope", "--json"], env);
    expect(refused.code).toBe(3);
    expect(jsonLine(refused.stdout).error).toMatchObject({ code: "job_not_found", status: 404 });
    const badKey = await npmRun("adclean", ["account"], { ...env, ADCLEAN_API_KEY: "sk_live_unknown" });
    expect(badKey.code).toBe(3);
    expect(badKey.stderr).toMatch(/invalid_api_key/);
    expect((await npmRun("adclean", ["frobnicate"], env)).code).toBe(2);
    expect((await npmRun("adclean", ["clean", path.join(dir, "none.mp4")], env)).code).toBe(2);
    expect((await npmRun("adclean", ["account"], { ADCLEAN_API_KEY: "" })).code).toBe(2);
    // A port that was free a moment ago: nothing answers there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await npmRun("adclean", ["account", "--json"], {
      ...env,
      ADCLEAN_BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(unreachable.code).toBe(5);
    expect(jsonLine(unreachable.stdout).error.type).toBe("connection_error");
  });

  it("refuses a video over 15 minutes before uploading it, and its estimate says why", async () => {
    const estimate = await npmRun("adclean", ["estimate", "100000"], env);
    expect(estimate.stdout).toContain("over the 15-minute limit; a job for it is refused (video_too_long)");
    expect(estimate.stdout).not.toContain("videos a month");
    const tooLong = path.join(dir, "sixteen-minutes.mp4");
    makeLongTinyClip(tooLong, 16 * 60);
    const run = await npmRun("adclean", ["clean", tooLong, "--json"], env);
    expect(run.code).toBe(3);
    expect(jsonLine(run.stdout).error).toMatchObject({ code: "video_too_long" });
    expect(run.stderr).toContain("Nothing was uploaded");
    expect(run.stderr).not.toMatch(/uploading/);
  });

  it('takes a text that starts with a dash (--text "-50% TODAY")', async () => {
    const run = await npmRun("adclean", ["clean", path.join(dir, "none.mp4"), "--text", "-50% TODAY"], env);
    expect(run.stderr).not.toContain("ambiguous");
    expect(run.stderr).toContain("none.mp4: no such file.");
  });

  it("Ctrl-C cancels the running job through the API and exits 130", async () => {
    // Started as a terminal would: its own process group, which Ctrl-C signals as a whole.
    const child: ChildProcess = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "client/cli/main.ts",
        "clean",
        longClip,
        "-o",
        path.join(dir, "never.mp4"),
        "--json",
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on("data", (chunk) => {
        stderr += chunk;
        if (/^(analyzing|processing)/m.test(stderr)) resolve();
      });
      exited.then(() => reject(new Error(`adclean ended before the job ran:\n${stderr}`)));
    });
    process.kill(-(child.pid as number), "SIGINT");
    expect(await exited, stderr).toBe(130);
    const { job } = jsonLine(stdout) as { job: Job };
    expect(job.status).toBe("canceled");
    const seen = await clientFor(env.ADCLEAN_API_KEY as string).getJob(job.id);
    expect(seen).toMatchObject({ status: "canceled", credits_refunded: true });
    expect(existsSync(path.join(dir, "never.mp4"))).toBe(false);
  });
});
