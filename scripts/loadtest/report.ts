import type { Check } from "./invariants";
import type { Sample } from "./traffic";

export interface PhaseResult {
  name: string;
  targetRate: number | null;
  seconds: number;
  samples: Sample[];
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/** "201:30 429:5" — answers by status, and by error code where there is one. */
function answersByCode(samples: Sample[]): string {
  const counts = new Map<string, number>();
  for (const sample of samples) {
    const label =
      sample.status === 0
        ? "network"
        : sample.code
          ? `${sample.status} ${sample.code}`
          : String(sample.status);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, count]) => `${label}:${count}`)
    .join(", ");
}

/** The per-phase table, as Markdown so it can go into the README as it is. */
export function phaseTable(phases: PhaseResult[]): string {
  const rows = phases.map((phase) => {
    const latencies = phase.samples.map((sample) => sample.latencyMs).sort((a, b) => a - b);
    const ms = (fraction: number) => percentile(latencies, fraction).toFixed(0);
    return `| ${phase.name} | ${phase.targetRate ?? "burst"} | ${(phase.samples.length / phase.seconds).toFixed(1)} | ${phase.samples.length} | ${ms(0.5)} | ${ms(0.95)} | ${ms(0.99)} | ${answersByCode(phase.samples)} |`;
  });
  return [
    "| phase | target req/s | req/s | requests | p50 ms | p95 ms | p99 ms | answers (status code:count) |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

export function checkList(checks: Check[]): string {
  return checks
    .map((check) =>
      check.failures.length === 0
        ? `PASS ${check.name}`
        : `FAIL ${check.name}\n${check.failures
            .slice(0, 20)
            .map((failure) => `  - ${failure}`)
            .join("\n")}`,
    )
    .join("\n");
}
