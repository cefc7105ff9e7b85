import { createReadStream } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { AdCleanError } from "./errors";
import { type RetryOptions, sendWithRetry } from "./http";
import type { Upload, UploadCreate } from "./types";

const CONTENT_TYPES: Record<string, UploadCreate["content_type"]> = {
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".m4v": "video/x-m4v",
};

/** The upload content type for a file name, or undefined for a format the API does not take. */
export function contentTypeOf(file: string): UploadCreate["content_type"] | undefined {
  return CONTENT_TYPES[path.extname(file).toLowerCase()];
}

export interface PutFileOptions extends RetryOptions {
  fetch: typeof fetch;
  signal?: AbortSignal | undefined;
  /** Bytes handed to the connection so far; starts again at 0 if the PUT is retried. */
  onProgress?: ((sentBytes: number, totalBytes: number) => void) | undefined;
}

/** A fresh stream of the file for each attempt, counting the bytes as fetch reads them. */
function fileBody(file: string, sizeBytes: number, onProgress: PutFileOptions["onProgress"]) {
  let sent = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      sent += chunk.byteLength;
      onProgress?.(sent, sizeBytes);
      controller.enqueue(chunk);
    },
  });
  return (Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>).pipeThrough(counter);
}

/**
 * PUTs a file to an Upload's presigned address, streamed from disk (never held in memory), with the
 * Upload's headers and the exact Content-Length the address was signed for.
 */
export async function putFile(upload: Upload, file: string, sizeBytes: number, options: PutFileOptions) {
  const response = await sendWithRetry(
    (signal) => {
      // fetch needs `duplex` for a stream body; not every RequestInit typing (Workers') knows it.
      const init: RequestInit & { duplex: "half" } = {
        method: upload.method,
        headers: { ...upload.headers, "Content-Length": String(sizeBytes) },
        body: fileBody(file, sizeBytes, options.onProgress),
        duplex: "half",
        signal: signal ?? null,
      };
      return options.fetch(upload.upload_url, init);
    },
    { ...options, policy: "any" },
  );
  if (!response.ok) throw await AdCleanError.from(response);
  await response.body?.cancel();
}
