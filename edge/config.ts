import { z } from "zod";
import type { Env } from "./env";

/** A count from the environment: text of a whole number of at least `min`. */
const wholeNumber = (fallback: number, min = 1) =>
  z
    .string()
    .regex(/^\d+$/, "expected a whole number")
    .default(String(fallback))
    .transform(Number)
    .pipe(z.number().int().min(min, `expected at least ${min}`));

/**
 * The edge's variables (wrangler.toml [vars], `--var`, test bindings), checked once: a bad value
 * stops the first request with a message naming the variable instead of becoming NaN where used.
 */
const EdgeConfigSchema = z.object({
  ENVIRONMENT: z.enum(["local", "staging", "production"]),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }),
  GPU_WORKER_URL: z.url({ protocol: /^https?$/ }).optional(),
  LEASE_SECONDS: wholeNumber(60),
  LEASE_STALL_SECONDS: wholeNumber(300),
  WEBHOOK_TIMEOUT_MS: wholeNumber(15_000),
  MULTIPART_THRESHOLD_BYTES: wholeNumber(64 * 1024 * 1024),
});

export type EdgeConfig = z.infer<typeof EdgeConfigSchema>;

export class EdgeConfigError extends Error {
  override name = "EdgeConfigError";
}

/** Parses `vars` (the variables of Env), naming every variable that is wrong. */
export function parseEdgeConfig(vars: Partial<Record<keyof EdgeConfig, unknown>>): EdgeConfig {
  const parsed = EdgeConfigSchema.safeParse(vars);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0]);
    return `${name}=${JSON.stringify(vars[name as keyof EdgeConfig] ?? null)}: ${issue.message}`;
  });
  throw new EdgeConfigError(`bad edge configuration: ${problems.join("; ")}`);
}

/** One parse per env object: workerd hands every request of an isolate the same one. */
const parsedConfigs = new WeakMap<Env, EdgeConfig>();

/** The edge's configuration, parsed on first use (the first request, queue batch or cron run). */
export function edgeConfig(env: Env): EdgeConfig {
  let config = parsedConfigs.get(env);
  if (!config) {
    config = parseEdgeConfig(env);
    parsedConfigs.set(env, config);
  }
  return config;
}
