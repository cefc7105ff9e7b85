/**
 * npm run loadtest: mixed customer traffic at rising rates against a stack on this machine (its own
 * `npm start`, or BASE_URL on a loopback address), then checks that nothing was lost, doubled,
 * overcharged or let past a rate limit. Prints a table per phase; exits 1 when a check fails.
 * Bounded: LOADTEST_RATES (requests a second per phase) × LOADTEST_PHASE_SECONDS each.
 */

import {
  fromDevProxy,
  idempotentRetriesMadeOneJob,
  ledgerAndJobs,
  noServerErrors,
  type Reader,
  rateLimitsHeld,
} from "./loadtest/invariants";
import { checkList, type PhaseResult, phaseTable } from "./loadtest/report";
import { openTarget, type Target } from "./loadtest/target";
import { burst, runPhase, type Sample, type Tenant, type TrafficContext } from "./loadtest/traffic";

const PORT = Number(process.env.LOADTEST_PORT ?? 18870);
const RATES = (process.env.LOADTEST_RATES ?? "5,10,20,40").split(",").map(Number);
const PHASE_SECONDS = Number(process.env.LOADTEST_PHASE_SECONDS ?? 20);
const WORKSPACES = Number(process.env.LOADTEST_WORKSPACES ?? 20);
const STARTING_CREDITS = 100_000;

/** A deterministic PRNG, so two runs send the same mix. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

async function admin<T>(target: Target, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${target.baseUrl}/admin${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${target.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Workspaces on the scale plan, each with a traffic key and a checker key of its own. */
async function makeTenants(target: Target): Promise<{ tenants: Tenant[]; checkerKeys: Map<Tenant, string> }> {
  const tenants: Tenant[] = [];
  const checkerKeys = new Map<Tenant, string>();
  for (let i = 0; i < WORKSPACES; i++) {
    const created = await admin<{ workspace_id: string; api_key: string }>(target, "/workspaces", {
      plan: "scale",
      credits: STARTING_CREDITS,
      name: `loadtest ${i}`,
    });
    const tenant = {
      workspaceId: created.workspace_id,
      apiKey: created.api_key,
      startingCredits: STARTING_CREDITS,
    };
    const checker = await admin<{ api_key: string }>(target, `/workspaces/${created.workspace_id}/keys`, {
      name: "checker",
    });
    tenants.push(tenant);
    checkerKeys.set(tenant, checker.api_key);
  }
  return { tenants, checkerKeys };
}

function reader(target: Target, checkerKeys: Map<Tenant, string>): Reader {
  return {
    async get<T>(tenant: Tenant, path: string) {
      for (;;) {
        const response = await fetch(`${target.baseUrl}${path}`, {
          headers: { Authorization: `Bearer ${checkerKeys.get(tenant)}` },
        });
        if (response.status === 429) {
          await new Promise((resolve) =>
            setTimeout(resolve, Number(response.headers.get("Retry-After") ?? 1) * 1000),
          );
          continue;
        }
        return { status: response.status, body: (await response.json()) as T };
      }
    },
  };
}

async function main(): Promise<number> {
  const target = await openTarget(PORT);
  try {
    const { tenants, checkerKeys } = await makeTenants(target);
    const samples: Sample[] = [];
    const ctx: TrafficContext = {
      baseUrl: target.baseUrl,
      videoUrl: target.videoUrl,
      tenants,
      jobsByTenant: new Map(),
      random: seeded(10),
      phase: "",
      record: (sample) => samples.push(sample),
    };
    const phases: PhaseResult[] = [];
    for (const rate of RATES) {
      ctx.phase = `${rate}/s`;
      const from = samples.length;
      process.stderr.write(`phase ${ctx.phase} for ${PHASE_SECONDS} s\n`);
      const seconds = await runPhase(ctx, rate, PHASE_SECONDS);
      phases.push({ name: ctx.phase, targetRate: rate, seconds, samples: samples.slice(from) });
    }
    // Past the limits on purpose: 150 estimates (limit 120) and 40 job creations (limit 30) from one key.
    ctx.phase = "burst";
    const from = samples.length;
    const burstStarted = performance.now();
    const [first, second] = tenants as [Tenant, Tenant];
    await Promise.all([burst(ctx, first, "estimate", 150), burst(ctx, second, "jobs", 40)]);
    phases.push({
      name: "burst",
      targetRate: null,
      seconds: (performance.now() - burstStarted) / 1000,
      samples: samples.slice(from),
    });

    process.stderr.write("checking invariants\n");
    const checks = [
      noServerErrors(samples),
      rateLimitsHeld(samples),
      idempotentRetriesMadeOneJob(samples),
      ...(await ledgerAndJobs(reader(target, checkerKeys), tenants, samples)),
    ];
    console.log(`${WORKSPACES} workspaces, ${samples.length} requests against ${target.baseUrl}\n`);
    console.log(phaseTable(phases));
    console.log(`\n${checkList(checks)}`);
    const proxied = samples.filter(fromDevProxy).length;
    if (proxied > 0)
      console.log(
        `\n${proxied} answers came from wrangler dev's proxy, not the service (503 "Your worker restarted mid-request": ` +
          "its connection to the worker's runtime failed); the job and credit checks above count them as nothing created.",
      );
    return checks.every((check) => check.failures.length === 0) ? 0 : 1;
  } finally {
    await target.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
