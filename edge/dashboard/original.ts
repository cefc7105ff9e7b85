import { and, eq } from "drizzle-orm";
import { database } from "../db/client";
import { uploads } from "../db/schema";
import type { Env } from "../env";
import { type JobRow, RESULT_URL_TTL_MS } from "../services/job-view";
import type { MediaStorage } from "../storage/media-storage";

/**
 * Where the "before" video plays from: a presigned GET of the uploaded file (valid one hour, like
 * result addresses), or the job's own video_url.
 */
export async function originalUrl(env: Env, storage: MediaStorage, row: JobRow): Promise<string | null> {
  if (row.videoUrl) return row.videoUrl;
  if (!row.uploadId) return null;
  const [upload] = await database(env.DB)
    .select({ objectKey: uploads.objectKey, filename: uploads.filename })
    .from(uploads)
    .where(and(eq(uploads.id, row.uploadId), eq(uploads.workspaceId, row.workspaceId)))
    .limit(1);
  if (!upload) return null;
  return storage.downloadUrl(upload.objectKey, Date.now() + RESULT_URL_TTL_MS, upload.filename);
}
