import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type FileServer, startFileServer } from "../../test/fixtures/file-server";
import { makeCaptionedClip } from "../../test/fixtures/media";
import { type RunningStack, startStack } from "../../test/helpers/stack";
import { readDevVars } from "../lib/dev-config";

/** Where the load goes and what it needs: the API, the admin token, and a small MP4 served on 127.0.0.1. */
export interface Target {
  baseUrl: string;
  adminToken: string;
  videoUrl: string;
  close: () => Promise<void>;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Refuses any BASE_URL that is not this machine: the load test never sends traffic elsewhere. */
export function loopbackBaseUrl(raw: string): string {
  const url = new URL(raw);
  if (!LOOPBACK_HOSTS.has(url.hostname))
    throw new Error(`BASE_URL must be a loopback address, not ${url.hostname}`);
  return url.origin;
}

/** Uses BASE_URL when given (loopback only), else starts its own `npm start` on `port` with a fresh state. */
export async function openTarget(port: number): Promise<Target> {
  const dir = mkdtempSync(path.join(tmpdir(), "adclean-loadtest-"));
  let stack: RunningStack | undefined;
  let files: FileServer | undefined;
  try {
    makeCaptionedClip(path.join(dir, "ad.mp4"), 1);
    files = await startFileServer(dir);
    const given = process.env.BASE_URL;
    if (!given) stack = await startStack(port);
    const baseUrl = given ? loopbackBaseUrl(given) : (stack as RunningStack).baseUrl;
    const adminToken = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
    if (!adminToken) throw new Error("no ADMIN_TOKEN: set it, or run `npm start` once to create .dev.vars");
    const server = files;
    return {
      baseUrl,
      adminToken,
      videoUrl: `${server.url}/files/ad.mp4`,
      close: async () => {
        await stack?.stop();
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stack?.stop();
    await files?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
