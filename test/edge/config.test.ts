// The edge's variables are parsed once, by one schema (edge/config.ts, issue 26): a bad value stops
// the request with an error naming the variable, where it used to become NaN deep inside a service.
import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../edge/index";

/** A request to /health through the Worker with `vars` over the test bindings; its status and error log. */
async function healthWith(vars: Record<string, string>) {
  const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const response = await worker.fetch(
    new Request("http://127.0.0.1:8787/health"),
    { ...env, ...vars },
    createExecutionContext(),
  );
  return { status: response.status, log: logged.mock.calls.flat().join("\n") };
}

describe("edge configuration", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a bad number fails the first request with a log line naming the variable and its value", async () => {
    const { status, log } = await healthWith({ LEASE_SECONDS: "sixty" });
    expect(status).toBe(500);
    expect(log).toContain('LEASE_SECONDS=\\"sixty\\": expected a whole number');
  });

  it("names every bad variable at once: an unknown environment and a zero timeout", async () => {
    const { status, log } = await healthWith({ ENVIRONMENT: "prod", WEBHOOK_TIMEOUT_MS: "0" });
    expect(status).toBe(500);
    expect(log).toContain("ENVIRONMENT=");
    expect(log).toContain('WEBHOOK_TIMEOUT_MS=\\"0\\": expected at least 1');
  });

  it("good values (and absent optional ones) answer as usual", async () => {
    expect((await healthWith({ LEASE_SECONDS: "90" })).status).toBe(200);
  });

  it("a queue batch or cron run with a bad value fails naming it too", async () => {
    const bad = { ...env, MULTIPART_THRESHOLD_BYTES: "1e6" };
    await expect(
      worker.scheduled?.({} as ScheduledController, bad, createExecutionContext()),
    ).rejects.toThrow(/MULTIPART_THRESHOLD_BYTES="1e6": expected a whole number/);
  });
});
