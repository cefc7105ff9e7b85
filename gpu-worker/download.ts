import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { safeFetch, UrlNotAllowedError } from "../shared-lib/url-policy";
import type { DownloadLimits } from "./config";
import { type DownloadWatchdog, SlowSourceError, watchDownload } from "./download-watchdog";
import { type Resolver, sourceUrlPolicy } from "./pinned-fetch";

/** 2,000,000,000 bytes (spec, Limits): a source that grows past it is cut off. */
export const MAX_SOURCE_BYTES = 2_000_000_000;
const RESUME_ATTEMPTS = 5;

export class DownloadError extends Error {
  constructor(
    readonly code: "video_too_large" | "unreadable_video" | "url_not_allowed" | "download_too_slow",
    message: string,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

export interface DownloadOptions {
  local: boolean;
  limits: DownloadLimits;
  signal?: AbortSignal;
  maxBytes?: number;
  /** Bytes on disk so far, and the whole file's size when the server said it. */
  onProgress?: (bytes: number, expected: number | null) => void;
  /** Resolves host names for the URL check and the connections (default: the system's; tests stub it). */
  resolve?: Resolver;
}

interface BodyTarget {
  file: string;
  append: boolean;
  maxBytes: number;
  expected: number | null;
  watchdog: DownloadWatchdog;
  onProgress?: DownloadOptions["onProgress"];
}

/** Appends one response body to the file, refusing to pass the size cap. */
async function appendBody(response: Response, target: BodyTarget) {
  const { file, append, maxBytes, expected, watchdog } = target;
  let written = append ? (await stat(file)).size : 0;
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    written += chunk.length;
    watchdog.received(chunk.length);
    target.onProgress?.(written, expected);
    if (written > maxBytes)
      body.destroy(new DownloadError("video_too_large", "The video is larger than 2 GB."));
  });
  await pipeline(body, createWriteStream(file, { flags: append ? "a" : "w" }), {
    signal: watchdog.signal,
  });
}

/**
 * Streams a source URL to disk (never into memory), through the same address policy as the edge,
 * with every connection made only to addresses checked as it is made (pinned-fetch.ts). A
 * connection that drops mid-file is resumed with a Range request from the bytes already on disk.
 * The whole download keeps to the limits (deadline, minimum rate): past them it ends with
 * download_too_slow.
 */
export async function downloadSource(url: string, file: string, options: DownloadOptions): Promise<number> {
  const watchdog = watchDownload(options.limits, options.signal);
  try {
    return await downloadWithin(url, file, options, watchdog);
  } catch (error) {
    const reason: unknown = watchdog.signal.reason;
    if (reason instanceof SlowSourceError) throw new DownloadError("download_too_slow", reason.message);
    if (error instanceof UrlNotAllowedError) throw new DownloadError("url_not_allowed", error.message);
    throw error;
  } finally {
    watchdog.end();
  }
}

async function downloadWithin(
  url: string,
  file: string,
  options: DownloadOptions,
  watchdog: DownloadWatchdog,
): Promise<number> {
  const maxBytes = options.maxBytes ?? MAX_SOURCE_BYTES;
  const policy = sourceUrlPolicy(options.local, options.resolve);
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
    const response = await safeFetch(url, { signal: watchdog.signal, headers }, policy);
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
      await appendBody(response, {
        file,
        append: resumed,
        maxBytes,
        expected,
        watchdog,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
    } catch (error) {
      if (error instanceof DownloadError || watchdog.signal.aborted) throw error;
      continue; // the connection dropped: resume from what is on disk
    }
    const size = (await stat(file)).size;
    if (expected === null || size >= expected) return size;
  }
  throw new DownloadError("unreadable_video", "The video could not be downloaded completely.");
}
