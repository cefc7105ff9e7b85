import type { Env } from "../env";
import { mediaStorage } from "../storage/media-storage";
import { resendStuckEvents } from "../webhooks/sweep";
import { reapJobs } from "./reaper";
import { renewDuePlans } from "./renewals";
import { purgeExpiredMedia } from "./retention";

/**
 * What the cron trigger runs: plan renewals, the job reaper, the retention sweep and the resend of
 * webhook events stuck pending. Also reached through the admin API, which is how `npm start` ticks
 * it locally (wrangler dev fires no crons, and its /cdn-cgi/handler/scheduled answers 500 once the
 * Worker serves static assets).
 */
export async function runScheduledTasks(env: Env, nowMs: number) {
  const storage = mediaStorage(env, env.PUBLIC_BASE_URL);
  const [renewals, reaper, retention, webhooksResent] = await Promise.all([
    renewDuePlans(env, nowMs),
    reapJobs(env, storage, nowMs),
    purgeExpiredMedia(env, storage, nowMs),
    resendStuckEvents(env, nowMs),
  ]);
  return { renewals, reaper, retention, webhooks: { resent: webhooksResent } };
}
