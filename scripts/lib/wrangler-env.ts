/** Wrangler's environment for every run of ours: no telemetry, no error reports, no fetch of Cloudflare's request metadata. */
export const QUIET_WRANGLER_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  CI: "true",
};
