import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..");

export interface RunningStack {
  baseUrl: string;
  /** Process id of `npm start` itself. */
  pid: number;
  port: number;
  workerPort: number;
  output: () => string;
  stop: () => Promise<number | null>;
}

export interface StackOptions {
  /**
   * A state folder the caller owns (made with `makeStateDir`), kept when the stack stops so another
   * `npm start` can go on with the same D1, R2, Durable Objects and queues. By default each stack
   * gets a fresh folder, removed when it stops.
   */
  stateDir?: string;
}

/**
 * For stacks whose tests hold a worker's download open (the file server's /held-once/): the worker's
 * minimum-rate check looks at 10-minute windows, so a held download stays held longer than any test
 * runs, and a job behind it in the one worker slot provably waits in the queue.
 */
export const HELD_DOWNLOADS_ENV = { GPU_WORKER_DOWNLOAD_RATE_WINDOW_MS: "600000" };

export const makeStateDir = () => mkdtempSync(path.join(tmpdir(), "adclean-state-"));

/**
 * Starts `npm start` as a customer would, on its own ports and with its own state folder, and
 * resolves once it prints `ready <url>`.
 */
export async function startStack(
  port: number,
  extraEnv: Record<string, string> = {},
  options: StackOptions = {},
): Promise<RunningStack> {
  const stateDir = options.stateDir ?? makeStateDir();
  const workerPort = port + 1;
  const child: ChildProcess = spawn("npm", ["start", "--silent"], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      GPU_WORKER_PORT: String(workerPort),
      ADCLEAN_STATE_DIR: stateDir,
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  let stopped: Promise<number | null> | undefined;
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack not ready in 150 s:\n${output}`)), 150_000);
    const check = () => {
      const match = output.match(/ready (http:\/\/\S+)/);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", check);
    exited.then((code) => reject(new Error(`npm start exited (${code}) before ready:\n${output}`)));
  });
  return {
    baseUrl,
    pid: child.pid as number,
    port,
    workerPort,
    output: () => output,
    /** SIGTERM to `npm start` alone, as an operator's `kill` would send; the stack must stop its children. */
    stop: () => {
      stopped ??= (async () => {
        if (child.pid && child.exitCode === null) process.kill(child.pid, "SIGTERM");
        const code = await exited;
        try {
          if (child.pid) process.kill(-child.pid, "SIGKILL"); // Leftovers, if the stack failed to stop them.
        } catch {
          // None left: the expected case.
        }
        if (!options.stateDir) rmSync(stateDir, { recursive: true, force: true });
        return code;
      })();
      return stopped;
    },
  };
}

/** Runs `npm run -s <script> -- args` against a stack and returns stdout, stderr and the exit code. */
export function npmRun(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", script, "--", ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface CliWorkspace {
  workspace_id: string;
  api_key: string;
  signing_secret: string;
  key_id: string;
}

/** A workspace made with the admin CLI, as an operator would, on the given stack. */
export async function cliWorkspace(
  stack: RunningStack,
  plan: string,
  credits: number,
): Promise<CliWorkspace> {
  const created = await npmRun(
    "admin",
    ["workspace", "create", "--plan", plan, "--credits", String(credits)],
    {
      BASE_URL: stack.baseUrl,
    },
  );
  if (created.code !== 0) throw new Error(`admin workspace create failed: ${created.stderr}`);
  return JSON.parse(created.stdout) as CliWorkspace;
}
