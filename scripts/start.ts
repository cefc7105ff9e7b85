/**
 * `npm start`: the edge (wrangler dev with local D1, R2, Durable Objects and Queues) plus one GPU
 * worker, on 127.0.0.1. Prints `ready <base url>` once both answer; SIGINT/SIGTERM stops them all.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { checkMediaTools } from "../gpu-worker/engine/media/tools-check";
import { edgePort, ensureDevVars, PROJECT_ROOT } from "./lib/dev-config";
import { waitForHealth } from "./lib/health";
import { freePort } from "./lib/ports";
import { QUIET_WRANGLER_ENV } from "./lib/wrangler-env";

const port = edgePort();
const workerPort = Number(process.env.GPU_WORKER_PORT ?? port + 1);
const stateDir = path.resolve(PROJECT_ROOT, process.env.ADCLEAN_STATE_DIR ?? ".wrangler/state");
const wrangler = path.join(PROJECT_ROOT, "node_modules/.bin/wrangler");

const children: ChildProcess[] = [];
let stopping = false;

/**
 * Starts a child in its own process group. When it exits unexpectedly, `onExit` decides: the edge
 * takes the whole stack down with it; the GPU worker is started again (as a supervisor would).
 */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = QUIET_WRANGLER_ENV,
  onExit: () => void = () => stop(1),
): ChildProcess {
  // Own process group, so stopping takes workerd and every grandchild with it.
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    env,
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  children.push(child);
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`${path.basename(args.at(-1) ?? command)} exited (${signal ?? code})`);
      onExit();
    }
  });
  return child;
}

function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) {
    if (child.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
  }
  const deadline = setTimeout(() => {
    for (const child of children)
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    process.exit(code);
  }, 5000);
  deadline.unref();
  Promise.all(
    children.map((child) => (child.exitCode === null ? new Promise((r) => child.on("exit", r)) : null)),
  ).then(() => process.exit(code));
}

process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
process.on("SIGHUP", () => stop(0));

// If whoever started us dies without passing a signal on (npm killed hard), we are re-parented: stop too.
const parentAtStart = process.ppid;
setInterval(() => {
  if (process.ppid !== parentAtStart) stop(0);
}, 1000).unref();

async function applyMigrations(): Promise<void> {
  const migrate = spawn(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
    cwd: PROJECT_ROOT,
    env: QUIET_WRANGLER_ENV,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const code = await new Promise<number | null>((resolve) => migrate.on("exit", resolve));
  if (code !== 0) throw new Error(`D1 migrations failed (exit ${code})`);
}

/** Fails fast with a clear message instead of health-checking someone else's server. */
async function assertPortFree(portToCheck: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () =>
      reject(new Error(`port ${portToCheck} on 127.0.0.1 is in use (set PORT / GPU_WORKER_PORT)`)),
    );
    probe.listen(portToCheck, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

/**
 * wrangler dev does not fire cron triggers: this runs the scheduled tasks locally, as Cloudflare
 * would, through the admin API (wrangler's /cdn-cgi/handler/scheduled fails once static assets are served).
 */
function startLocalCron(baseUrl: string, adminToken: string): void {
  const intervalMs = Number(process.env.LOCAL_CRON_INTERVAL_MS ?? 60_000);
  const timer = setInterval(() => {
    fetch(`${baseUrl}/admin/scheduled/run`, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}` },
    })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  }, intervalMs);
  timer.unref();
}

/**
 * Local queues live in wrangler dev's memory, so a restart loses the messages of queued jobs: they
 * are sent again now (the reaper resends only messages whose send failed). Cloudflare's queues keep them.
 */
async function redispatchQueuedJobs(baseUrl: string, adminToken: string): Promise<void> {
  const response = await fetch(`${baseUrl}/admin/jobs/redispatch`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}` },
  });
  if (!response.ok) throw new Error(`redispatch of queued jobs failed: HTTP ${response.status}`);
}

/**
 * wrangler dev's devtools inspector: INSPECTOR_PORT when asked for, else a free port the system
 * picks. Wrangler's own choice is 127.0.0.1:9229 whenever it looks free, so stacks starting
 * together (a second `npm start`, the tests beside one) or a debugger race for the same port.
 */
async function inspectorPort(): Promise<number> {
  return process.env.INSPECTOR_PORT ? Number(process.env.INSPECTOR_PORT) : freePort();
}

async function main(): Promise<void> {
  // The worker checks too, but a worker that exits is restarted: refuse here, with the fix, instead.
  await checkMediaTools();
  await Promise.all([assertPortFree(port), assertPortFree(workerPort)]);
  const devVars = ensureDevVars();
  await applyMigrations();
  run(wrangler, [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    stateDir,
    "--var",
    `PUBLIC_BASE_URL:http://127.0.0.1:${port}`,
    "--var",
    `GPU_WORKER_URL:http://127.0.0.1:${workerPort}`,
    ...(process.env.LEASE_SECONDS ? ["--var", `LEASE_SECONDS:${process.env.LEASE_SECONDS}`] : []),
    "--inspector-port",
    String(await inspectorPort()),
    // Only so wrangler does not tell the user to curl /cdn-cgi/handler/scheduled: the scheduled
    // tasks are run by this script (startLocalCron), as Cloudflare's cron would.
    "--test-scheduled",
    "--show-interactive-dev-session=false",
    "--log-level",
    process.env.WRANGLER_LOG_LEVEL ?? "warn",
  ]);
  const baseUrl = `http://127.0.0.1:${port}`;
  const startWorker = () =>
    run(
      process.execPath,
      ["--import", "tsx", path.join(PROJECT_ROOT, "gpu-worker/main.ts")],
      {
        ...QUIET_WRANGLER_ENV,
        GPU_WORKER_PORT: String(workerPort),
        EDGE_URL: baseUrl,
        WORKER_SECRET: devVars.WORKER_SECRET ?? "",
      },
      () => setTimeout(startWorker, 1000), // a crashed worker comes back; its jobs are retried
    );
  startWorker();
  await Promise.all([
    waitForHealth(`${baseUrl}/health`, 120_000),
    waitForHealth(`http://127.0.0.1:${workerPort}/health`, 60_000),
  ]);
  startLocalCron(baseUrl, devVars.ADMIN_TOKEN ?? "");
  await redispatchQueuedJobs(baseUrl, devVars.ADMIN_TOKEN ?? "");
  console.log(`ready ${baseUrl}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  stop(1);
});
