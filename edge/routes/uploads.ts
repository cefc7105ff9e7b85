import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import type { AppBindings } from "../env";
import { requestFingerprint } from "../lib/canonical-json";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { AuthContext } from "../middleware/auth";
import { errorResponses, jsonResponse } from "../schemas/common";
import { IdempotencyHeaderSchema } from "../schemas/jobs";
import { MAX_FILE_BYTES, UploadCreateSchema, UploadSchema } from "../schemas/uploads";
import { answerOrThrow } from "../services/jobs";
import { mediaStorage } from "../storage/media-storage";
import { workspaceObject } from "../workspace/stub";
import { sendCreated } from "./respond";

/** The file must arrive within one hour (spec). */
export const UPLOAD_WINDOW_MS = 60 * 60 * 1000;
const SCOPE = "POST /v1/uploads";

const createUpload = createRoute({
  method: "post",
  path: "/v1/uploads",
  tags: ["Uploads"],
  summary: "Create an upload slot, then PUT the file to upload_url",
  request: {
    headers: IdempotencyHeaderSchema,
    body: { required: true, content: { "application/json": { schema: UploadCreateSchema } } },
  },
  responses: {
    201: jsonResponse(UploadSchema, "The upload slot"),
    ...errorResponses(400, 403, 409, 413),
  },
});

export const uploadRoutes = new OpenAPIHono<AppBindings>().openapi(createUpload, async (c) => {
  const { workspace } = c.var.auth as AuthContext;
  const body = c.req.valid("json");
  const idempotencyKey = c.req.valid("header")["idempotency-key"];
  if (body.size_bytes > MAX_FILE_BYTES) {
    throw new ApiError("video_too_large", "size_bytes is over 2,000,000,000 bytes (2 GB).", "size_bytes");
  }
  const id = newId("up");
  const now = Date.now();
  const expiresAt = now + UPLOAD_WINDOW_MS;
  const objectKey = `uploads/${workspace.id}/${id}`;
  const target = await mediaStorage(c.env, new URL(c.req.url).origin).uploadTarget({
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
  const outcome = await workspaceObject(c.env, workspace.id).createUpload(
    row,
    JSON.stringify(upload),
    idempotency,
  );
  return sendCreated<z.infer<typeof UploadSchema>>(c, answerOrThrow(outcome));
});
