// Every refusal here is a decision: production checks get a fake resolver and a fake fetch, and the only real
// requests go to the loopback servers this file starts on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type AddressKind,
  checkUrl,
  classifyAddress,
  safeFetch,
  UrlNotAllowedError,
  type UrlPolicy,
} from "../../shared-lib/url-policy";

const LOCAL: UrlPolicy = { local: true };
const PUBLIC_ADDRESS = "93.184.215.14";

/** A fake resolver: answers from the table, records every name it is asked about. */
function fakeResolver(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    return answers[hostname] ?? [];
  };
  return { asked, resolve };
}

function production(answers: Record<string, string[]> = {}): UrlPolicy {
  return { local: false, resolve: fakeResolver(answers).resolve };
}

describe("classifyAddress", () => {
  const table: [string, AddressKind][] = [
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["0.0.0.0", "unspecified"],
    ["0.255.255.255", "unspecified"],
    ["10.0.0.0", "private"],
    ["10.255.255.255", "private"],
    ["100.63.255.255", "public"],
    ["100.64.0.0", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.128.0.0", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link_local"],
    ["169.254.0.0", "link_local"],
    ["172.15.255.255", "public"],
    ["172.16.0.0", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.0", "public"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.1", "documentation"],
    ["192.88.99.1", "reserved"],
    ["192.168.0.1", "private"],
    ["192.168.255.255", "private"],
    ["198.17.255.255", "public"],
    ["198.18.0.0", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.20.0.0", "public"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["223.255.255.255", "public"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.255", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.254", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["2606:4700::1111", "public"],
    ["[2606:4700:4700::1111]", "public"],
    ["::", "unspecified"],
    ["[::]", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["::ffff:a9fe:a9fe", "link_local"],
    ["::ffff:8.8.8.8", "public"],
    ["::ffff:10.1.2.3", "private"],
    ["64:ff9b::a9fe:a9fe", "link_local"],
    ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b::c0a8:101", "private"],
    ["::7f00:1", "loopback"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b:1::1", "reserved"],
    ["100::1", "reserved"],
    ["2001::1", "reserved"],
    ["2001:1ff:ffff::1", "reserved"],
    ["2001:2::1", "benchmarking"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["2002:7f00:1::1", "reserved"],
    ["fc00::1", "unique_local"],
    ["fd00:ec2::254", "unique_local"],
    ["fe80::1", "link_local"],
    ["febf:ffff::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["[fe80::1%eth0]", "link_local"],
    ["fec0::1", "reserved"],
    ["ff02::1", "multicast"],
    ["4000::1", "reserved"],
  ];

  it.each(table)("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  const notAddresses = [
    "",
    "example.com",
    "localhost",
    "1.2.3",
    "1.2.3.4.5",
    "256.0.0.1",
    "0177.0.0.1",
    "2130706433",
    "0x7f.0.0.1",
    "127.0.0.1 ",
    "[127.0.0.1]",
    "127.0.0.1%eth0",
    "[::1",
    "::1]",
    ":::",
    "1::2::3",
    "12345::",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8::",
    "::ffff:1.2.3",
    "1.2.3.4::",
    "fe80::1%",
    "fe80::1%a%b",
    "g::1",
  ];

  it.each(notAddresses)("%j is not an address", (text) => {
    expect(classifyAddress(text)).toBeNull();
  });
});

async function expectRefused(raw: string, policy: UrlPolicy, message?: string): Promise<void> {
  const check = checkUrl(raw, policy);
  await expect(check).rejects.toBeInstanceOf(UrlNotAllowedError);
  if (message) await expect(check).rejects.toThrow(message);
}

describe("checkUrl", () => {
  const loopbackSpellings = [
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::1]:8787/x",
    "http://localhost:8787/",
    "http://api.localhost/",
    "http://localhost./",
  ];

  it.each(loopbackSpellings)("allows %s in local mode", async (raw) => {
    await expect(checkUrl(raw, LOCAL)).resolves.toBeInstanceOf(URL);
  });

  it.each(loopbackSpellings)("refuses %s in production", async (raw) => {
    const resolver = fakeResolver({});
    await expectRefused(raw, { local: false, resolve: resolver.resolve });
    expect(resolver.asked).toEqual([]);
  });

  it("returns the normalised URL", async () => {
    expect((await checkUrl("http://0x7f.1:3000/a", LOCAL)).href).toBe("http://127.0.0.1:3000/a");
    expect((await checkUrl("http://[::ffff:127.0.0.1]/", LOCAL)).hostname).toBe("[::ffff:7f00:1]");
  });

  const metadataSpellings = [
    "http://169.254.169.254/latest/meta-data",
    "http://2852039166/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
  ];

  it.each(metadataSpellings)("refuses %s in both modes", async (raw) => {
    await expectRefused(raw, LOCAL, "private or reserved address");
    await expectRefused(raw, production(), "private or reserved address");
  });

  const nonPublicSpellings = [
    "http://167772161/", // 10.0.0.1 in decimal
    "http://0xa.0.0.1/",
    "http://012.1/", // 10.0.0.1, octal short form
    "http://192.168.1/",
    "http://0/",
    "http://100.64.0.1/", // CGNAT
    "http://0144.0100.0.1/", // CGNAT in octal
    "http://1681915905/", // 100.64.0.1 in decimal
    "http://[::ffff:100.64.0.1]/",
    "http://[::ffff:c0a8:101]/",
    "http://[64:ff9b::a00:1]/", // NAT64 of 10.0.0.1
    "http://[64:ff9b::7f00:1]/", // NAT64 of loopback
    "http://[fc00::1]/",
  ];

  it.each(nonPublicSpellings)("refuses %s in production without resolving anything", async (raw) => {
    const resolver = fakeResolver({});
    await expectRefused(raw, { local: false, resolve: resolver.resolve });
    expect(resolver.asked).toEqual([]);
  });

  it.each([
    "ftp://127.0.0.1/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/plain,hi",
    "ws://127.0.0.1/",
  ])("refuses the scheme of %s", async (raw) => {
    await expectRefused(raw, LOCAL, "Only http and https URLs are allowed.");
    await expectRefused(raw, production(), "Only http and https URLs are allowed.");
  });

  it("refuses credentials without echoing them", async () => {
    for (const raw of [
      "http://user:s3cret@127.0.0.1/",
      "http://user@127.0.0.1/",
      "http://:s3cret@127.0.0.1/",
    ]) {
      const error = await checkUrl(raw, LOCAL).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UrlNotAllowedError);
      expect((error as Error).message).toBe("URLs with a username or password are not allowed.");
      expect((error as Error).message).not.toContain("s3cret");
    }
  });

  it("refuses text that is not a URL, and URLs over 2048 characters", async () => {
    await expectRefused("not a url", LOCAL, "This is not a valid URL.");
    await expectRefused("http://[fe80::1%25eth0]/", LOCAL, "This is not a valid URL.");
    await expectRefused(`http://127.0.0.1/${"a".repeat(2048)}`, LOCAL, "longer than 2048 characters");
    await expect(checkUrl(`http://127.0.0.1/${"a".repeat(2000)}`, LOCAL)).resolves.toBeInstanceOf(URL);
  });

  it("in local mode refuses public addresses and other names", async () => {
    await expectRefused("http://8.8.8.8/", LOCAL, "In local mode only loopback URLs");
    await expectRefused("https://example.com/", LOCAL, "In local mode only loopback URLs");
    await expectRefused("http://127.0.0.1.nip.io/", LOCAL, "In local mode only loopback URLs");
    await expectRefused("http://10.0.0.1/", LOCAL, "private or reserved address");
  });

  it("in production allows a name whose every address is public", async () => {
    const resolver = fakeResolver({ "videos.example.com": [PUBLIC_ADDRESS, "2606:4700::1111"] });
    const url = await checkUrl("https://videos.example.com./ad.mp4", {
      local: false,
      resolve: resolver.resolve,
    });
    expect(url.hostname).toBe("videos.example.com.");
    expect(resolver.asked).toEqual(["videos.example.com"]);
  });

  it("in production refuses a name resolving to any non-public address, or to none", async () => {
    const policy = production({
      "private.example.com": ["10.0.0.5"],
      "mixed.example.com": [PUBLIC_ADDRESS, "192.168.1.1"],
      "mapped.example.com": ["::ffff:127.0.0.1"],
      "garbage.example.com": ["not-an-address"],
    });
    await expectRefused("https://private.example.com/", policy, "private or reserved address");
    await expectRefused("https://mixed.example.com/", policy, "private or reserved address");
    await expectRefused("https://mapped.example.com/", policy, "private or reserved address");
    await expectRefused("https://garbage.example.com/", policy, "private or reserved address");
    await expectRefused("https://nothing.example.com/", policy, "does not resolve");
  });

  it.each([
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://localhost/",
    "http://printer.local/",
    "http://router.home.arpa/",
    "http://home.arpa/",
    "http://intranet/",
    "http://metadata./",
  ])("in production refuses the internal name in %s without resolving it", async (raw) => {
    const resolver = fakeResolver({});
    await expectRefused(raw, { local: false, resolve: resolver.resolve });
    expect(resolver.asked).toEqual([]);
  });

  it("in production allows only ports 80, 443, 8080 and 8443; local mode allows any", async () => {
    const policy = production();
    for (const raw of [
      "http://8.8.8.8/",
      "http://8.8.8.8:443/",
      "https://8.8.8.8:8443/",
      "http://8.8.8.8:8080/",
    ]) {
      await expect(checkUrl(raw, policy)).resolves.toBeInstanceOf(URL);
    }
    await expectRefused("http://8.8.8.8:22/", policy, "Only ports 80, 443, 8080 and 8443 are allowed.");
    await expectRefused("https://8.8.8.8:6379/", policy, "Only ports 80, 443, 8080 and 8443 are allowed.");
    await expect(checkUrl("http://127.0.0.1:22/", LOCAL)).resolves.toBeInstanceOf(URL);
  });
});

describe("the default DNS-over-HTTPS resolver (global fetch stubbed, nothing leaves the machine)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  function stubDoh(answers: Record<string, object>) {
    const asked: URL[] = [];
    const fakeFetch = async (input: string) => {
      const url = new URL(input);
      asked.push(url);
      return Response.json(answers[url.searchParams.get("type") ?? ""]);
    };
    vi.stubGlobal("fetch", fakeFetch);
    return asked;
  }

  it("asks cloudflare-dns.com for A and AAAA records and judges the addresses at the end of CNAME chains", async () => {
    const asked = stubDoh({
      A: {
        Status: 0,
        Answer: [
          { type: 5, data: "cdn.example.net." },
          { type: 1, data: PUBLIC_ADDRESS },
        ],
      },
      AAAA: { Status: 0, Answer: [{ type: 28, data: "2606:4700::1111" }] },
    });
    await expect(checkUrl("https://example.com/", { local: false })).resolves.toBeInstanceOf(URL);
    expect(asked.map((url) => `${url.origin}${url.pathname}?${url.searchParams}`).sort()).toEqual([
      "https://cloudflare-dns.com/dns-query?name=example.com&type=A",
      "https://cloudflare-dns.com/dns-query?name=example.com&type=AAAA",
    ]);
  });

  it("refuses a name with one private AAAA record, or one that does not exist", async () => {
    stubDoh({
      A: { Status: 0, Answer: [{ type: 1, data: PUBLIC_ADDRESS }] },
      AAAA: { Status: 0, Answer: [{ type: 28, data: "fd00::1" }] },
    });
    await expectRefused("https://example.com/", { local: false }, "private or reserved address");
    stubDoh({ A: { Status: 3 }, AAAA: { Status: 3 } });
    await expectRefused("https://example.com/", { local: false }, "does not resolve");
  });
});

/** A fetch that records every URL it is given and sends real requests only to 127.0.0.1. */
function loopbackOnlyFetch() {
  const calls: string[] = [];
  const fetchLoopback = async (input: string, init?: RequestInit) => {
    calls.push(input);
    if (new URL(input).hostname !== "127.0.0.1")
      throw new Error(`The test refused to send a request to ${input}`);
    return fetch(input, init);
  };
  return { calls, fetch: fetchLoopback as unknown as typeof fetch };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => resolve(body));
    request.on("error", reject);
  });
}

/** Routes: /chain/N redirects N times; /redirect?to=&status= redirects once; /echo describes the request. */
async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const body = await readBody(request);
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) {
    const remaining = Number(chain[1]);
    if (remaining === 0) return void response.end("final");
    response.writeHead(302, { location: `/chain/${remaining - 1}` }).end();
  } else if (url.pathname === "/redirect") {
    const status = Number(url.searchParams.get("status") ?? "302");
    response.writeHead(status, { location: url.searchParams.get("to") ?? "" }).end("moved");
  } else if (url.pathname === "/relative") {
    response.writeHead(301, { location: "chain/0" }).end();
  } else if (url.pathname === "/no-location") {
    response.writeHead(302).end();
  } else if (url.pathname === "/echo") {
    const { method, headers } = request;
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ method, body, authorization: headers.authorization ?? null }));
  } else {
    response.writeHead(404).end();
  }
}

async function startLoopbackServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function stopServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe("safeFetch against loopback servers (local mode)", () => {
  let main: { server: Server; origin: string };
  let other: { server: Server; origin: string };

  beforeAll(async () => {
    main = await startLoopbackServer();
    other = await startLoopbackServer();
  });

  afterAll(async () => {
    await Promise.all([stopServer(main.server), stopServer(other.server)]);
  });

  function redirectUrl(to: string, status = 302): string {
    return `${main.origin}/redirect?${new URLSearchParams({ to, status: String(status) })}`;
  }

  it("follows a chain of 3 redirects to the final 200", async () => {
    const recorder = loopbackOnlyFetch();
    const response = await safeFetch(`${main.origin}/chain/3`, {}, { ...LOCAL, fetch: recorder.fetch });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("final");
    expect(recorder.calls).toHaveLength(4);
  });

  it("follows 5 redirects but refuses the 6th", async () => {
    const five = loopbackOnlyFetch();
    const response = await safeFetch(`${main.origin}/chain/5`, {}, { ...LOCAL, fetch: five.fetch });
    expect(await response.text()).toBe("final");
    const six = loopbackOnlyFetch();
    const refused = safeFetch(`${main.origin}/chain/6`, {}, { ...LOCAL, fetch: six.fetch });
    await expect(refused).rejects.toThrow(new UrlNotAllowedError("Too many redirects (more than 5)."));
    expect(six.calls).toHaveLength(6);
  });

  it("honours a smaller maxRedirects", async () => {
    const recorder = loopbackOnlyFetch();
    const refused = safeFetch(
      `${main.origin}/chain/3`,
      {},
      { ...LOCAL, maxRedirects: 2, fetch: recorder.fetch },
    );
    await expect(refused).rejects.toThrow("Too many redirects (more than 2).");
  });

  it.each([
    ["the metadata address", "http://169.254.169.254/latest/meta-data/"],
    ["a private address", "http://10.0.0.1/"],
    ["a public name", "https://example.com/"],
    ["a file URL", "file:///etc/passwd"],
  ])("refuses a redirect to %s before sending anything there", async (_, target) => {
    const recorder = loopbackOnlyFetch();
    const refused = safeFetch(redirectUrl(target), {}, { ...LOCAL, fetch: recorder.fetch });
    await expect(refused).rejects.toBeInstanceOf(UrlNotAllowedError);
    expect(recorder.calls).toEqual([redirectUrl(target)]);
    expect(recorder.calls).not.toContain(target);
  });

  it("resolves a relative Location against the current URL", async () => {
    const recorder = loopbackOnlyFetch();
    const response = await safeFetch(`${main.origin}/relative`, {}, { ...LOCAL, fetch: recorder.fetch });
    expect(await response.text()).toBe("final");
    expect(recorder.calls).toEqual([`${main.origin}/relative`, `${main.origin}/chain/0`]);
  });

  it("refuses a redirect without Location", async () => {
    const recorder = loopbackOnlyFetch();
    const refused = safeFetch(`${main.origin}/no-location`, {}, { ...LOCAL, fetch: recorder.fetch });
    await expect(refused).rejects.toThrow(
      new UrlNotAllowedError("A redirect answer had no Location header."),
    );
  });

  it("with maxRedirects 0 returns the redirect answer itself, even one pointing at the metadata address", async () => {
    const recorder = loopbackOnlyFetch();
    const target = "http://169.254.169.254/";
    const init = { method: "POST", body: "{}" };
    const response = await safeFetch(redirectUrl(target), init, {
      ...LOCAL,
      maxRedirects: 0,
      fetch: recorder.fetch,
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(target);
    expect(recorder.calls).toHaveLength(1);
  });

  it("turns a POST into a bodiless GET after a 303 and keeps it after a 307", async () => {
    const init = { method: "POST", body: "payload", headers: { "content-type": "text/plain" } };
    const options = { ...LOCAL, fetch: loopbackOnlyFetch().fetch };
    const after303 = await safeFetch(redirectUrl(`${main.origin}/echo`, 303), init, options);
    expect(await after303.json()).toMatchObject({ method: "GET", body: "" });
    const after307 = await safeFetch(redirectUrl(`${main.origin}/echo`, 307), init, options);
    expect(await after307.json()).toMatchObject({ method: "POST", body: "payload" });
  });

  it("carries Authorization to the same origin only", async () => {
    const init = { headers: { authorization: "Bearer token" } };
    const options = { ...LOCAL, fetch: loopbackOnlyFetch().fetch };
    const sameOrigin = await safeFetch(redirectUrl(`${main.origin}/echo`), init, options);
    expect(await sameOrigin.json()).toMatchObject({ authorization: "Bearer token" });
    const otherOrigin = await safeFetch(redirectUrl(`${other.origin}/echo`), init, options);
    expect(await otherOrigin.json()).toMatchObject({ authorization: null });
  });
});

describe("safeFetch in production (fake fetch and resolver: decisions only)", () => {
  const resolver = fakeResolver({
    "public.example.com": [PUBLIC_ADDRESS],
    "cdn.example.net": ["2606:4700::1111"],
    "intranet.example.com": ["192.168.1.1"],
  });
  const policy = { local: false, resolve: resolver.resolve };

  /** A fake fetch answering from a table of canned responses; it never touches the network. */
  function cannedFetch(answers: Record<string, () => Response>) {
    const fake = vi.fn(
      async (input: string, _init?: RequestInit) =>
        answers[input]?.() ?? new Response("no such route", { status: 404 }),
    );
    return { fake, fetch: fake as unknown as typeof fetch };
  }

  it("refuses a redirect to a name resolving to a private address, having fetched only the first URL", async () => {
    const canned = cannedFetch({
      "https://public.example.com/ad.mp4": () =>
        new Response(null, { status: 302, headers: { location: "http://intranet.example.com/admin" } }),
    });
    const refused = safeFetch("https://public.example.com/ad.mp4", {}, { ...policy, fetch: canned.fetch });
    await expect(refused).rejects.toThrow(
      new UrlNotAllowedError("This URL points to a private or reserved address."),
    );
    expect(canned.fake).toHaveBeenCalledTimes(1);
    expect(canned.fake.mock.calls[0]?.[0]).toBe("https://public.example.com/ad.mp4");
  });

  it("follows a redirect to another public name", async () => {
    const canned = cannedFetch({
      "https://public.example.com/ad.mp4": () =>
        new Response(null, { status: 301, headers: { location: "https://cdn.example.net/ad.mp4" } }),
      "https://cdn.example.net/ad.mp4": () => new Response("video bytes"),
    });
    const response = await safeFetch(
      "https://public.example.com/ad.mp4",
      {},
      { ...policy, fetch: canned.fetch },
    );
    expect(await response.text()).toBe("video bytes");
    expect(canned.fake.mock.calls.map(([url]) => url)).toEqual([
      "https://public.example.com/ad.mp4",
      "https://cdn.example.net/ad.mp4",
    ]);
    expect(canned.fake.mock.calls[0]?.[1]).toMatchObject({ redirect: "manual" });
  });

  it.each([
    "http://0xA9FEA9FE/latest/meta-data",
    "http://0251.0376.0251.0376/",
    "http://[::ffff:169.254.169.254]/",
    "http://[64:ff9b::7f00:1]/",
    "http://100.64.0.1/",
    "http://2130706433/",
  ])("refuses a redirect to %s, having fetched only the first URL", async (location) => {
    const canned = cannedFetch({
      "https://public.example.com/ad.mp4": () => new Response(null, { status: 302, headers: { location } }),
    });
    const refused = safeFetch("https://public.example.com/ad.mp4", {}, { ...policy, fetch: canned.fetch });
    await expect(refused).rejects.toBeInstanceOf(UrlNotAllowedError);
    expect(canned.fake).toHaveBeenCalledTimes(1);
  });

  it("refuses the first URL without fetching anything", async () => {
    const canned = cannedFetch({});
    const refused = safeFetch("http://metadata.google.internal/", {}, { ...policy, fetch: canned.fetch });
    await expect(refused).rejects.toBeInstanceOf(UrlNotAllowedError);
    expect(canned.fake).not.toHaveBeenCalled();
  });
});
