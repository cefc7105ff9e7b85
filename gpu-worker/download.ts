import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { safeFetch } from "../edge/lib/url-policy";

/** 2,000,000,000 bytes (spec, Limits): a source that grows past it is cut off. */
export const MAX_SOURCE_BYTES = 2_000_000_000;
const RESUME_ATTEMPTS = 5;

export class DownloadError extends Error {
  constructor(
    readonly code: "video_too_large" | "unreadable_video" | "url_not_allowed",
    message: string,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

export interface DownloadOptions {
  local: boolean;
  signal?: AbortSignal;
  maxBytes?: number;
}

/** Appends one response body to the file, refusing to pass the size cap. */
async function appendBody(
  response: Response,
  file: string,
  append: boolean,
  maxBytes: number,
  signal?: AbortSignal,
) {
  let written = append ? (await stat(file)).size : 0;
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    written += chunk.length;
    if (written > maxBytes)
      body.destroy(new DownloadError("video_too_large", "The video is larger than 2 GB."));
  });
  await pipeline(body, createWriteStream(file, { flags: append ? "a" : "w" }), signal ? { signal } : {});
}

/**
 * Streams a source URL to disk (never into memory), through the same address policy as the edge.
 * A connection that drops mid-file is resumed with a Range request from the bytes already on disk.
 */
export async function downloadSource(url: string, file: string, options: DownloadOptions): Promise<number> {
  const maxBytes = options.maxBytes ?? MAX_SOURCE_BYTES;
  const init = options.signal ? { signal: options.signal } : {};
  let expected: number | null = null;
  for (let attempt = 0; attempt <= RESUME_ATTEMPTS; attempt++) {
    const have =
      attempt === 0
        ? 0
        : await stat(file).then(
            (s) => s.size,
            () => 0,
          );
    const headers: Record<string, string> = have > 0 ? { Range: `bytes=${have}-` } : {};
    const response = await safeFetch(url, { ...init, headers }, { local: options.local });
    if (!response.ok) {
      await response.body?.cancel();
      throw new DownloadError(
        "unreadable_video",
        `The video could not be downloaded (HTTP ${response.status}).`,
      );
    }
    const resumed = have > 0 && response.status === 206;
    const length = Number(response.headers.get("Content-Length") ?? Number.NaN);
    if (!resumed && Number.isFinite(length)) expected = length;
    if ((expected ?? 0) > maxBytes) {
      await response.body?.cancel();
      throw new DownloadError("video_too_large", "The video is larger than 2 GB.");
    }
    try {
      await appendBody(response, file, resumed, maxBytes, options.signal);
    } catch (error) {
      if (error instanceof DownloadError || options.signal?.aborted) throw error;
      continue; // the connection dropped: resume from what is on disk
    }
    const size = (await stat(file)).size;
    if (expected === null || size >= expected) return size;
  }
  throw new DownloadError("unreadable_video", "The video could not be downloaded completely.");
}
