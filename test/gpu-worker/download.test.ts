// The worker's download of a customer's video_url (gpu-worker/download.ts), against a server on
// 127.0.0.1 that drops the connection, streams past the cap, or is refused by the address policy.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DownloadLimits } from "../../gpu-worker/config";
import { DownloadError, downloadSource, MAX_SOURCE_BYTES } from "../../gpu-worker/download";

/** Limits no download here comes near: deadlines and rates are slow-source.test.ts's subject. */
const GENEROUS: DownloadLimits = { deadlineMs: 120_000, minBytesPerSecond: 1, rateWindowMs: 60_000 };

const video = randomBytes(300_000);
/** Range header of each request, "whole" when none. */
let requests: string[] = [];
let server: Server;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "download-test-"));
  server = createServer((request, response) => {
    const range = request.headers.range;
    requests.push(range ?? "whole");
    if (request.url === "/drops") {
      const start = Number(range?.match(/^bytes=(\d+)-$/)?.[1] ?? 0);
      if (start === 0) {
        // Half the file, then (once the client has had time to write some of it) the connection is cut.
        response.writeHead(200, { "Content-Type": "video/mp4", "Content-Length": video.length });
        response.write(video.subarray(0, video.length / 2), () =>
          setTimeout(() => response.socket?.destroy(), 300),
        );
        return;
      }
      response.writeHead(206, {
        "Content-Range": `bytes ${start}-${video.length - 1}/${video.length}`,
        "Content-Length": video.length - start,
      });
      response.end(video.subarray(start));
    } else if (request.url === "/grows") {
      // No Content-Length: only counting the bytes as they arrive can stop this one.
      response.writeHead(200, { "Content-Type": "video/mp4" });
      let sent = 0;
      const more = () => {
        while (sent < 4_000_000) {
          sent += 64 * 1024;
          if (!response.write(Buffer.alloc(64 * 1024))) return; // more on "drain"
        }
        response.end();
      };
      response.on("drain", more);
      response.on("close", () => response.off("drain", more));
      more();
    } else {
      response.writeHead(200, { "Content-Length": video.length }).end(video);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  requests = [];
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe("downloadSource", () => {
  it("resumes a dropped connection with a Range request from the bytes on disk, and gets the file whole", async () => {
    const file = path.join(dir, "resumed.mp4");
    expect(await downloadSource(`${base}/drops`, file, { local: true, limits: GENEROUS })).toBe(video.length);
    expect((await readFile(file)).equals(video)).toBe(true);
    // Resumed from what reached the disk (bytes still in flight when the connection broke are fetched again).
    expect(requests).toHaveLength(2);
    const resumedFrom = Number(requests[1]?.match(/^bytes=(\d+)-$/)?.[1]);
    expect(resumedFrom).toBeGreaterThan(0);
    expect(resumedFrom).toBeLessThanOrEqual(video.length / 2);
  });

  it("stops a body that grows past the cap while it downloads (no Content-Length to refuse it up front)", async () => {
    const file = path.join(dir, "grows.mp4");
    const refused = downloadSource(`${base}/grows`, file, {
      local: true,
      limits: GENEROUS,
      maxBytes: 1_000_000,
    });
    await expect(refused).rejects.toBeInstanceOf(DownloadError);
    await expect(refused).rejects.toMatchObject({ code: "video_too_large" });
    expect(requests).toEqual(["whole"]); // given up, not resumed
    expect(MAX_SOURCE_BYTES).toBe(2_000_000_000); // the cap a real download runs under
  });

  it("applies the address policy again when it downloads: production policy refuses loopback before connecting", async () => {
    const refused = downloadSource(`${base}/plain`, path.join(dir, "refused.mp4"), {
      local: false,
      limits: GENEROUS,
    });
    await expect(refused).rejects.toBeInstanceOf(DownloadError);
    await expect(refused).rejects.toMatchObject({ code: "url_not_allowed" });
    expect(requests).toEqual([]);
    // The same address under local policy is fetched: the refusal above was the policy's.
    expect(
      await downloadSource(`${base}/plain`, path.join(dir, "plain.mp4"), { local: true, limits: GENEROUS }),
    ).toBe(video.length);
  });
});
