import type { Sample, Tenant } from "./traffic";

/** The spec's per-key, per-endpoint limits a minute ("Limits"); every other endpoint has 120. */
const SPEC_LIMITS: Record<string, number> = {
  "POST /v1/jobs": 30,
  "POST /v1/uploads": 60,
  "GET /v1/jobs/{id}": 240,
};
const OTHER_LIMIT = 120;

export interface Check {
  name: string;
  failures: string[];
}

interface JobView {
  id: string;
  credits: number;
  credits_refunded: boolean;
}

/** Reads with a checker key of its own, so the checks do not spend the traffic's rate windows. */
export interface Reader {
  get: <T>(tenant: Tenant, path: string) => Promise<{ status: number; body: T }>;
}

/** Every request that got past the limiter (2xx, or a 4xx other than 429) counts in its window. */
export function rateLimitsHeld(samples: Sample[]): Check {
  const counted = new Map<string, number>();
  for (const sample of samples) {
    const passed =
      (sample.status >= 200 && sample.status < 300) ||
      (sample.status >= 400 && sample.status < 500 && sample.status !== 429);
    if (!passed || !sample.window) continue;
    const key = `${sample.tenant.workspaceId} ${sample.endpoint} ${sample.window}`;
    counted.set(key, (counted.get(key) ?? 0) + 1);
  }
  const failures: string[] = [];
  for (const [key, count] of counted) {
    const endpoint = key.split(" ").slice(1, 3).join(" ");
    const limit = SPEC_LIMITS[endpoint] ?? OTHER_LIMIT;
    if (count > limit) failures.push(`${key}: ${count} answered in one window, limit ${limit}`);
  }
  const limited = samples.filter((sample) => sample.status === 429 && sample.code === "rate_limited").length;
  if (limited === 0) failures.push("no request was ever rate limited: the bursts did not reach a limit");
  return { name: "rate limits held per key and endpoint", failures };
}

/** The same Idempotency-Key always answered with one job. */
export function idempotentRetriesMadeOneJob(samples: Sample[]): Check {
  const jobsByKey = new Map<string, Set<string>>();
  for (const sample of samples) {
    if (!sample.idempotencyKey || !sample.jobId) continue;
    const jobs = jobsByKey.get(sample.idempotencyKey) ?? new Set();
    jobs.add(sample.jobId);
    jobsByKey.set(sample.idempotencyKey, jobs);
  }
  const failures = [...jobsByKey]
    .filter(([, jobs]) => jobs.size > 1)
    .map(([key, jobs]) => `Idempotency-Key ${key} made ${jobs.size} jobs: ${[...jobs].join(", ")}`);
  return { name: "idempotent retries made one job", failures };
}

async function listAll(reader: Reader, tenant: Tenant): Promise<JobView[]> {
  const jobs: JobView[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { data: JobView[]; next_cursor: string | null } } = await reader.get(
      tenant,
      `/v1/jobs?limit=100${cursor ? `&starting_after=${cursor}` : ""}`,
    );
    if (page.status !== 200) throw new Error(`list answered ${page.status}`);
    jobs.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return jobs;
}

/**
 * Per workspace: every 201 is listed and readable; no job exists that no creation could account
 * for; and credits = starting credits − credits of jobs not refunded, exactly. The balance is read
 * before and after the list and must not move in between, so no refund slips through the snapshot.
 */
export async function ledgerAndJobs(reader: Reader, tenants: Tenant[], samples: Sample[]): Promise<Check[]> {
  const lost: string[] = [];
  const ledger: string[] = [];
  for (const tenant of tenants) {
    const mine = samples.filter((sample) => sample.tenant === tenant && sample.endpoint === "POST /v1/jobs");
    const created = new Set(mine.flatMap((sample) => (sample.jobId ? [sample.jobId] : [])));
    // Only requests with no answer at all may have made a job nobody was told of; a 503 from the
    // dev proxy counts as an answer, so a job made behind one shows up here as one too many.
    const unanswered = mine.filter((sample) => sample.status === 0).length;
    let settled = false;
    for (let attempt = 0; attempt < 5 && !settled; attempt++) {
      const before = await reader.get<{ credits: { total: number } }>(tenant, "/v1/account");
      const jobs = await listAll(reader, tenant);
      const after = await reader.get<{ credits: { total: number } }>(tenant, "/v1/account");
      if (before.body.credits.total !== after.body.credits.total) continue;
      settled = true;
      const listed = new Set(jobs.map((job) => job.id));
      for (const id of created)
        if (!listed.has(id)) lost.push(`${tenant.workspaceId}: ${id} answered 201 but is not listed`);
      if (jobs.length > created.size + unanswered)
        lost.push(`${tenant.workspaceId}: ${jobs.length} jobs listed, only ${created.size} created`);
      const held = jobs.filter((job) => !job.credits_refunded).reduce((sum, job) => sum + job.credits, 0);
      const expected = tenant.startingCredits - held;
      if (after.body.credits.total !== expected)
        ledger.push(
          `${tenant.workspaceId}: credits ${after.body.credits.total}, expected ${tenant.startingCredits} − ${held} = ${expected}`,
        );
    }
    if (!settled) ledger.push(`${tenant.workspaceId}: the balance kept moving; no stable snapshot`);
    for (const id of created) {
      const read = await reader.get(tenant, `/v1/jobs/${id}`);
      if (read.status !== 200) lost.push(`${tenant.workspaceId}: GET ${id} answered ${read.status}`);
    }
  }
  return [
    { name: "no job lost or doubled (every 201 listed and readable)", failures: lost },
    { name: "credits = starting − jobs not refunded, per workspace", failures: ledger },
  ];
}

/**
 * What wrangler dev's proxy (in front of the worker, local runs only) answers a POST when its own
 * connection to the worker's runtime fails mid-request: 503, plain text, `Retry-After: 0`. The
 * service never answered it; the job and ledger checks count it as nothing created.
 */
const DEV_PROXY_LOST_CONNECTION = "Your worker restarted mid-request.";

export const fromDevProxy = (sample: Sample): boolean =>
  sample.status === 503 && (sample.serverErrorText ?? "").startsWith(DEV_PROXY_LOST_CONNECTION);

/** The service answered everything: no 5xx of its own, no dropped connection. */
export function noServerErrors(samples: Sample[]): Check {
  const failures = samples
    .filter((sample) => !fromDevProxy(sample) && (sample.status === 0 || sample.status >= 500))
    .map(
      (sample) =>
        `${sample.phase} ${sample.endpoint}: ${sample.status === 0 ? "no answer" : sample.status} ${sample.code ?? ""}` +
        (sample.serverErrorText ? ` (${JSON.stringify(sample.serverErrorText)})` : ""),
    );
  return { name: "no 5xx and no unanswered request", failures };
}
