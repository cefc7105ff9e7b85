import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import type { UploadedPart } from "../contract/worker-api";
import type { EdgeClient, MultipartTarget, UploadTarget } from "./edge-client";

/** Streams `size` bytes of a file from `start` to a presigned PUT address (the signature binds the length). */
async function putRange(
  file: string,
  start: number,
  size: number,
  target: UploadTarget,
  signal: AbortSignal,
): Promise<Response> {
  const response = await fetch(target.url, {
    method: "PUT",
    headers: { ...target.headers, "Content-Length": String(size) },
    body: Readable.toWeb(
      createReadStream(file, { start, end: start + size - 1 }),
    ) as ReadableStream<Uint8Array>,
    // Node's fetch streams a request body only in half-duplex mode.
    duplex: "half",
    signal,
  } as RequestInit);
  if (!response.ok)
    throw new Error(`result upload refused: HTTP ${response.status} ${await response.text()}`);
  return response;
}

/** Sends each part in turn and collects the ETags that completing the upload needs. */
async function uploadParts(
  file: string,
  multipart: MultipartTarget,
  signal: AbortSignal,
): Promise<UploadedPart[]> {
  const uploaded: UploadedPart[] = [];
  for (const part of multipart.parts) {
    const start = (part.part_number - 1) * multipart.part_size;
    const response = await putRange(file, start, part.size_bytes, part, signal);
    const etag = response.headers.get("ETag");
    if (!etag) throw new Error(`no ETag for part ${part.part_number}`);
    uploaded.push({ part_number: part.part_number, etag });
  }
  return uploaded;
}

/**
 * Uploads a job's result the way the edge asks: one PUT, or parts then completion. A multipart
 * upload that fails or is canceled is aborted (best effort), so its parts are not kept.
 */
export async function uploadResult(
  client: EdgeClient,
  jobId: string,
  file: string,
  sizeBytes: number,
  signal: AbortSignal,
): Promise<void> {
  const target = await client.resultTarget(jobId, sizeBytes);
  if (!("multipart" in target)) {
    await putRange(file, 0, sizeBytes, target, signal);
    return;
  }
  const uploadId = target.multipart.upload_id;
  try {
    await client.completeResult(jobId, uploadId, await uploadParts(file, target.multipart, signal));
  } catch (error) {
    await client.abortResult(jobId, uploadId).catch(() => undefined);
    throw error;
  }
}

/** Uploads the before/after picture (small: one PUT). */
export async function uploadPicture(
  client: EdgeClient,
  jobId: string,
  file: string,
  signal: AbortSignal,
): Promise<void> {
  const { size } = await stat(file);
  await putRange(file, 0, size, await client.pictureTarget(jobId, size), signal);
}
