import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startFileServer } from "../fixtures/file-server";
import { makeVideoFixtures } from "../fixtures/media";
import { S3RVER_KEY, startS3Server } from "../helpers/s3-server";

/** The bucket of the s3rver stand-in for R2's S3 API (uploads-s3.test.ts). */
const S3_TEST_BUCKET = "adclean-media-test";

/** Runs in Node before the workerd tests: real MP4s made by ffmpeg, served on 127.0.0.1. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), "adclean-fixtures-"));
  makeVideoFixtures(dir);
  const server = await startFileServer(dir);
  project.provide("fixturesUrl", server.url);
  const s3 = await startS3Server(S3_TEST_BUCKET);
  project.provide("s3", {
    endpoint: s3.endpoint,
    s3rverEndpoint: s3.s3rverEndpoint,
    bucket: S3_TEST_BUCKET,
    key: S3RVER_KEY,
  });
  return async () => {
    await s3.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    fixturesUrl: string;
    /** s3rver behind its SigV4 check (`endpoint`), s3rver itself, its bucket and its one key (id and secret). */
    s3: { endpoint: string; s3rverEndpoint: string; bucket: string; key: string };
  }
}
