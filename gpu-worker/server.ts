import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import { JobMessageSchema } from "../contract/job-message";
import { ContractViolationError, parseContract } from "../contract/violation";
import type { WorkerConfig } from "./config";
import type { JobIntake } from "./intake";
import type { JobSource } from "./job-source";
import { METRICS_CONTENT_TYPE, type WorkerMetrics } from "./metrics";

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && expected.length > 0 && timingSafeEqual(a, b);
}

function readBody(request: import("node:http").IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
      if (body.length > 10_000) request.destroy(new Error("body too large"));
    });
    request.on("end", () => resolve(body));
    request.on("error", reject);
  });
}

export interface WorkerHttpDeps {
  config: WorkerConfig;
  intake: JobIntake;
  metrics: WorkerMetrics;
}

/**
 * The worker's HTTP face: GET /health and GET /metrics (Prometheus) on both transports, and with the
 * push transport POST /jobs, where the local queue consumer offers a job (production workers pull
 * from Cloudflare Queues instead).
 */
export function createWorkerServer({ config, intake, metrics }: WorkerHttpDeps): Server {
  return createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method === "GET" && request.url === "/health") {
      send(200, { status: "ok", transport: config.transport, slots: config.slots, busy: intake.busy });
      return;
    }
    if (request.method === "GET" && request.url === "/metrics") {
      const text = await metrics.render();
      response.writeHead(200, { "Content-Type": METRICS_CONTENT_TYPE });
      response.end(text);
      return;
    }
    if (config.transport === "push" && request.method === "POST" && request.url === "/jobs") {
      const token = request.headers.authorization?.match(/^Bearer\s+(\S+)$/)?.[1] ?? "";
      if (!sameSecret(token, config.workerSecret)) {
        send(401, { error: "bad worker secret" });
        return;
      }
      let jobId: string;
      try {
        const text = await readBody(request);
        jobId = parseContract(JobMessageSchema, JSON.parse(text), "the job message").job_id;
      } catch (error) {
        // Not JSON, or not a job message: no retry makes it one.
        const message =
          error instanceof ContractViolationError ? error.message : "the job message is not JSON";
        send(400, { error: message });
        return;
      }
      try {
        const { status, body } = await intake.offer(jobId);
        send(status, body);
      } catch (error) {
        // Not a busy answer: the claim failed (edge refused or unreachable). The queue's counted retry
        // follows, so a job that can never be claimed reaches the dead letters (failed, refunded).
        send(502, { error: `offer failed: ${String(error)}` });
      }
      return;
    }
    send(404, { error: "not found" });
  });
}

/**
 * The server above on GPU_WORKER_HOST:GPU_WORKER_PORT. With the push transport it is the job source;
 * with pull it only answers health checks and scrapes, beside the PullJobSource.
 */
export function workerHttpService(
  deps: WorkerHttpDeps,
  log: (entry: Record<string, unknown>) => void,
): JobSource {
  const { config } = deps;
  const server = createWorkerServer(deps);
  return {
    start: () =>
      new Promise((resolve) => {
        server.listen(config.port, config.host, () => {
          const url = `http://${config.host}:${config.port}`;
          log({ event: "listening", url, transport: config.transport, slots: config.slots });
          resolve();
        });
      }),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
