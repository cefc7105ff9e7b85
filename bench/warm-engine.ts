/**
 * `node --import tsx bench/warm-engine.ts INPUT OUTPUT WARM_UP_INPUT [--provider auto|cpu|cuda]`: the
 * engine as the worker runs it, in a process that is already warm. It opens the text models once,
 * cleans WARM_UP_INPUT (a second of the clip: the code is compiled and the models have run), then
 * times the cleaning of INPUT alone and prints one JSON line: its wall seconds, the engine's summary
 * and the CPU seconds by stage (gpu-worker/engine/stage-clock.ts).
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { cleanVideo } from "../gpu-worker/engine/clean";
import { createOcrEngine } from "../gpu-worker/engine/ocr/ocr";
import { StageClock, withStageClock } from "../gpu-worker/engine/stage-clock";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { provider: { type: "string", default: "auto" } },
});
const [input, output, warmUp] = positionals as [string, string, string];
const provider = values.provider as "auto" | "cpu" | "cuda";

const ocr = await createOcrEngine({ provider });
const warmUpOutput = `${output}.warm-up.mp4`;
try {
  await cleanVideo(warmUp, warmUpOutput, { ocr });
  const clock = new StageClock();
  const started = process.hrtime.bigint();
  const summary = await withStageClock(clock, () => cleanVideo(input, output, { ocr }));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ seconds, provider: ocr.provider, ...summary, cpu_seconds: clock.read() }));
} finally {
  await Promise.all([ocr.close(), rm(warmUpOutput, { force: true })]);
}
