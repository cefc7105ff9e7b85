import type { JobMessage } from "../contract/job-message";
import { edgeConfig } from "./config";
import type { WebhookMessage } from "./webhooks/delivery";
import type { WorkspaceObject } from "./workspace/workspace-object";

/** Bindings and secrets of the edge Worker (wrangler.toml, .dev.vars, or `wrangler secret`). */
export interface Env {
  DB: D1Database;
  BUCKET: R2Bucket;
  WORKSPACE: DurableObjectNamespace<WorkspaceObject>;
  JOBS_QUEUE: Queue<JobMessage>;
  WEBHOOKS_QUEUE: Queue<WebhookMessage>;
  /** "local" (wrangler dev, tests) or "staging"/"production". */
  ENVIRONMENT: string;
  /** The public origin of this Worker, for addresses made outside a request (scheduled tasks, queues). */
  PUBLIC_BASE_URL: string;
  /** Bearer token of the admin API. */
  ADMIN_TOKEN: string;
  /** Shared secret of the GPU workers' internal API. */
  WORKER_SECRET: string;
  /** Key (base64, 32 bytes) that seals signing secrets at rest. */
  DATA_KEY: string;
  /** Local mode: the GPU worker the jobs queue's consumer offers jobs to. */
  GPU_WORKER_URL?: string;
  /** Seconds a worker's claim on a job lasts without a heartbeat (default 60). */
  LEASE_SECONDS?: string;
  /** Seconds a running job may go without progress before heartbeats stop extending its lease (default 300). */
  LEASE_STALL_SECONDS?: string;
  /** How long a webhook receiver may take to answer (default 15000). */
  WEBHOOK_TIMEOUT_MS?: string;
  /** Results larger than this many bytes are uploaded in parts (default 64 MiB). */
  MULTIPART_THRESHOLD_BYTES?: string;
  /** R2's S3 API: when all four are set, uploads and results are presigned there (production). */
  S3_ENDPOINT?: string;
  S3_BUCKET?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
}

export type AppBindings = {
  Bindings: Env;
  Variables: {
    requestId: string;
    auth?: import("./middleware/auth").AuthContext;
    rateLimit?: import("./workspace/rate-limit").RateDecision;
  };
};

export const isLocal = (env: Env): boolean => edgeConfig(env).ENVIRONMENT === "local";
