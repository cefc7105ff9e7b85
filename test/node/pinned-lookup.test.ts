// The GPU worker connects only to addresses it checked (issue 23, item 11): a name that resolves to
// a public address for the URL check and to 169.254.169.254 for the connection is refused before
// any socket opens. Decisions with a stub resolver; the only traffic is to 127.0.0.1.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DownloadError, downloadSource } from "../../gpu-worker/download";
import { type Resolver, sourceUrlPolicy } from "../../gpu-worker/pinned-fetch";
import { safeFetch, UrlNotAllowedError } from "../../shared-lib/url-policy";

const dir = mkdtempSync(path.join(tmpdir(), "adclean-pinned-"));
let server: Server;
let port: number;
let requests = 0;

/** A resolver that gives each answer in turn (the last one from then on), counting the questions. */
function rebinding(...answers: string[][]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = answers[Math.min(asked.length, answers.length) - 1] ?? [];
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

beforeAll(async () => {
  server = createServer((_request, response) => {
    requests++;
    response.writeHead(200, { "Content-Type": "video/mp4", "Content-Length": 4 });
    response.end("MP4!");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("the worker's connections resolve through a lookup that checks each address", () => {
  it("production: public for the check, 169.254.169.254 for the connection: refused, no socket opened", async () => {
    const resolve = rebinding(["93.184.216.34"], ["169.254.169.254"]);
    const refused = safeFetch("https://videos.example.com/ad.mp4", {}, sourceUrlPolicy(false, resolve));
    await expect(refused).rejects.toBeInstanceOf(UrlNotAllowedError);
    await expect(refused).rejects.toThrow("private or reserved address");
    // Asked twice: once by the URL check, once by the connection, which refused what it got.
    expect(resolve.asked).toEqual(["videos.example.com", "videos.example.com"]);
  });

  it("production: one public and one private answer for the connection is refused too", async () => {
    const resolve = rebinding(["93.184.216.34"], ["93.184.216.34", "10.0.0.5"]);
    await expect(
      safeFetch("https://videos.example.com/ad.mp4", {}, sourceUrlPolicy(false, resolve)),
    ).rejects.toBeInstanceOf(UrlNotAllowedError);
  });

  it("local mode: localhost answering loopback connects; answering the metadata address does not", async () => {
    const before = requests;
    const loopback = rebinding(["127.0.0.1"]);
    const response = await safeFetch(`http://localhost:${port}/ad.mp4`, {}, sourceUrlPolicy(true, loopback));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("MP4!");
    expect(loopback.asked).toEqual(["localhost"]);
    const metadata = rebinding(["169.254.169.254"]);
    await expect(
      safeFetch(`http://localhost:${port}/ad.mp4`, {}, sourceUrlPolicy(true, metadata)),
    ).rejects.toBeInstanceOf(UrlNotAllowedError);
    expect(requests).toBe(before + 1);
  });

  it("a download whose connection resolves to 169.254.169.254 fails with url_not_allowed", async () => {
    const download = downloadSource(`http://localhost:${port}/ad.mp4`, path.join(dir, "ad.mp4"), {
      local: true,
      limits: { deadlineMs: 10_000, minBytesPerSecond: 1, rateWindowMs: 5000 },
      resolve: rebinding(["169.254.169.254"]),
    });
    await expect(download).rejects.toBeInstanceOf(DownloadError);
    await expect(download).rejects.toMatchObject({ code: "url_not_allowed" });
  });
});
