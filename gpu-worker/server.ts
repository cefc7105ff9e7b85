import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { WorkerConfig } from "./config";
import type { JobIntake } from "./intake";
import type { JobSource } from "./job-source";

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

/**
 * The worker's HTTP face: GET /health, and POST /jobs, where the local queue consumer offers a job
 * (the push transport; production workers pull from Cloudflare Queues instead).
 */
export function createWorkerServer(config: WorkerConfig, intake: JobIntake): Server {
  return createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method === "GET" && request.url === "/health") {
      send(200, { status: "ok", slots: config.slots, busy: intake.busy });
      return;
    }
    if (request.method === "POST" && request.url === "/jobs") {
      const token = request.headers.authorization?.match(/^Bearer\s+(\S+)$/)?.[1] ?? "";
      if (!sameSecret(token, config.workerSecret)) {
        send(401, { error: "bad worker secret" });
        return;
      }
      try {
        const { job_id: jobId } = JSON.parse(await readBody(request)) as { job_id?: unknown };
        if (typeof jobId !== "string") {
          send(400, { error: "job_id is required" });
          return;
        }
        const { status, body } = await intake.offer(jobId);
        send(status, body);
      } catch (error) {
        send(503, { busy: `offer failed: ${String(error)}` });
      }
      return;
    }
    send(404, { error: "not found" });
  });
}

/** The push transport: the server above, listening on GPU_WORKER_HOST:GPU_WORKER_PORT. */
export function pushJobSource(
  config: WorkerConfig,
  intake: JobIntake,
  log: (entry: Record<string, unknown>) => void,
): JobSource {
  const server = createWorkerServer(config, intake);
  return {
    start: () =>
      new Promise((resolve) => {
        server.listen(config.port, config.host, () => {
          log({ event: "listening", url: `http://${config.host}:${config.port}`, slots: config.slots });
          resolve();
        });
      }),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
