import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Cloudflare Queues' HTTP pull consumer API on 127.0.0.1, following its documented
 * shapes (developers.cloudflare.com/queues/configuration/pull-consumers):
 *   POST /client/v4/accounts/{account}/queues/{queue}/messages/pull  {visibility_timeout_ms, batch_size}
 *     -> {success, errors, messages, result: {messages: [{id, body, timestamp_ms, attempts, lease_id}]}}
 *   POST …/messages/ack  {acks: [{lease_id}], retries: [{lease_id, delay_seconds}]}
 *     -> {success, errors, messages, result: {ackCount, retryCount, warnings}}
 *   POST …/messages  {body, content_type?: "json" | "text", delay_seconds?}   (HTTP publishing)
 *     -> {success, errors, messages, result: {}}
 * A pulled message is invisible until its visibility timeout passes, then comes back with a new
 * lease; an ack with a lease that ran out is ignored with a warning. Bad token: 401; bad body: 400.
 */
export interface StoredMessage {
  id: string;
  body: string;
  timestamp_ms: number;
  attempts: number;
  visibleAt: number;
  leaseId: string | null;
}

export interface Call {
  action: "pull" | "ack" | "publish";
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export class QueuesPullStandIn {
  readonly messages: StoredMessage[] = [];
  readonly calls: Call[] = [];
  /** Set to make publishing answer 500, as an outage would. */
  failPublishing = false;
  private server: Server | undefined;
  baseUrl = "";

  constructor(
    private readonly accountId: string,
    private readonly queueId: string,
    private readonly token: string,
  ) {}

  /** Sends a message as the edge's JOBS_QUEUE.send(body, {contentType: "json", delaySeconds}) would. */
  send(body: unknown, delaySeconds = 0): StoredMessage {
    const message: StoredMessage = {
      id: randomUUID().replaceAll("-", ""),
      body: JSON.stringify(body),
      timestamp_ms: Date.now(),
      attempts: 0,
      visibleAt: delaySeconds > 0 ? Date.now() + delaySeconds * 1000 : 0,
      leaseId: null,
    };
    this.messages.push(message);
    return message;
  }

  pulls(): Call[] {
    return this.calls.filter((call) => call.action === "pull");
  }

  acks(): Call[] {
    return this.calls.filter((call) => call.action === "ack");
  }

  publishes(): Call[] {
    return this.calls.filter((call) => call.action === "publish");
  }

  async start(): Promise<string> {
    this.server = createServer(async (request, response) => {
      const reply = (status: number, result: unknown, errors: { code: number; message: string }[] = []) => {
        response.writeHead(status, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ success: status === 200, errors, messages: [], result }));
      };
      const base = `/client/v4/accounts/${this.accountId}/queues/${this.queueId}/messages`;
      const action =
        request.url === base
          ? "publish"
          : request.url?.startsWith(`${base}/`)
            ? request.url.slice(base.length + 1)
            : "";
      if (request.method !== "POST" || (action !== "pull" && action !== "ack" && action !== "publish")) {
        reply(404, null, [{ code: 7000, message: "No route for that URI" }]);
        return;
      }
      const body = await readJson(request);
      this.calls.push({ action, authorization: request.headers.authorization, body: body ?? {} });
      if (request.headers.authorization !== `Bearer ${this.token}`) {
        reply(401, null, [{ code: 10000, message: "Authentication error" }]);
        return;
      }
      if (!body || request.headers["content-type"] !== "application/json") {
        reply(400, null, [{ code: 10001, message: "invalid JSON body" }]);
        return;
      }
      if (action === "pull") this.pull(body, reply);
      else if (action === "ack") this.ack(body, reply);
      else this.publish(body, reply);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/client/v4`;
    return this.baseUrl;
  }

  private pull(
    body: Record<string, unknown>,
    reply: (status: number, result: unknown, errors?: { code: number; message: string }[]) => void,
  ) {
    const { visibility_timeout_ms: visibility, batch_size: batchSize } = body;
    const known = new Set(["visibility_timeout_ms", "batch_size"]);
    if (
      Object.keys(body).some((key) => !known.has(key)) ||
      typeof visibility !== "number" ||
      visibility < 1 ||
      visibility > 12 * 3600 * 1000 ||
      typeof batchSize !== "number" ||
      batchSize < 1 ||
      batchSize > 100
    ) {
      reply(400, null, [{ code: 10001, message: "invalid pull request" }]);
      return;
    }
    const now = Date.now();
    const leased = this.messages.filter((message) => message.visibleAt <= now).slice(0, batchSize);
    for (const message of leased) {
      message.attempts++;
      message.visibleAt = now + visibility;
      message.leaseId = randomUUID();
    }
    reply(200, {
      messages: leased.map(({ id, body: text, timestamp_ms, attempts, leaseId }) => ({
        body: text,
        id,
        timestamp_ms,
        attempts,
        lease_id: leaseId,
      })),
    });
  }

  private publish(
    body: Record<string, unknown>,
    reply: (status: number, result: unknown, errors?: { code: number; message: string }[]) => void,
  ) {
    if (this.failPublishing) {
      reply(500, null, [{ code: 10500, message: "internal error" }]);
      return;
    }
    const { body: messageBody, content_type: contentType = "json", delay_seconds: delay = 0 } = body;
    if (messageBody === undefined || contentType !== "json" || !Number.isInteger(delay)) {
      reply(400, null, [{ code: 10001, message: "invalid message" }]);
      return;
    }
    this.send(messageBody, delay as number);
    reply(200, {});
  }

  private ack(
    body: Record<string, unknown>,
    reply: (status: number, result: unknown, errors?: { code: number; message: string }[]) => void,
  ) {
    const { acks = [], retries = [] } = body as { acks?: unknown; retries?: unknown };
    const leaseOk = (entry: unknown) => typeof (entry as { lease_id?: unknown }).lease_id === "string";
    if (
      !Array.isArray(acks) ||
      !Array.isArray(retries) ||
      !acks.every(leaseOk) ||
      !retries.every(
        (entry) =>
          leaseOk(entry) && Number.isInteger((entry as { delay_seconds?: unknown }).delay_seconds ?? 0),
      )
    ) {
      reply(400, null, [{ code: 10001, message: "invalid ack request" }]);
      return;
    }
    const now = Date.now();
    const warnings: string[] = [];
    const holder = (leaseId: string) =>
      this.messages.find((message) => message.leaseId === leaseId && message.visibleAt > now);
    let ackCount = 0;
    for (const { lease_id: leaseId } of acks as { lease_id: string }[]) {
      const message = holder(leaseId);
      if (!message) {
        warnings.push(`lease ${leaseId} not found or expired`);
        continue;
      }
      this.messages.splice(this.messages.indexOf(message), 1);
      ackCount++;
    }
    let retryCount = 0;
    for (const { lease_id: leaseId, delay_seconds: delay = 0 } of retries as MessageRetryBody[]) {
      const message = holder(leaseId);
      if (!message) {
        warnings.push(`lease ${leaseId} not found or expired`);
        continue;
      }
      message.visibleAt = now + delay * 1000;
      message.leaseId = null;
      retryCount++;
    }
    reply(200, { ackCount, retryCount, warnings });
  }

  async close(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

interface MessageRetryBody {
  lease_id: string;
  delay_seconds?: number;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | null> {
  let text = "";
  for await (const chunk of request) text += chunk;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
