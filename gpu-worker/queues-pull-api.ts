import { type JobMessage, JobMessageSchema } from "../contract/job-message";
import type { PullSettings } from "./config";

/** A message as Cloudflare Queues' HTTP pull API hands it out. */
export interface PulledMessage {
  id: string;
  /** The message's content as text: JSON text for messages sent with contentType "json". */
  body: string;
  timestamp_ms: number;
  attempts: number;
  /** Names this delivery in ack and retry; it stops being valid once the visibility timeout passes. */
  lease_id: string;
}

export interface MessageRetry {
  lease_id: string;
  delay_seconds: number;
}

/** Cloudflare API v4's envelope. */
interface Envelope<T> {
  success: boolean;
  errors?: { code: number; message: string }[];
  result?: T;
}

/**
 * Cloudflare Queues' HTTP pull consumer API (developers.cloudflare.com/queues/configuration/pull-consumers):
 * POST …/accounts/{account}/queues/{queue}/messages/pull and …/messages/ack, and HTTP publishing
 * (POST …/messages), with a Bearer API token (Queues edit permission). The token goes in the
 * header only: errors name the status and Cloudflare's messages, never it.
 */
export class QueuesPullApi {
  constructor(private readonly settings: PullSettings) {}

  private async post<T>(action: "pull" | "ack" | "publish", body: unknown): Promise<T> {
    const { apiBaseUrl, accountId, queueId, apiToken } = this.settings;
    const messages = `${apiBaseUrl}/accounts/${encodeURIComponent(accountId)}/queues/${encodeURIComponent(queueId)}/messages`;
    const url = action === "publish" ? messages : `${messages}/${action}`;
    const response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiToken}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await response.json().catch(() => null)) as Envelope<T> | null;
    if (!response.ok || !answer?.success || answer.result === undefined) {
      const errors = (answer?.errors ?? []).map((error) => `${error.code} ${error.message}`).join("; ");
      throw new Error(`queue ${action} answered HTTP ${response.status}${errors ? `: ${errors}` : ""}`);
    }
    return answer.result;
  }

  /** Leases up to batchSize messages, hidden from other pulls for visibilityMs. */
  async pull(batchSize: number): Promise<PulledMessage[]> {
    const result = await this.post<{ messages?: PulledMessage[] }>("pull", {
      visibility_timeout_ms: this.settings.visibilityMs,
      batch_size: batchSize,
    });
    return result.messages ?? [];
  }

  /** Acks messages (done with) and retries others (they come back after their delay). */
  async settle(acks: string[], retries: MessageRetry[] = []): Promise<void> {
    await this.post("ack", { acks: acks.map((lease_id) => ({ lease_id })), retries });
  }

  /** Sends a new JSON message, delivered after delaySeconds (as the edge's JOBS_QUEUE.send does). */
  async publish(body: unknown, delaySeconds: number): Promise<void> {
    await this.post("publish", { body, content_type: "json", delay_seconds: delaySeconds });
  }
}

/**
 * The job message in a pulled message, checked against the contract. The edge sends it with
 * contentType "json", which the pull API hands out as JSON text; base64 (how it hands out bytes) is
 * read too. Null when neither reading is a job message.
 */
export function jobMessageOf(body: unknown): JobMessage | null {
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  const candidates =
    typeof body === "string" ? [parse(body), parse(Buffer.from(body, "base64").toString("utf8"))] : [body];
  for (const candidate of candidates) {
    const parsed = JobMessageSchema.safeParse(candidate);
    if (parsed.success) return parsed.data;
  }
  return null;
}
