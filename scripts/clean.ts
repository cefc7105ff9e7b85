/**
 * `npm run -s clean -- INPUT -o OUTPUT [--text "exact text"]... [--provider auto|cpu|cuda] [--json]`:
 * the cleaning pipeline on a local file, no edge needed. Progress on stderr; with --json one summary
 * line on stdout, which says where the text models ran (`provider`) and the CPU seconds each stage
 * took (`cpu_seconds`: see gpu-worker/engine/stage-clock.ts).
 */
import { parseArgs } from "node:util";
import { bindOptionValues } from "../client/cli/args";
import { cleanVideo } from "../gpu-worker/engine/clean";
import { checkMediaTools } from "../gpu-worker/engine/media/tools-check";
import { createOcrEngine } from "../gpu-worker/engine/ocr/ocr";
import { StageClock, timedChildren, withStageClock } from "../gpu-worker/engine/stage-clock";

const USAGE = 'usage: clean INPUT -o OUTPUT [--text "exact text"]... [--provider auto|cpu|cuda] [--json]';
const PROVIDERS = ["auto", "cpu", "cuda"] as const;
const OPTIONS = {
  output: { type: "string", short: "o" },
  text: { type: "string", multiple: true },
  json: { type: "boolean", default: false },
  provider: { type: "string", default: "auto" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The command line, or usage on stderr and exit 2 (0 for --help) when it is not one this takes. */
function commandLine() {
  try {
    const parsed = parseArgs({
      args: bindOptionValues(process.argv.slice(2), OPTIONS),
      allowPositionals: true,
      options: OPTIONS,
    });
    if (parsed.values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    console.error(`clean: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
}

const { positionals, values } = commandLine();
const [input] = positionals;
const provider = PROVIDERS.find((name) => name === values.provider);
if (!input || !values.output || !provider) {
  console.error(USAGE);
  process.exit(2);
}

const controller = new AbortController();
process.on("SIGINT", () => controller.abort());

let lastLine = "";
const started = Date.now();
/** Opens the text models (with --provider cuda, failing when CUDA cannot be used) and cleans. */
async function clean(output: string) {
  await timedChildren("load", () => checkMediaTools());
  const ocr = await timedChildren("load", () => createOcrEngine({ provider }));
  try {
    const summary = await cleanVideo(input as string, output, {
      ocr,
      texts: values.text ?? null,
      signal: controller.signal,
      onProgress: (stage, fraction) => {
        // Whole tens of percent, so a log (not a terminal) gets a dozen lines, not thousands.
        const line = `${stage} ${Math.floor(fraction * 10) * 10}%`;
        if (line !== lastLine)
          process.stderr.write(process.stderr.isTTY ? `\r${line.padEnd(30)}` : `${line}\n`);
        lastLine = line;
      },
    });
    return { provider: ocr.provider, ...(ocr.cpuReason ? { cpu_reason: ocr.cpuReason } : {}), ...summary };
  } finally {
    await ocr.close();
  }
}

const clock = new StageClock({ fromProcessStart: true });
withStageClock(clock, () => clean(values.output as string)).then(
  (summary) => {
    process.stderr.write("\n");
    const result = {
      input,
      output: values.output,
      seconds: (Date.now() - started) / 1000,
      ...summary,
      cpu_seconds: clock.read(),
    };
    if (values.json) console.log(JSON.stringify(result));
    else
      console.error(
        `cleaned ${summary.frames} frames, ${summary.linesErased} lines erased -> ${values.output}`,
      );
  },
  (error: unknown) => {
    process.stderr.write("\n");
    const code = (error as { code?: string }).code ?? "processing_failed";
    const message = error instanceof Error ? error.message : String(error);
    if (values.json) console.log(JSON.stringify({ input, error: { code, message } }));
    console.error(`clean: ${code}: ${message}`);
    process.exit(1);
  },
);
