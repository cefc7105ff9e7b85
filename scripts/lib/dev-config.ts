import { randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..");
export const DEV_VARS_PATH = path.join(PROJECT_ROOT, ".dev.vars");

export type DevVars = Record<string, string>;

export function parseDevVars(text: string): DevVars {
  const vars: DevVars = {};
  for (const line of text.split("\n")) {
    const match = line.match(/^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/);
    if (match?.[1]) vars[match[1]] = (match[2] ?? "").replace(/^"(.*)"$/, "$1");
  }
  return vars;
}

/**
 * The local dev config (.dev.vars): created with random secrets on first run, never committed.
 * Stacks started together on a fresh checkout (the e2e tests) race to create it: the file is
 * written aside and linked into place, which fails if another got there first, so every stack
 * (and the wrangler it starts) reads the one file that won, whole.
 */
export function ensureDevVars(filePath = DEV_VARS_PATH): DevVars {
  if (!existsSync(filePath)) {
    const secret = () => randomBytes(32).toString("base64url");
    const lines = [
      "# Written by `npm start` on first run with random secrets. Never commit this file.",
      `ADMIN_TOKEN=${secret()}`,
      `WORKER_SECRET=${secret()}`,
      `DATA_KEY=${randomBytes(32).toString("base64")}`,
    ];
    const draftPath = `${filePath}.${process.pid}.draft`;
    try {
      writeFileSync(draftPath, `${lines.join("\n")}\n`, { mode: 0o600 });
      linkSync(draftPath, filePath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(draftPath, { force: true });
    }
  }
  return readDevVars(filePath);
}

export function readDevVars(filePath = DEV_VARS_PATH): DevVars {
  if (!existsSync(filePath)) return {};
  return parseDevVars(readFileSync(filePath, "utf8"));
}

export function edgePort(): number {
  return Number(process.env.PORT ?? 8787);
}

export function baseUrl(): string {
  return process.env.BASE_URL ?? `http://127.0.0.1:${edgePort()}`;
}
