import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MediaStorage, UploadedPart, UploadTarget } from "../../edge/storage/media-storage";
import { s3PresignedStorage } from "../../edge/storage/s3-presigned";
import { S3RVER_KEY, type S3TestServer, startS3Server } from "../helpers/s3-server";

const BUCKET = "adclean-media-test";

const put = (target: UploadTarget, body: Buffer, headers: Record<string, string> = target.headers) =>
  fetch(target.url, { method: "PUT", headers, body });

const storageAt = (endpoint: string): MediaStorage =>
  s3PresignedStorage({ endpoint, bucket: BUCKET, accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY });

/** Swaps the signature's last hex digit. */
function tampered(url: string): string {
  return url.replace(
    /(X-Amz-Signature=[0-9a-f]*)([0-9a-f])/,
    (_, head: string, last: string) => head + (last === "0" ? "1" : "0"),
  );
}

describe("R2 presigned uploads and downloads through the S3 API (s3rver)", () => {
  let server: S3TestServer;
  let storage: MediaStorage;
  const file = randomBytes(200_000);
  const slot = (key: string, expiresInMs = 600_000) => ({
    key,
    contentType: "video/mp4",
    sizeBytes: file.length,
    expiresAt: Date.now() + expiresInMs,
  });

  beforeAll(async () => {
    server = await startS3Server(BUCKET);
    storage = storageAt(server.endpoint);
  });
  afterAll(async () => {
    await server?.close();
  });
  // Every refusal and acceptance below was judged by two SigV4 verifiers: they must have agreed.
  afterEach(() => {
    expect(server.disagreements).toEqual([]);
  });

  it("stores a PUT made with the upload URL and its headers, and a presigned GET reads it back byte for byte", async () => {
    const target = await storage.uploadTarget(slot("uploads/ws_1/up_ok/ad.mp4"));
    expect(target.headers).toEqual({ "Content-Type": "video/mp4", "If-None-Match": "*" });
    expect(new URL(target.url).searchParams.get("X-Amz-SignedHeaders")).toBe(
      "content-length;content-type;host;if-none-match",
    );
    const stored = await put(target, file);
    expect(stored.status).toBe(200);

    const url = await storage.downloadUrl(
      "uploads/ws_1/up_ok/ad.mp4",
      Date.now() + 3_600_000,
      "ad-clean.mp4",
    );
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("video/mp4");
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="ad-clean.mp4"; filename*=UTF-8''ad-clean.mp4`,
    );
    expect(Buffer.from(await download.arrayBuffer()).equals(file)).toBe(true);
  });

  it("refuses a body of another size (Content-Length is signed)", async () => {
    const target = await storage.uploadTarget(slot("uploads/ws_1/up_size/ad.mp4"));
    expect((await put(target, file.subarray(0, file.length - 1))).status).toBe(403);
    expect((await put(target, Buffer.concat([file, Buffer.from("x")]))).status).toBe(403);
    expect(
      (await fetch(await storage.downloadUrl("uploads/ws_1/up_size/ad.mp4", Date.now() + 60_000, "a.mp4")))
        .status,
    ).toBe(404);
  });

  it("refuses another Content-Type (it is signed)", async () => {
    const target = await storage.uploadTarget(slot("uploads/ws_1/up_type/ad.mp4"));
    expect((await put(target, file, { ...target.headers, "Content-Type": "video/quicktime" })).status).toBe(
      403,
    );
    expect((await put(target, file, {})).status).toBe(403);
  });

  it("refuses a tampered signature, for PUT and GET", async () => {
    const target = await storage.uploadTarget(slot("uploads/ws_1/up_tamper/ad.mp4"));
    expect((await put({ ...target, url: tampered(target.url) }, file)).status).toBe(403);
    const url = await storage.downloadUrl("uploads/ws_1/up_ok/ad.mp4", Date.now() + 60_000, "a.mp4");
    expect((await fetch(tampered(url))).status).toBe(403);
    expect((await fetch(url)).status).toBe(200);
  });

  it("refuses a PUT and a GET once their address has expired (s3rver's own check)", async () => {
    // One second of validity (the shortest the presigner gives), then wait it out.
    const target = await storage.uploadTarget(slot("uploads/ws_1/up_late/ad.mp4", 1500));
    const url = await storage.downloadUrl("uploads/ws_1/up_ok/ad.mp4", Date.now() + 1500, "a.mp4");
    expect(new URL(target.url).searchParams.get("X-Amz-Expires")).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const late = await put(target, file);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain("Request has expired");
    expect((await fetch(url)).status).toBe(403);
  });

  it("uploads a result in parts to presigned part addresses (length signed), completes it, and reads it back whole", async () => {
    const key = "results/ws_1/job_parts/clean.mp4";
    const whole = randomBytes(5 * 1024 * 1024 + 70_000); // S3's smallest part (5 MiB), then the rest
    const pieces = [whole.subarray(0, 5 * 1024 * 1024), whole.subarray(5 * 1024 * 1024)];
    const uploadId = await storage.startMultipart(key, "video/mp4");
    const parts: UploadedPart[] = [];
    for (const [index, piece] of pieces.entries()) {
      const part = {
        key,
        uploadId,
        partNumber: index + 1,
        sizeBytes: piece.length,
        expiresAt: Date.now() + 600_000,
      };
      const target = await storage.partTarget(part);
      expect(new URL(target.url).searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;host");
      expect((await put(target, piece.subarray(1))).status).toBe(403);
      const stored = await put(target, piece);
      expect(stored.status).toBe(200);
      parts.push({ partNumber: part.partNumber, etag: stored.headers.get("etag") as string });
    }
    await storage.completeMultipart(key, uploadId, parts);
    const download = await fetch(await storage.downloadUrl(key, Date.now() + 60_000, "clean.mp4"));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(whole)).toBe(true);
  });

  it("documents why the signature check sits in front: s3rver alone takes any SigV4 signature", async () => {
    const bare = storageAt(server.s3rverEndpoint);
    const target = await bare.uploadTarget(slot("uploads/ws_1/up_bare/ad.mp4"));
    expect(
      (await put({ ...target, url: tampered(target.url) }, file, { "Content-Type": "text/plain" })).status,
    ).toBe(200);
  });
});
