import type { Env } from "../env";
import { localSignedStorage } from "./local-signed";
import { s3PresignedStorage } from "./s3-presigned";

/** Where a client sends a file: the address, and the headers the PUT must carry. */
export interface UploadTarget {
  url: string;
  headers: Record<string, string>;
}

export interface UploadSlot {
  key: string;
  contentType: string;
  sizeBytes: number;
  expiresAt: number;
}

/** One part of a multipart upload: its number (from 1) and exact length. */
export interface PartSlot {
  key: string;
  uploadId: string;
  partNumber: number;
  sizeBytes: number;
  expiresAt: number;
}

/** A part as stored: completing the upload names each part with the ETag its PUT answered. */
export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/** What the storage says of a stored object. */
export interface StoredObject {
  sizeBytes: number;
  /** When it was written (ms since the epoch). */
  storedAt: number;
}

/**
 * Presigned addresses for uploads and results. Production signs R2's S3 API (content type and
 * length bound into the signature); local mode signs addresses of this Worker, which streams the
 * body into the R2 binding. Callers do not know which. Large files go up in parts: the upload is
 * started and completed (or aborted) here, with the credentials; only the parts are presigned.
 * Reads, checks and deletes by the edge itself go the same way (the S3 API, or the R2 binding).
 */
export interface MediaStorage {
  uploadTarget(slot: UploadSlot): Promise<UploadTarget>;
  downloadUrl(key: string, expiresAt: number, filename: string): Promise<string>;
  /** Starts a multipart upload; resolves to its upload id. */
  startMultipart(key: string, contentType: string): Promise<string>;
  partTarget(part: PartSlot): Promise<UploadTarget>;
  completeMultipart(key: string, uploadId: string, parts: UploadedPart[]): Promise<void>;
  abortMultipart(key: string, uploadId: string): Promise<void>;
  /** The object's size and write time, or null when there is none. */
  head(key: string): Promise<StoredObject | null>;
  /** Bytes [offset, offset+length) of an object (fewer only at its end); throws when it is gone. */
  read(key: string, offset: number, length: number): Promise<Uint8Array>;
  /** Deletes the objects; keys with no object are fine. */
  delete(keys: string[]): Promise<void>;
}

/** S3 credentials select production presigning; without them the Worker signs its own URLs. */
export function mediaStorage(env: Env, requestOrigin: string): MediaStorage {
  if (env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY && env.S3_ENDPOINT && env.S3_BUCKET) {
    return s3PresignedStorage({
      endpoint: env.S3_ENDPOINT,
      bucket: env.S3_BUCKET,
      accessKeyId: env.S3_ACCESS_KEY_ID,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    });
  }
  return localSignedStorage(env, requestOrigin);
}
