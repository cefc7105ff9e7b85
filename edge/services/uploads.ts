import type { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import { requestFingerprint } from "../lib/canonical-json";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { MAX_FILE_BYTES, type UploadCreateSchema } from "../schemas/uploads";
import type { MediaStorage } from "../storage/media-storage";
import { workspaceObject } from "../workspace/stub";
import { answerOrThrow, type CreatedAnswer } from "./jobs";
import type { WorkspaceRecord } from "./workspaces";

/** The file must arrive within one hour (spec). */
export const UPLOAD_WINDOW_MS = 60 * 60 * 1000;
const SCOPE = "POST /v1/uploads";

export interface CreateUploadRequest {
  workspace: WorkspaceRecord;
  body: z.infer<typeof UploadCreateSchema>;
  idempotencyKey?: string | undefined;
}

/**
 * POST /v1/uploads for every source (API, MCP): presigns the PUT address and lets the workspace
 * object record the upload (and keep the answer under the Idempotency-Key).
 */
export async function createUpload(
  env: Env,
  storage: MediaStorage,
  request: CreateUploadRequest,
): Promise<CreatedAnswer> {
  const { workspace, body, idempotencyKey } = request;
  if (body.size_bytes > MAX_FILE_BYTES) {
    throw new ApiError("video_too_large", "size_bytes is over 2,000,000,000 bytes (2 GB).", "size_bytes");
  }
  const id = newId("up");
  const now = Date.now();
  const expiresAt = now + UPLOAD_WINDOW_MS;
  const objectKey = `uploads/${workspace.id}/${id}`;
  const target = await storage.uploadTarget({
    key: objectKey,
    contentType: body.content_type,
    sizeBytes: body.size_bytes,
    expiresAt,
  });
  const upload = {
    id,
    object: "upload" as const,
    upload_url: target.url,
    method: "PUT" as const,
    headers: target.headers,
    expires_at: new Date(expiresAt).toISOString(),
  };
  const row = {
    id,
    workspaceId: workspace.id,
    filename: body.filename,
    contentType: body.content_type,
    sizeBytes: body.size_bytes,
    objectKey,
    createdAt: now,
    expiresAt,
  };
  const idempotency = idempotencyKey
    ? { scope: SCOPE, key: idempotencyKey, fingerprint: await requestFingerprint(SCOPE, body) }
    : undefined;
  const outcome = await workspaceObject(env, workspace.id).createUpload(
    row,
    JSON.stringify(upload),
    idempotency,
  );
  return answerOrThrow(outcome);
}
