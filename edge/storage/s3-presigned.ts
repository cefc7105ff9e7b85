import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { MediaStorage } from "./media-storage";

export interface S3Settings {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const secondsUntil = (ms: number) => Math.max(1, Math.floor((ms - Date.now()) / 1000));

/** R2 through its S3 API (region "auto"), presigned with SigV4. */
export function s3PresignedStorage(settings: S3Settings): MediaStorage {
  const client = new S3Client({
    region: "auto",
    endpoint: settings.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Otherwise the SDK bakes the CRC32 of the (absent) body into presigned PUTs, and R2 refuses the
    // real body as a checksum mismatch.
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
  return {
    async uploadTarget(slot) {
      const command = new PutObjectCommand({
        Bucket: settings.bucket,
        Key: slot.key,
        ContentType: slot.contentType,
        ContentLength: slot.sizeBytes,
      });
      // By default the presigner leaves these two unsigned: sign them so the PUT must match.
      const url = await getSignedUrl(client, command, {
        expiresIn: secondsUntil(slot.expiresAt),
        signableHeaders: new Set(["content-type", "content-length"]),
      });
      return { url, headers: { "Content-Type": slot.contentType } };
    },
    async downloadUrl(key, expiresAt, filename) {
      const command = new GetObjectCommand({
        Bucket: settings.bucket,
        Key: key,
        ResponseContentDisposition: contentDisposition(filename),
      });
      return getSignedUrl(client, command, { expiresIn: secondsUntil(expiresAt) });
    },
    async startMultipart(key, contentType) {
      const started = await client.send(
        new CreateMultipartUploadCommand({ Bucket: settings.bucket, Key: key, ContentType: contentType }),
      );
      if (!started.UploadId) throw new Error(`no upload id for ${key}`);
      return started.UploadId;
    },
    async partTarget(part) {
      const command = new UploadPartCommand({
        Bucket: settings.bucket,
        Key: part.key,
        UploadId: part.uploadId,
        PartNumber: part.partNumber,
        ContentLength: part.sizeBytes,
      });
      // The part's length is signed; its Content-Type (the SDK's octet-stream) is left free.
      const url = await getSignedUrl(client, command, {
        expiresIn: secondsUntil(part.expiresAt),
        signableHeaders: new Set(["content-length"]),
      });
      return { url, headers: {} };
    },
    async completeMultipart(key, uploadId, parts) {
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket: settings.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: {
            Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })),
          },
        }),
      );
    },
    async abortMultipart(key, uploadId) {
      await client.send(
        new AbortMultipartUploadCommand({ Bucket: settings.bucket, Key: key, UploadId: uploadId }),
      );
    },
  };
}

/** `attachment; filename="…"` with an ASCII fallback and the UTF-8 form (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
