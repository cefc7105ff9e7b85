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

/**
 * Presigned addresses for uploads and results. Production signs R2's S3 API (content type and
 * length bound into the signature); local mode signs addresses of this Worker, which streams the
 * body into the R2 binding. Callers do not know which.
 */
export interface MediaStorage {
  uploadTarget(slot: UploadSlot): Promise<UploadTarget>;
  downloadUrl(key: string, expiresAt: number, filename: string): Promise<string>;
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
  return localSignedStorage(env.DATA_KEY, requestOrigin);
}
