import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { AdCleanError } from "./errors";
import { type RetryOptions, sendWithRetry } from "./http";

export interface DownloadOptions extends RetryOptions {
  fetch: typeof fetch;
  signal?: AbortSignal | undefined;
}

/**
 * Streams a presigned result address to `destination`, through `<destination>.part` so that an
 * interrupted download never leaves a truncated file under the final name. Resolves with the size.
 */
export async function downloadTo(
  url: string,
  destination: string,
  options: DownloadOptions,
): Promise<number> {
  const response = await sendWithRetry((signal) => options.fetch(url, { signal: signal ?? null }), {
    ...options,
    policy: "any",
  });
  if (!response.ok || !response.body) throw await AdCleanError.from(response);
  const partial = `${destination}.part`;
  const file = createWriteStream(partial);
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), file, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await rename(partial, destination);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return file.bytesWritten;
}
