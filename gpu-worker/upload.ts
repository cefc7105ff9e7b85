import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import type { UploadTarget } from "./edge-client";

/** Streams a file to a presigned PUT address with its exact length (the signature binds it). */
export async function uploadFile(file: string, target: UploadTarget, signal?: AbortSignal): Promise<void> {
  const { size } = await stat(file);
  const response = await fetch(target.url, {
    method: "PUT",
    headers: { ...target.headers, "Content-Length": String(size) },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
    // Node's fetch streams a request body only in half-duplex mode.
    duplex: "half",
    ...(signal ? { signal } : {}),
  } as RequestInit);
  if (!response.ok)
    throw new Error(`result upload refused: HTTP ${response.status} ${await response.text()}`);
}
