import type { JobMessage } from "../contract/job-message";
import { BUSY_RETRY_SECONDS } from "../shared-lib/busy-retry";
import type { PullSettings } from "./config";
import type { JobIntake } from "./intake";
import type { JobSource } from "./job-source";
import { jobMessageOf, type MessageRetry, type PulledMessage, QueuesPullApi } from "./queues-pull-api";

/**
 * The edge could not be reached to claim: the message is retried after 10 s, doubling with each of
 * its attempts up to 5 minutes. Each such retry is one of the queue's (100 in production), so with
 * a flat 10 s an edge outage of 17 minutes would send every waiting job to the dead-letter queue
 * (failed and refunded); backing off, they ride out about 8 hours.
 */
const ERROR_RETRY_SECONDS = 10;
const MAX_ERROR_RETRY_SECONDS = 300;

function claimErrorDelaySeconds(attempts: number): number {
  return Math.min(ERROR_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1), MAX_ERROR_RETRY_SECONDS);
}
/** Pull failures back off up to this. */
const MAX_BACKOFF_MS = 60_000;
/** The pull API's largest batch. */
const MAX_BATCH = 100;

/**
 * The pull transport (production): while a slot is free, leases as many messages as there are free
 * slots and offers each to the intake. A claimed job's message is acked when its run ends (until
 * then the lease keeps it from other workers; if this worker dies it comes back after the
 * visibility timeout and the claim sorts it out). A job that needs no work (finished, canceled,
 * leased elsewhere) is acked at once; one that cannot start now (no slot, workspace busy) is
 * published again with a delay and acked; one whose claim could not reach the edge is retried,
 * backing off with the message's attempts.
 */
export class PullJobSource implements JobSource {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly settings: PullSettings,
    private readonly intake: JobIntake,
    private readonly log: (entry: Record<string, unknown>) => void,
    private readonly api = new QueuesPullApi(settings),
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.loop = this.run();
    this.log({ event: "pulling", queue_id: this.settings.queueId, slots: this.intake.slots });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const free = this.intake.slots - this.intake.busy;
      let wait = this.settings.intervalMs;
      if (free > 0) {
        try {
          const messages = await this.api.pull(Math.min(free, MAX_BATCH));
          failures = 0;
          if (messages.length > 0) {
            await this.take(messages);
            continue;
          }
        } catch (error) {
          failures++;
          wait = Math.min(this.settings.intervalMs * 2 ** failures, MAX_BACKOFF_MS);
          this.log({ event: "pull_failed", error: String(error) });
        }
      }
      await this.pause(wait);
    }
  }

  /** Waits, or less when a slot frees up or the source stops. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async take(messages: PulledMessage[]): Promise<void> {
    const acks: string[] = [];
    const retries: MessageRetry[] = [];
    for (const message of messages) {
      const body = jobMessageOf(message.body);
      if (!body) {
        // No retry will make it readable.
        this.log({ event: "message_unreadable", message_id: message.id });
        acks.push(message.lease_id);
        continue;
      }
      const jobId = body.job_id;
      try {
        const answer = await this.intake.offer(jobId);
        if (answer.status === 202) {
          answer.finished
            .catch(() => undefined)
            .then(() => {
              this.wake?.();
              return this.settle([message.lease_id], []);
            });
        } else if (answer.status === 200) {
          acks.push(message.lease_id);
        } else if (await this.publishAgainLater(body)) {
          acks.push(message.lease_id);
        } else {
          retries.push({ lease_id: message.lease_id, delay_seconds: BUSY_RETRY_SECONDS });
        }
        this.log({ event: "job_offered", job_id: jobId, attempts: message.attempts, ...answer.body });
      } catch (error) {
        this.log({ event: "job_offer_failed", job_id: jobId, error: String(error) });
        retries.push({ lease_id: message.lease_id, delay_seconds: claimErrorDelaySeconds(message.attempts) });
      }
    }
    if (acks.length > 0 || retries.length > 0) await this.settle(acks, retries);
  }

  /**
   * A busy answer (no free slot, workspace at its limit) is waiting, not a failure: a fresh message
   * replaces the pulled one, so waiting never uses up the queue's retries and a long backlog never
   * reaches the dead-letter queue. False when it could not be sent: the caller retries instead.
   */
  private async publishAgainLater(body: JobMessage): Promise<boolean> {
    try {
      await this.api.publish(body, BUSY_RETRY_SECONDS);
      return true;
    } catch (error) {
      this.log({ event: "publish_failed", job_id: body.job_id, error: String(error) });
      return false;
    }
  }

  /** A lost ack is harmless: the message comes back after its visibility timeout and is acked then. */
  private async settle(acks: string[], retries: MessageRetry[]): Promise<void> {
    try {
      await this.api.settle(acks, retries);
    } catch (error) {
      this.log({ event: "ack_failed", error: String(error) });
    }
  }
}
