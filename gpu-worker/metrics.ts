import { type GpuMemory, gpuMemoryReader } from "./gpu-memory";

export type JobOutcome = "succeeded" | "failed" | "canceled" | "lease_lost";
const OUTCOMES: readonly JobOutcome[] = ["succeeded", "failed", "canceled", "lease_lost"];

/** One job's timing, as the runner sees it. */
export interface JobTiming {
  /** The job is in this stage now; the time since the previous stage began counts to that one. */
  enter(stage: string): void;
  /** The engine made `frames` frames in `seconds`. */
  frames(frames: number, seconds: number): void;
  /** The job ended; its last stage's time counts. Only the first call counts. */
  end(outcome: JobOutcome): void;
}

/** One line of a family; a summary's lines carry the suffix _sum or _count. */
interface Sample {
  value: number;
  labels?: Record<string, string>;
  suffix?: "_sum" | "_count";
}

const escapeLabel = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** One metric family in Prometheus' text exposition format (version 0.0.4). */
function family(
  name: string,
  type: "counter" | "gauge" | "summary",
  help: string,
  samples: Sample[],
): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const { value, labels = {}, suffix = "" } of samples) {
    const pairs = Object.entries(labels).map(([key, label]) => `${key}="${escapeLabel(label)}"`);
    lines.push(`${name}${suffix}${pairs.length > 0 ? `{${pairs.join(",")}}` : ""} ${value}`);
  }
  return lines.join("\n");
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * The worker's own numbers, kept in memory and written out for Prometheus on GET /metrics: jobs by
 * outcome, jobs running, slots, time per stage (a summary: sum and count), frames made and the last
 * job's frames per second, and GPU memory where nvidia-smi answers.
 */
export class WorkerMetrics {
  private readonly outcomes = new Map<JobOutcome, number>(OUTCOMES.map((outcome) => [outcome, 0]));
  private readonly stages = new Map<string, { sum: number; count: number }>();
  private readonly edgeRefusals = new Map<number, number>();
  private running = 0;
  private framesTotal = 0;
  private lastFps: number | undefined;

  constructor(
    readonly slots: number,
    private readonly gpuMemory: () => Promise<GpuMemory[]> = gpuMemoryReader(),
    private readonly now: () => number = () => performance.now() / 1000,
  ) {}

  startJob(): JobTiming {
    this.running++;
    let stage: { name: string; since: number } | undefined;
    let ended = false;
    const closeStage = () => {
      if (!stage) return;
      const totals = this.stages.get(stage.name) ?? { sum: 0, count: 0 };
      totals.sum += this.now() - stage.since;
      totals.count++;
      this.stages.set(stage.name, totals);
    };
    return {
      enter: (name) => {
        if (ended || stage?.name === name) return;
        closeStage();
        stage = { name, since: this.now() };
      },
      frames: (frames, seconds) => {
        this.framesTotal += frames;
        if (seconds > 0) this.lastFps = frames / seconds;
      },
      end: (outcome) => {
        if (ended) return;
        ended = true;
        closeStage();
        this.running--;
        this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
      },
    };
  }

  /** The edge refused a call with this status (a wrong WORKER_SECRET, its own fault): alert on it. */
  edgeRefused(status: number): void {
    this.edgeRefusals.set(status, (this.edgeRefusals.get(status) ?? 0) + 1);
  }

  async render(): Promise<string> {
    const gpus = await this.gpuMemory();
    const families = [
      family(
        "adclean_worker_jobs_total",
        "counter",
        "Jobs this worker ran to an end, by outcome.",
        OUTCOMES.map((outcome) => ({ labels: { outcome }, value: this.outcomes.get(outcome) ?? 0 })),
      ),
      family("adclean_worker_jobs_running", "gauge", "Jobs running now.", [{ value: this.running }]),
      family("adclean_worker_slots", "gauge", "Jobs this worker runs at once (GPU_WORKER_SLOTS).", [
        { value: this.slots },
      ]),
      family(
        "adclean_worker_stage_seconds",
        "summary",
        "Time spent in each job stage.",
        [...this.stages].flatMap(([stage, { sum, count }]): Sample[] => [
          { labels: { stage }, value: sum, suffix: "_sum" },
          { labels: { stage }, value: count, suffix: "_count" },
        ]),
      ),
      family("adclean_worker_frames_total", "counter", "Video frames the engine has made.", [
        { value: this.framesTotal },
      ]),
      family(
        "adclean_worker_edge_refusals_total",
        "counter",
        "Calls the edge refused other than 'not yours' (401 wrong WORKER_SECRET, 400, 5xx), by status.",
        [...this.edgeRefusals].map(([status, value]) => ({ labels: { status: String(status) }, value })),
      ),
    ];
    if (this.lastFps !== undefined) {
      families.push(
        family(
          "adclean_worker_frames_per_second",
          "gauge",
          "Frames per second of the engine on the last job.",
          [{ value: this.lastFps }],
        ),
      );
    }
    if (gpus.length > 0) {
      families.push(
        family(
          "adclean_worker_gpu_memory_used_bytes",
          "gauge",
          "GPU memory in use (nvidia-smi).",
          gpus.map(({ gpu, usedBytes }) => ({ labels: { gpu }, value: usedBytes })),
        ),
        family(
          "adclean_worker_gpu_memory_total_bytes",
          "gauge",
          "GPU memory in all (nvidia-smi).",
          gpus.map(({ gpu, totalBytes }) => ({ labels: { gpu }, value: totalBytes })),
        ),
      );
    }
    return `${families.join("\n")}\n`;
  }
}
