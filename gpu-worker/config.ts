import { tmpdir } from "node:os";
import path from "node:path";

/** The GPU worker's settings, from the environment (README, Configuration). */
export interface WorkerConfig {
  port: number;
  host: string;
  edgeUrl: string;
  workerSecret: string;
  /** Jobs run at once: one per GPU; on CPU one by default. */
  slots: number;
  /** Where jobs keep their temporary files; emptied at start. */
  workDir: string;
  /** This process's name in leases. */
  workerId: string;
  /** Local mode: source URLs may be loopback only (the same policy as the edge's). */
  local: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const port = Number(env.GPU_WORKER_PORT ?? 8788);
  return {
    port,
    host: env.GPU_WORKER_HOST ?? "127.0.0.1",
    edgeUrl: env.EDGE_URL ?? "http://127.0.0.1:8787",
    workerSecret: env.WORKER_SECRET ?? "",
    slots: Math.max(1, Number(env.GPU_WORKER_SLOTS ?? 1)),
    workDir: env.GPU_WORKER_DIR ?? path.join(tmpdir(), `adclean-worker-${port}`),
    workerId: env.GPU_WORKER_ID ?? `worker-${port}-${process.pid}`,
    local: (env.ENVIRONMENT ?? "local") === "local",
  };
}
