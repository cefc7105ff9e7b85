import type { z } from "zod";
import { UploadCreateSchema, type UploadSchema } from "../../schemas/uploads";
import { createUpload } from "../../services/uploads";
import { defineTool } from "../tool";
import { idempotencyKey, replayNote } from "./idempotency";

export const createUploadTool = defineTool({
  name: "create_upload",
  endpoint: "POST /v1/uploads",
  description:
    "Reserve an upload slot for a video file you hold (use create_job with video_url instead when the video is at a " +
    "public URL). Returns upload_url, method PUT and headers: send the file's bytes there with an HTTP PUT carrying " +
    "exactly those headers and a body of exactly size_bytes bytes, within one hour (expires_at). Then call create_job " +
    "with the upload's id as upload_id.",
  input: UploadCreateSchema.extend({
    filename: UploadCreateSchema.shape.filename.describe(
      "Name of the file, e.g. spring-ad.mp4 (1 to 200 characters)",
    ),
    content_type: UploadCreateSchema.shape.content_type.describe("MIME type of the file"),
    size_bytes: UploadCreateSchema.shape.size_bytes.describe(
      "Exact size of the file in bytes, up to 2000000000",
    ),
    idempotency_key: idempotencyKey,
  }),
  async run({ idempotency_key, ...body }, call) {
    const answer = await createUpload(call.env, call.storage, {
      workspace: call.workspace,
      body,
      idempotencyKey: idempotency_key,
    });
    const upload = JSON.parse(answer.body) as z.infer<typeof UploadSchema>;
    const headers = Object.entries(upload.headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join(", ");
    return {
      summary:
        `Upload ${upload.id} is ready${replayNote(answer)}. Now PUT the file (exactly ${body.size_bytes} bytes) to ` +
        `${upload.upload_url} with the headers ${headers} before ${upload.expires_at}, then call create_job with ` +
        `upload_id ${upload.id}.`,
      value: upload,
    };
  },
});
