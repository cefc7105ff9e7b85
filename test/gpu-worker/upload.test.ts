import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../gpu-worker/config";
import { EdgeClient } from "../../gpu-worker/edge-client";
import { uploadResult } from "../../gpu-worker/upload";

const FILE_BYTES = Buffer.from("0123456789");
const PART_SIZE = 4;

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A loopback stand-in for the edge's internal API and the storage's part addresses. */
function fakeEdge(refusedPart?: number) {
  const seen = {
    parts: new Map<number, { length: string | undefined; bytes: Buffer }>(),
    completed: null as unknown,
    aborted: null as unknown,
  };
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const url = new URL(request.url ?? "/", "http://x");
    const part = url.pathname.match(/^\/part\/(\d+)$/);
    if (part) {
      const number = Number(part[1]);
      if (number === refusedPart) return response.writeHead(403).end("refused");
      seen.parts.set(number, { length: request.headers["content-length"], bytes: body });
      return response.writeHead(200, { ETag: `"etag-${number}"` }).end();
    }
    if (url.pathname.endsWith("/result-target")) {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const parts = [4, 4, 2].map((size, index) => ({
        part_number: index + 1,
        size_bytes: size,
        url: `${origin}/part/${index + 1}`,
        headers: {},
      }));
      return response.end(JSON.stringify({ multipart: { upload_id: "up-1", part_size: PART_SIZE, parts } }));
    }
    if (url.pathname.endsWith("/result-complete")) seen.completed = JSON.parse(String(body));
    if (url.pathname.endsWith("/result-abort")) seen.aborted = JSON.parse(String(body));
    response.end("{}");
  });
  return { server, seen };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("uploadResult (multipart)", () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "adclean-upload-"));
    file = path.join(dir, "clean.mp4");
    await writeFile(file, FILE_BYTES);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("streams each part's byte range with its length, then completes with the ETags", async () => {
    const { server, seen } = fakeEdge();
    const client = new EdgeClient(loadConfig({ EDGE_URL: await listen(server), WORKER_SECRET: "s" }));
    try {
      await uploadResult(client, "job_1", file, FILE_BYTES.length, new AbortController().signal);
    } finally {
      server.close();
    }
    expect([...seen.parts.entries()].map(([n, p]) => [n, p.length, String(p.bytes)])).toEqual([
      [1, "4", "0123"],
      [2, "4", "4567"],
      [3, "2", "89"],
    ]);
    expect(seen.completed).toMatchObject({
      upload_id: "up-1",
      parts: [1, 2, 3].map((n) => ({ part_number: n, etag: `"etag-${n}"` })),
    });
    expect(seen.aborted).toBeNull();
  });

  it("aborts the upload when a part is refused, and completes nothing", async () => {
    const { server, seen } = fakeEdge(2);
    const client = new EdgeClient(loadConfig({ EDGE_URL: await listen(server), WORKER_SECRET: "s" }));
    try {
      await expect(
        uploadResult(client, "job_1", file, FILE_BYTES.length, new AbortController().signal),
      ).rejects.toThrow(/HTTP 403/);
    } finally {
      server.close();
    }
    expect(seen.completed).toBeNull();
    expect(seen.aborted).toMatchObject({ upload_id: "up-1" });
  });
});
