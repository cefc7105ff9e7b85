import { base64Decode, constantTimeEqual, hmacSha256Hex } from "../lib/crypto";
import type { MediaStorage, UploadSlot } from "./media-storage";

export const LOCAL_UPLOAD_PATH = "/storage/upload/";
export const LOCAL_DOWNLOAD_PATH = "/storage/download/";

/** The signing key is derived from DATA_KEY for this one purpose, so no extra secret is needed. */
async function signingKey(dataKey: string): Promise<string> {
  return hmacSha256Hex(base64Decode(dataKey), "adclean local url signing v1");
}

function uploadCanonical(slot: UploadSlot): string {
  return ["PUT", slot.key, slot.contentType, String(slot.sizeBytes), String(slot.expiresAt)].join("\n");
}

function downloadCanonical(key: string, expiresAt: number, filename: string): string {
  return ["GET", key, String(expiresAt), filename].join("\n");
}

export function localSignedStorage(dataKey: string, origin: string): MediaStorage {
  return {
    async uploadTarget(slot) {
      const signature = await hmacSha256Hex(await signingKey(dataKey), uploadCanonical(slot));
      const query = new URLSearchParams({
        content_type: slot.contentType,
        size: String(slot.sizeBytes),
        expires: String(slot.expiresAt),
        signature,
      });
      return {
        url: `${origin}${LOCAL_UPLOAD_PATH}${encodeURIComponent(slot.key)}?${query}`,
        headers: { "Content-Type": slot.contentType },
      };
    },
    async downloadUrl(key, expiresAt, filename) {
      const signature = await hmacSha256Hex(
        await signingKey(dataKey),
        downloadCanonical(key, expiresAt, filename),
      );
      const query = new URLSearchParams({ expires: String(expiresAt), filename, signature });
      return `${origin}${LOCAL_DOWNLOAD_PATH}${encodeURIComponent(key)}?${query}`;
    },
  };
}

export async function verifyUploadSignature(
  dataKey: string,
  slot: UploadSlot,
  signature: string,
): Promise<boolean> {
  const expected = await hmacSha256Hex(await signingKey(dataKey), uploadCanonical(slot));
  return constantTimeEqual(expected, signature);
}

export async function verifyDownloadSignature(
  dataKey: string,
  key: string,
  expiresAt: number,
  filename: string,
  signature: string,
): Promise<boolean> {
  const expected = await hmacSha256Hex(
    await signingKey(dataKey),
    downloadCanonical(key, expiresAt, filename),
  );
  return constantTimeEqual(expected, signature);
}
