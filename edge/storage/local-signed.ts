import type { Env } from "../env";
import { base64Decode, constantTimeEqual, hmacSha256Hex } from "../lib/crypto";
import type { MediaStorage, PartSlot, UploadSlot } from "./media-storage";

export const LOCAL_UPLOAD_PATH = "/storage/upload/";
export const LOCAL_PART_PATH = "/storage/part/";
export const LOCAL_DOWNLOAD_PATH = "/storage/download/";

/** The signing key is derived from DATA_KEY for this one purpose, so no extra secret is needed. */
async function signingKey(dataKey: string): Promise<string> {
  return hmacSha256Hex(base64Decode(dataKey), "adclean local url signing v1");
}

function uploadCanonical(slot: UploadSlot): string {
  return ["PUT", slot.key, slot.contentType, String(slot.sizeBytes), String(slot.expiresAt)].join("\n");
}

// Its own first line, so a part's signature can never pass for a whole upload's.
function partCanonical(part: PartSlot): string {
  return [
    "PUT part",
    part.key,
    part.uploadId,
    String(part.partNumber),
    String(part.sizeBytes),
    String(part.expiresAt),
  ].join("\n");
}

function downloadCanonical(key: string, expiresAt: number, filename: string): string {
  return ["GET", key, String(expiresAt), filename].join("\n");
}

async function signed(dataKey: string, canonical: string, signature: string): Promise<boolean> {
  return constantTimeEqual(await hmacSha256Hex(await signingKey(dataKey), canonical), signature);
}

/** Local mode: addresses of this Worker, signed with DATA_KEY; multipart through the R2 binding. */
export function localSignedStorage(env: Pick<Env, "DATA_KEY" | "BUCKET">, origin: string): MediaStorage {
  const sign = async (canonical: string) => hmacSha256Hex(await signingKey(env.DATA_KEY), canonical);
  return {
    async uploadTarget(slot) {
      const query = new URLSearchParams({
        content_type: slot.contentType,
        size: String(slot.sizeBytes),
        expires: String(slot.expiresAt),
        signature: await sign(uploadCanonical(slot)),
      });
      return {
        url: `${origin}${LOCAL_UPLOAD_PATH}${encodeURIComponent(slot.key)}?${query}`,
        headers: { "Content-Type": slot.contentType },
      };
    },
    async downloadUrl(key, expiresAt, filename) {
      const signature = await sign(downloadCanonical(key, expiresAt, filename));
      const query = new URLSearchParams({ expires: String(expiresAt), filename, signature });
      return `${origin}${LOCAL_DOWNLOAD_PATH}${encodeURIComponent(key)}?${query}`;
    },
    async startMultipart(key, contentType) {
      return (await env.BUCKET.createMultipartUpload(key, { httpMetadata: { contentType } })).uploadId;
    },
    async partTarget(part) {
      const query = new URLSearchParams({
        upload_id: part.uploadId,
        part: String(part.partNumber),
        size: String(part.sizeBytes),
        expires: String(part.expiresAt),
        signature: await sign(partCanonical(part)),
      });
      return { url: `${origin}${LOCAL_PART_PATH}${encodeURIComponent(part.key)}?${query}`, headers: {} };
    },
    async completeMultipart(key, uploadId, parts) {
      // The part address answers with a quoted ETag, as S3 does; the binding wants it bare.
      const bare = parts.map((part) => ({
        partNumber: part.partNumber,
        etag: part.etag.replace(/^"|"$/g, ""),
      }));
      await env.BUCKET.resumeMultipartUpload(key, uploadId).complete(bare);
    },
    async abortMultipart(key, uploadId) {
      await env.BUCKET.resumeMultipartUpload(key, uploadId).abort();
    },
    async head(key) {
      const object = await env.BUCKET.head(key);
      return object && { sizeBytes: object.size, storedAt: object.uploaded.getTime() };
    },
    async read(key, offset, length) {
      const object = await env.BUCKET.get(key, { range: { offset, length } });
      if (!object) throw new Error(`no object ${key}`);
      return new Uint8Array(await object.arrayBuffer());
    },
    async delete(keys) {
      if (keys.length > 0) await env.BUCKET.delete(keys);
    },
  };
}

export function verifyUploadSignature(
  dataKey: string,
  slot: UploadSlot,
  signature: string,
): Promise<boolean> {
  return signed(dataKey, uploadCanonical(slot), signature);
}

export function verifyPartSignature(dataKey: string, part: PartSlot, signature: string): Promise<boolean> {
  return signed(dataKey, partCanonical(part), signature);
}

export function verifyDownloadSignature(
  dataKey: string,
  key: string,
  expiresAt: number,
  filename: string,
  signature: string,
): Promise<boolean> {
  return signed(dataKey, downloadCanonical(key, expiresAt, filename), signature);
}
