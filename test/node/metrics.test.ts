import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../gpu-worker/config";
import type { EdgeClient } from "../../gpu-worker/edge-client";
import { gpuMemoryReader, parseNvidiaSmi } from "../../gpu-worker/gpu-memory";
import { JobIntake } from "../../gpu-worker/intake";
import { WorkerMetrics } from "../../gpu-worker/metrics";
import { createWorkerServer } from "../../gpu-worker/server";

const MIB = 1024 * 1024;

/** Every line is a comment (# HELP / # TYPE) or a sample `name{labels} value`, and ends with a newline. */
function expectExposition(text: string): void {
  expect(text.endsWith("\n")).toBe(true);
  const typed = new Set<string>();
  for (const line of text.trimEnd().split("\n")) {
    const comment = line.match(/^# (HELP|TYPE) ([a-z_]+) (.+)$/);
    if (comment) {
      if (comment[1] === "TYPE") typed.add(comment[2] as string);
      continue;
    }
    const sample = line.match(
      /^([a-z_]+)(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? (-?\d+(\.\d+)?(e[+-]\d+)?)$/,
    );
    expect(sample, line).not.toBeNull();
    const name = sample?.[1] as string;
    expect(typed.has(name) || typed.has(name.replace(/_(sum|count)$/, "")), line).toBe(true);
  }
}

describe("the worker's metrics registry", () => {
  it("writes jobs, stages, frames and GPU memory in Prometheus' text format", async () => {
    let clock = 100;
    const gpus = async () => [{ gpu: "0", usedBytes: 1024 * MIB, totalBytes: 81_559 * MIB }];
    const metrics = new WorkerMetrics(2, gpus, () => clock);

    const first = metrics.startJob();
    first.enter("downloading");
    clock += 2;
    first.enter("cleaning");
    first.enter("cleaning"); // the same stage again changes nothing
    clock += 10;
    first.frames(120, 10);
    first.end("succeeded");
    first.end("failed"); // only the first end counts

    const second = metrics.startJob();
    second.enter("downloading");
    clock += 1;
    second.end("canceled");
    const third = metrics.startJob();

    const text = await metrics.render();
    expectExposition(text);
    expect(text).toContain("# TYPE adclean_worker_jobs_total counter\n");
    expect(text).toContain('adclean_worker_jobs_total{outcome="succeeded"} 1\n');
    expect(text).toContain('adclean_worker_jobs_total{outcome="failed"} 0\n');
    expect(text).toContain('adclean_worker_jobs_total{outcome="canceled"} 1\n');
    expect(text).toContain('adclean_worker_jobs_total{outcome="lease_lost"} 0\n');
    expect(text).toContain("adclean_worker_jobs_running 1\n");
    expect(text).toContain("adclean_worker_slots 2\n");
    expect(text).toContain("# TYPE adclean_worker_stage_seconds summary\n");
    expect(text).toContain('adclean_worker_stage_seconds_sum{stage="downloading"} 3\n');
    expect(text).toContain('adclean_worker_stage_seconds_count{stage="downloading"} 2\n');
    expect(text).toContain('adclean_worker_stage_seconds_sum{stage="cleaning"} 10\n');
    expect(text).toContain("adclean_worker_frames_total 120\n");
    expect(text).toContain("adclean_worker_frames_per_second 12\n");
    expect(text).toContain(`adclean_worker_gpu_memory_used_bytes{gpu="0"} ${1024 * MIB}\n`);
    expect(text).toContain(`adclean_worker_gpu_memory_total_bytes{gpu="0"} ${81_559 * MIB}\n`);

    third.end("lease_lost");
    expect(await metrics.render()).toContain('adclean_worker_jobs_total{outcome="lease_lost"} 1\n');
  });

  it("leaves out what it has not measured: no GPU, no job yet", async () => {
    const text = await new WorkerMetrics(1, async () => []).render();
    expectExposition(text);
    expect(text).toContain("adclean_worker_jobs_running 0\n");
    expect(text).not.toContain("frames_per_second");
    expect(text).not.toContain("gpu_memory");
    expect(text).not.toContain("stage_seconds_sum");
  });

  it("reads nvidia-smi's CSV and asks it at most once per cache period", async () => {
    expect(parseNvidiaSmi("0, 1234, 81559\n1, [N/A], [N/A]\n2, 0, 24564\n")).toEqual([
      { gpu: "0", usedBytes: 1234 * MIB, totalBytes: 81_559 * MIB },
      { gpu: "2", usedBytes: 0, totalBytes: 24_564 * MIB },
    ]);
    let queries = 0;
    const read = gpuMemoryReader(async () => {
      queries++;
      return [];
    }, 60_000);
    await read();
    await read();
    expect(queries).toBe(1);
  });
});

describe("the worker's HTTP server", () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    server = undefined;
  });

  async function start(env: NodeJS.ProcessEnv): Promise<string> {
    const config = loadConfig({ WORKER_SECRET: "secret", ...env });
    // Health and metrics never reach the edge.
    const intake = new JobIntake(config.slots, {} as EdgeClient, async () => undefined);
    server = createWorkerServer({ config, intake, metrics: new WorkerMetrics(config.slots, async () => []) });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("serves /health and /metrics with the push transport", async () => {
    const base = await start({ GPU_WORKER_SLOTS: "3" });
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", transport: "push", slots: 3, busy: 0 });

    const scrape = await fetch(`${base}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await scrape.text();
    expectExposition(text);
    expect(text).toContain("adclean_worker_slots 3\n");

    const offer = await fetch(`${base}/jobs`, { method: "POST", body: "{}" });
    expect(offer.status).toBe(401);
  });

  it("serves /health and /metrics but takes no pushed jobs with the pull transport", async () => {
    const base = await start({
      GPU_WORKER_TRANSPORT: "pull",
      CF_ACCOUNT_ID: "account",
      CF_QUEUE_ID: "queue",
      CF_API_TOKEN: "token",
    });
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: "ok", transport: "pull" });
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    const offer = await fetch(`${base}/jobs`, {
      method: "POST",
      headers: { Authorization: "Bearer secret" },
      body: JSON.stringify({ job_id: "job_1" }),
    });
    expect(offer.status).toBe(404);
  });
});
