import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { database } from "../db/client";
import { uploads } from "../db/schema";
import type { AppBindings } from "../env";
import { ApiError } from "../lib/errors";
import {
  LOCAL_DOWNLOAD_PATH,
  LOCAL_PART_PATH,
  LOCAL_UPLOAD_PATH,
  verifyDownloadSignature,
  verifyPartSignature,
  verifyUploadSignature,
} from "./local-signed";
import { contentDisposition } from "./s3-presigned";

/** Parses "bytes=a-b" / "bytes=a-" / "bytes=-n" against an object size; null for no or an odd header. */
export function parseRange(
  header: string | undefined,
  size: number,
): { offset: number; length: number } | null {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Math.min(Number(match[2]), size);
    return { offset: size - suffix, length: suffix };
  }
  const offset = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (offset >= size || end < offset) return null;
  return { offset, length: end - offset + 1 };
}

/**
 * The object key of a local storage address (encoded as one path segment). Broken percent-encoding
 * cannot be an address this Worker signed: refused as such, not a 500.
 */
function keyFrom(url: string, prefix: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(prefix.length));
  } catch {
    throw new ApiError("signature_invalid", "This storage address was not signed by the service.");
  }
}

/** A PUT must announce exactly the signed length (a chunked body has no Content-Length and fails too). */
function requireLength(contentLength: string | undefined, sizeBytes: number): void {
  if (contentLength !== String(sizeBytes)) {
    throw new ApiError(
      "invalid_parameter",
      `The body must be exactly ${sizeBytes} bytes, as declared.`,
      "Content-Length",
    );
  }
}

/**
 * Local mode's stand-in for R2's presigned S3 addresses: the Worker checks the signature, expiry,
 * type and length itself and streams the body into (or out of) the R2 binding.
 */
export const localStorageRoutes = new Hono<AppBindings>()
  .put(`${LOCAL_UPLOAD_PATH}*`, async (c) => {
    const key = keyFrom(c.req.url, LOCAL_UPLOAD_PATH);
    const contentType = c.req.query("content_type") ?? "";
    const sizeBytes = Number(c.req.query("size"));
    const expiresAt = Number(c.req.query("expires"));
    const slot = { key, contentType, sizeBytes, expiresAt };
    if (!(await verifyUploadSignature(c.env.DATA_KEY, slot, c.req.query("signature") ?? ""))) {
      throw new ApiError("signature_invalid", "The upload URL's signature does not match.");
    }
    if (Date.now() > expiresAt) {
      throw new ApiError("signature_invalid", "The upload URL has expired: create a new upload.");
    }
    if (c.req.header("Content-Type") !== contentType) {
      throw new ApiError(
        "invalid_parameter",
        `Content-Type must be ${contentType}, as declared.`,
        "Content-Type",
      );
    }
    requireLength(c.req.header("Content-Length"), sizeBytes);
    if (await c.env.BUCKET.head(key)) {
      throw new ApiError("upload_already_received", "This upload's file was already received.");
    }
    const stored = await c.env.BUCKET.put(key, c.req.raw.body, { httpMetadata: { contentType } });
    if (stored.size !== sizeBytes) {
      await c.env.BUCKET.delete(key);
      throw new ApiError(
        "invalid_parameter",
        `The body must be exactly ${sizeBytes} bytes.`,
        "Content-Length",
      );
    }
    await database(c.env.DB)
      .update(uploads)
      .set({ receivedAt: Date.now() })
      .where(eq(uploads.objectKey, key));
    return c.body(null, 200, { ETag: stored.httpEtag });
  })
  .put(`${LOCAL_PART_PATH}*`, async (c) => {
    const part = {
      key: keyFrom(c.req.url, LOCAL_PART_PATH),
      uploadId: c.req.query("upload_id") ?? "",
      partNumber: Number(c.req.query("part")),
      sizeBytes: Number(c.req.query("size")),
      expiresAt: Number(c.req.query("expires")),
    };
    if (!(await verifyPartSignature(c.env.DATA_KEY, part, c.req.query("signature") ?? ""))) {
      throw new ApiError("signature_invalid", "The part URL's signature does not match.");
    }
    if (Date.now() > part.expiresAt) {
      throw new ApiError("signature_invalid", "The part URL has expired: ask for a new result target.");
    }
    requireLength(c.req.header("Content-Length"), part.sizeBytes);
    const uploaded = await c.env.BUCKET.resumeMultipartUpload(part.key, part.uploadId).uploadPart(
      part.partNumber,
      c.req.raw.body ?? new Uint8Array(),
    );
    // Quoted like S3's answer, so the GPU worker handles both alike.
    return c.body(null, 200, { ETag: `"${uploaded.etag}"` });
  })
  .get(`${LOCAL_DOWNLOAD_PATH}*`, async (c) => {
    const key = keyFrom(c.req.url, LOCAL_DOWNLOAD_PATH);
    const expiresAt = Number(c.req.query("expires"));
    const filename = c.req.query("filename") ?? "video.mp4";
    if (
      !(await verifyDownloadSignature(
        c.env.DATA_KEY,
        key,
        expiresAt,
        filename,
        c.req.query("signature") ?? "",
      ))
    ) {
      throw new ApiError("signature_invalid", "The download URL's signature does not match.");
    }
    if (Date.now() > expiresAt) {
      throw new ApiError(
        "signature_invalid",
        "The download URL has expired: GET the job again for a fresh one.",
      );
    }
    const head = await c.env.BUCKET.head(key);
    if (!head) throw new ApiError("resource_not_found", "The file is no longer stored.");
    const range = parseRange(c.req.header("Range"), head.size);
    const object = await c.env.BUCKET.get(key, range ? { range } : {});
    if (!object || !("body" in object))
      throw new ApiError("resource_not_found", "The file is no longer stored.");
    const headers: Record<string, string> = {
      "Content-Type": head.httpMetadata?.contentType ?? "video/mp4",
      "Content-Disposition": contentDisposition(filename),
      "Accept-Ranges": "bytes",
      ETag: head.httpEtag,
    };
    if (!range) return c.body(object.body, 200, { ...headers, "Content-Length": String(head.size) });
    return c.body(object.body, 206, {
      ...headers,
      "Content-Length": String(range.length),
      "Content-Range": `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`,
    });
  });
