import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startFileServer } from "../fixtures/file-server";
import { makeVideoFixtures } from "../fixtures/media";

/** Runs in Node before the workerd tests: real MP4s made by ffmpeg, served on 127.0.0.1. */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), "adclean-fixtures-"));
  makeVideoFixtures(dir);
  const server = await startFileServer(dir);
  project.provide("fixturesUrl", server.url);
  return async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    fixturesUrl: string;
  }
}
