import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AdClean, AdCleanConnectionError, AdCleanError, type RetryEvent } from "../../client/index";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

let close: (() => void) | undefined;
afterEach(() => {
  close?.();
  close = undefined;
});

/** A client on a loopback server that answers with `handler` and counts the requests. */
async function clientOn(handler: Handler) {
  let requests = 0;
  const retries: RetryEvent[] = [];
  const server = createServer((request, response) => {
    requests++;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => server.close();
  const client = new AdClean({
    apiKey: "sk_live_test",
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    baseDelayMs: 1,
    onRetry: (event) => retries.push(event),
  });
  return { client, requests: () => requests, retries };
}

const envelope = (status: number, code: string, extra: Record<string, string> = {}): Handler => {
  return (_request, response) =>
    response
      .writeHead(status, { "Content-Type": "application/json", "X-Request-Id": "req_test" })
      .end(JSON.stringify({ error: { type: "t", code, message: "m", request_id: "req_test", ...extra } }));
};

describe("the client's retries", () => {
  it("never retries a 4xx other than 429, and throws it typed", async () => {
    const { client, requests } = await clientOn(envelope(400, "invalid_parameter", { param: "limit" }));
    const error = await client.listJobs({ limit: 500 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdCleanError);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_parameter",
      param: "limit",
      requestId: "req_test",
    });
    expect(requests()).toBe(1);
  });

  it("retries 5xx up to maxAttempts, then throws the last answer, envelope or not", async () => {
    const { client, requests, retries } = await clientOn((_request, response) =>
      response.writeHead(502).end("<html>bad gateway</html>"),
    );
    await expect(client.getAccount()).rejects.toMatchObject({
      status: 502,
      type: "api_error",
      code: "unexpected_response",
    });
    expect(requests()).toBe(4);
    expect(retries.map((event) => event.attempt)).toEqual([1, 2, 3]);
  });

  it("sends the caller's Idempotency-Key on every attempt", async () => {
    const keys: Array<string | undefined> = [];
    const { client } = await clientOn((request, response) => {
      keys.push(request.headers["idempotency-key"] as string | undefined);
      if (keys.length < 3) envelope(429, "rate_limited")(request, response);
      else envelope(402, "insufficient_credits")(request, response);
    });
    await expect(
      client.createJob({ video_url: "http://x/a.mp4" }, { idempotencyKey: "k-1" }),
    ).rejects.toMatchObject({
      code: "insufficient_credits",
    });
    expect(keys).toEqual(["k-1", "k-1", "k-1"]);
  });

  it("repeats a request that could act twice (rotate_secret) only after a 429", async () => {
    let answers = [envelope(429, "rate_limited"), envelope(500, "internal_error")];
    const { client, requests } = await clientOn((request, response) => {
      const [next, ...rest] = answers;
      answers = rest;
      next?.(request, response);
    });
    await expect(client.rotateWebhookSecret()).rejects.toMatchObject({ status: 500, code: "internal_error" });
    expect(requests()).toBe(2);
  });

  it("gives up on a refused connection with AdCleanConnectionError after every attempt", async () => {
    const { client, retries } = await clientOn(envelope(200, "unused"));
    close?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(client.getAccount()).rejects.toBeInstanceOf(AdCleanConnectionError);
    expect(retries.map((event) => event.reason)).toEqual(["ECONNREFUSED", "ECONNREFUSED", "ECONNREFUSED"]);
  });
});
