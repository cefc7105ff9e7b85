/** The GPU worker's settings, from the environment (README, Configuration). */
export interface WorkerConfig {
  port: number;
  host: string;
  edgeUrl: string;
  workerSecret: string;
  slots: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  return {
    port: Number(env.GPU_WORKER_PORT ?? 8788),
    host: env.GPU_WORKER_HOST ?? "127.0.0.1",
    edgeUrl: env.EDGE_URL ?? "http://127.0.0.1:8787",
    workerSecret: env.WORKER_SECRET ?? "",
    slots: Math.max(1, Number(env.GPU_WORKER_SLOTS ?? 1)),
  };
}
