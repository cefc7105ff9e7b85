/**
 * `npm run bench [-- --quick | --real | --clip NAME] [--gpu]`: builds its test set with ffmpeg in
 * .cache/bench (kept between runs), runs the engine and two baselines on every clip (and, on the
 * clips of the 720p speed target, the engine on the footage without its text), scores each output
 * against the truth and prints a table; the full results go to .cache/bench/results.json. With
 * --gpu the engine must run its text models on CUDA (without CUDA its runs fail and say why); the
 * fps column gives the frames per second of each method, and the fill's kernels are timed on CUDA
 * after the clips. `-- --kernels` times the kernels alone (kernels.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { CLIPS, type ClipSpec } from "./clips";
import { FFMPEG } from "./ffmpeg";
import { buildClip } from "./footage";
import { benchKernels } from "./kernels";
import { type MethodName, type MethodRun, runMethod } from "./methods";
import {
  type ClipResult,
  formatStageTable,
  formatStandings,
  formatTable,
  type MethodResult,
  standings,
} from "./report";
import { scoreOutputs } from "./score";

const CACHE = path.resolve(import.meta.dirname, "..", ".cache", "bench");
const RESULTS = path.join(CACHE, "results.json");

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    real: { type: "boolean", default: false },
    clip: { type: "string" },
    gpu: { type: "boolean", default: false },
    kernels: { type: "boolean", default: false },
    "write-graphs": { type: "string" },
  },
});

/** The kernels' table (kernels.ts); false, having said why, when they cannot run (CUDA asked, none). */
async function kernelsTable(): Promise<boolean> {
  try {
    await benchKernels({
      gpu: values.gpu,
      ...(values["write-graphs"] ? { writeGraphsTo: values["write-graphs"] } : {}),
    });
    return true;
  } catch (error) {
    console.error(`kernels: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

if (values.kernels) process.exit((await kernelsTable()) ? 0 : 1);

function selectClips(): ClipSpec[] {
  if (values.clip) {
    const clip = CLIPS.find(({ name }) => name === values.clip);
    if (!clip) {
      console.error(
        `unknown clip ${values.clip}; the clips are: ${CLIPS.map(({ name }) => name).join(", ")}`,
      );
      process.exit(2);
    }
    return [clip];
  }
  if (values.real) return CLIPS.filter(({ real }) => real);
  return values.quick ? CLIPS.filter(({ quick }) => quick) : CLIPS;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function benchClip(clip: ClipSpec): Promise<ClipResult> {
  const generating = Date.now();
  const { dir, truth, built } = await buildClip(CACHE, clip);
  log(
    `${clip.name}: footage ${built ? `made in ${((Date.now() - generating) / 1000).toFixed(1)} s` : "cached"}`,
  );
  // The clips of the speed target also time the engine on their footage without text (its floor).
  const methods: MethodName[] = [
    "transcode",
    "engine",
    "engine-warm",
    ...(clip.speed ? (["engine-no-text"] as const) : []),
    ...(clip.baselines ? (["delogo", "telea"] as const) : []),
  ];
  const runs: MethodRun[] = [];
  for (const method of methods) {
    const run = await runMethod(method, dir, clip, truth, { gpu: values.gpu });
    log(`${clip.name}: ${method} ${run.seconds.toFixed(1)} s${run.error ? ` FAILED ${run.error}` : ""}`);
    runs.push(run);
  }
  const scored = await scoreOutputs(
    dir,
    clip,
    new Map(
      runs
        .filter((run) => !run.error && run.method !== "engine-no-text" && run.method !== "engine-warm")
        .map((run) => [run.method, run.output]),
    ),
  );
  const transcodeSeconds = runs[0]?.seconds ?? Number.NaN;
  const transcodeCpu = runs[0]?.cpuSeconds ?? Number.NaN;
  return {
    name: clip.name,
    purpose: clip.purpose,
    width: clip.width,
    height: clip.height,
    fps: clip.fps,
    seconds: clip.seconds,
    frames: truth.frames,
    maskedFrames: truth.maskedFrames,
    coverage: truth.coverage,
    speed: clip.speed,
    real: clip.real ?? false,
    hiddenEverywhere: clip.hiddenEverywhere ?? false,
    methods: runs.map(
      ({ output: _, ...run }): MethodResult => ({
        ...run,
        timeRatio: run.seconds / transcodeSeconds,
        cpuRatio: run.cpuSeconds / transcodeCpu,
        ...scored.get(run.method),
      }),
    ),
  };
}

function machine() {
  const ffmpegVersion = execFileSync(FFMPEG, ["-version"], { encoding: "utf8" }).split("\n")[0];
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, ffmpeg: ffmpegVersion };
}

const started = Date.now();
const startedAt = new Date().toISOString();
await mkdir(CACHE, { recursive: true });
const clips: ClipResult[] = [];
const save = () => {
  const wallSeconds = (Date.now() - started) / 1000;
  const report = {
    startedAt,
    wallSeconds,
    argv: process.argv.slice(2),
    machine: machine(),
    clips,
    standing: standings(clips),
  };
  return writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
};
for (const clip of selectClips()) {
  clips.push(await benchClip(clip));
  await save(); // a run cut short keeps what it measured
}
console.log(formatTable(clips));
console.log(`\n${formatStageTable(clips)}`);
console.log(`\n${formatStandings(standings(clips))}`);
console.log(`\nwall time ${((Date.now() - started) / 1000).toFixed(0)} s; results: ${RESULTS}`);
// On a GPU machine the fill's kernels are measured on CUDA too, after the clips.
if (values.gpu) await kernelsTable();
