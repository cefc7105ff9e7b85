import { edgeConfig } from "../config";
import type { Env } from "../env";
import type { MediaStorage, UploadTarget } from "../storage/media-storage";

/** Every part but the last is this long: over S3's 5 MiB minimum, and R2 wants them all equal. */
export const RESULT_PART_BYTES = 16 * 1024 * 1024;
const RESULT_TARGET_TTL_MS = 60 * 60 * 1000;

export interface PartTarget extends UploadTarget {
  part_number: number;
  size_bytes: number;
}

/** What `result-target` answers: one presigned PUT, or a started multipart upload's part addresses. */
export type ResultTarget =
  | UploadTarget
  | { multipart: { upload_id: string; part_size: number; parts: PartTarget[] } };

export async function resultTarget(
  env: Env,
  storage: MediaStorage,
  key: string,
  sizeBytes: number,
): Promise<ResultTarget> {
  const contentType = "video/mp4";
  const expiresAt = Date.now() + RESULT_TARGET_TTL_MS;
  // Larger results go up in parts (MULTIPART_THRESHOLD_BYTES, default 64 MiB; the tests lower it).
  if (sizeBytes <= edgeConfig(env).MULTIPART_THRESHOLD_BYTES) {
    return storage.uploadTarget({ key, contentType, sizeBytes, expiresAt });
  }
  const uploadId = await storage.startMultipart(key, contentType);
  const count = Math.ceil(sizeBytes / RESULT_PART_BYTES);
  const parts = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const partNumber = index + 1;
      const partBytes = Math.min(RESULT_PART_BYTES, sizeBytes - index * RESULT_PART_BYTES);
      const target = await storage.partTarget({ key, uploadId, partNumber, sizeBytes: partBytes, expiresAt });
      return { part_number: partNumber, size_bytes: partBytes, ...target };
    }),
  );
  return { multipart: { upload_id: uploadId, part_size: RESULT_PART_BYTES, parts } };
}
