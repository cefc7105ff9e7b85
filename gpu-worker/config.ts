import { randomUUID } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import path from "node:path";

/** Cloudflare Queues' HTTP pull consumer (production transport). */
export interface PullSettings {
  /** Cloudflare's API base, e.g. https://api.cloudflare.com/client/v4 (tests point it at a stand-in). */
  apiBaseUrl: string;
  accountId: string;
  queueId: string;
  /** API token with Queues read and write; never logged. */
  apiToken: string;
  /** How long a pulled message stays invisible to other pulls before it comes back. */
  visibilityMs: number;
  /** Wait between pulls when the queue was empty or no slot was free. */
  intervalMs: number;
}

/** How long a source may take to download, and how slowly it may send (README, Configuration). */
export interface DownloadLimits {
  /** The whole download, resumes included, ends within this. */
  deadlineMs: number;
  /** The source must send at least this many bytes a second, over each window of rateWindowMs. */
  minBytesPerSecond: number;
  rateWindowMs: number;
}

/** Every stage of a job must end within baseMs plus perVideoSecondMs for each second of video. */
export interface StageBudgets {
  baseMs: number;
  perVideoSecondMs: number;
}

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
  /** This process's name in leases and logs: unique per process (leases themselves go by token). */
  workerId: string;
  /** Local mode: source URLs may be loopback only (the same policy as the edge's). */
  local: boolean;
  /** push: the local queue consumer offers jobs over HTTP; pull: the worker pulls from Cloudflare Queues. */
  transport: "push" | "pull";
  /** Set when transport is pull. */
  pull?: PullSettings;
  download: DownloadLimits;
  stageBudgets: StageBudgets;
}

const PULL_REQUIRED = ["CF_ACCOUNT_ID", "CF_QUEUE_ID", "CF_API_TOKEN"] as const;

function pullSettings(env: NodeJS.ProcessEnv): PullSettings {
  const missing = PULL_REQUIRED.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`GPU_WORKER_TRANSPORT=pull needs ${missing.join(", ")}`);
  return {
    apiBaseUrl: (env.CF_API_BASE_URL ?? "https://api.cloudflare.com/client/v4").replace(/\/+$/, ""),
    accountId: env.CF_ACCOUNT_ID as string,
    queueId: env.CF_QUEUE_ID as string,
    apiToken: env.CF_API_TOKEN as string,
    visibilityMs: Number(env.PULL_VISIBILITY_MS ?? 600_000),
    intervalMs: Number(env.PULL_INTERVAL_MS ?? 2000),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const port = Number(env.GPU_WORKER_PORT ?? 8788);
  const transport = env.GPU_WORKER_TRANSPORT ?? "push";
  if (transport !== "push" && transport !== "pull") {
    throw new Error(`GPU_WORKER_TRANSPORT must be push or pull, not ${transport}`);
  }
  return {
    port,
    host: env.GPU_WORKER_HOST ?? "127.0.0.1",
    edgeUrl: env.EDGE_URL ?? "http://127.0.0.1:8787",
    workerSecret: env.WORKER_SECRET ?? "",
    slots: Math.max(1, Number(env.GPU_WORKER_SLOTS ?? 1)),
    workDir: env.GPU_WORKER_DIR ?? path.join(tmpdir(), `adclean-worker-${port}`),
    // In a container every process is PID 1 and many share a port: a random part tells them apart.
    workerId: `${env.GPU_WORKER_ID ?? hostname()}-${randomUUID().slice(0, 8)}`,
    local: (env.ENVIRONMENT ?? "local") === "local",
    transport,
    ...(transport === "pull" ? { pull: pullSettings(env) } : {}),
    download: {
      deadlineMs: Number(env.GPU_WORKER_DOWNLOAD_DEADLINE_MS ?? 900_000),
      minBytesPerSecond: Number(env.GPU_WORKER_DOWNLOAD_MIN_BYTES_PER_SECOND ?? 262_144),
      rateWindowMs: Number(env.GPU_WORKER_DOWNLOAD_RATE_WINDOW_MS ?? 30_000),
    },
    stageBudgets: {
      baseMs: Number(env.GPU_WORKER_STAGE_BUDGET_MS ?? 900_000),
      perVideoSecondMs: Number(env.GPU_WORKER_STAGE_BUDGET_PER_VIDEO_SECOND_MS ?? 20_000),
    },
  };
}
