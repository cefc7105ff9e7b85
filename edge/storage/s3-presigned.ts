import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
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
        // R2 writes only while the key is free: the address cannot replace a file a job already uses.
        IfNoneMatch: "*",
      });
      // By default the presigner leaves these unsigned: sign them so the PUT must match.
      const url = await getSignedUrl(client, command, {
        expiresIn: secondsUntil(slot.expiresAt),
        signableHeaders: new Set(["content-type", "content-length", "if-none-match"]),
      });
      return { url, headers: { "Content-Type": slot.contentType, "If-None-Match": "*" } };
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
    async head(key) {
      try {
        const object = await client.send(new HeadObjectCommand({ Bucket: settings.bucket, Key: key }));
        return {
          sizeBytes: object.ContentLength ?? 0,
          storedAt: object.LastModified?.getTime() ?? Date.now(),
        };
      } catch (error) {
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
          return null;
        throw error;
      }
    },
    async read(key, offset, length) {
      const object = await client.send(
        new GetObjectCommand({
          Bucket: settings.bucket,
          Key: key,
          Range: `bytes=${offset}-${offset + length - 1}`,
        }),
      );
      if (!object.Body) throw new Error(`no object ${key}`);
      return object.Body.transformToByteArray();
    },
    async delete(keys) {
      // One request per key (a sweep deletes at most 50 at once): DeleteObjects would need a body checksum.
      await Promise.all(
        keys.map((key) => client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: key }))),
      );
    },
  };
}

/** `attachment; filename="…"` with an ASCII fallback and the UTF-8 form (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
