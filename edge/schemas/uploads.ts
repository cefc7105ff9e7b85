import { z } from "@hono/zod-openapi";

export const UPLOAD_CONTENT_TYPES = ["video/mp4", "video/quicktime", "video/x-m4v"] as const;
/** 2,000,000,000 bytes (spec, Limits). */
export const MAX_FILE_BYTES = 2_000_000_000;

export const UploadCreateSchema = z
  .object({
    filename: z.string().min(1).max(200),
    content_type: z.enum(UPLOAD_CONTENT_TYPES, {
      error: "content_type must be one of video/mp4, video/quicktime, video/x-m4v",
    }),
    // The 413 for sizes over the limit is raised by the handler: here only the shape is checked.
    size_bytes: z.number().int().min(1),
  })
  .strict()
  .openapi("UploadCreate");

export const UploadSchema = z
  .object({
    id: z.string().openapi({ example: "up_4fQ2m9TqZkP1xW8bL0aYcD3e" }),
    object: z.literal("upload"),
    upload_url: z.url(),
    method: z.literal("PUT"),
    headers: z.record(z.string(), z.string()).openapi({
      description: "Headers to send with the PUT: always Content-Type (the declared type).",
    }),
    expires_at: z.iso.datetime(),
  })
  .openapi("Upload");
