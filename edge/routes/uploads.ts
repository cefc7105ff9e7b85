import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import type { AppBindings } from "../env";
import type { AuthContext } from "../middleware/auth";
import { errorResponses, jsonResponse } from "../schemas/common";
import { IdempotencyHeaderSchema } from "../schemas/jobs";
import { UploadCreateSchema, UploadSchema } from "../schemas/uploads";
import { createUpload } from "../services/uploads";
import { mediaStorage } from "../storage/media-storage";
import { sendCreated } from "./respond";

const create = createRoute({
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

export const uploadRoutes = new OpenAPIHono<AppBindings>().openapi(create, async (c) => {
  const { workspace } = c.var.auth as AuthContext;
  const answer = await createUpload(c.env, mediaStorage(c.env, new URL(c.req.url).origin), {
    workspace,
    body: c.req.valid("json"),
    idempotencyKey: c.req.valid("header")["idempotency-key"],
  });
  return sendCreated<z.infer<typeof UploadSchema>>(c, answer);
});
