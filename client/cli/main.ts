/**
 * `adclean`: the command line of the API, on the TypeScript client. `npm run -s adclean -- <command>`.
 * Human output on stdout and progress on stderr; with --json exactly one JSON line on stdout.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { reportSummary } from "../../edge/schemas/report-summary";
import { AdClean } from "../index";
import type { Job, JobListQuery } from "../types";
import { bindOptionValues } from "./args";
import { clean, defaultOutput, isUrl } from "./clean";
import { probeDuration } from "./duration";
import { EXIT, errorJson, exitCodeOf, UsageError } from "./exit-codes";
import { formatAccount, formatEstimate, formatJob, formatJobList } from "./format";
import { ProgressDisplay } from "./progress";
import { parseRegion } from "./regions";

const USAGE = `usage: adclean <command> [--json]
  clean <file|url> [-o out.mp4] [--text "exact text"]...   upload, clean, download, summarise
        [--region x,y,w,h[,start,end]]... [--picture before-after.jpg]
  estimate <seconds|file>                                 credits a video costs
  jobs list [--limit N] [--status S] [--starting-after ID]
  jobs get <id> [--picture before-after.jpg]
  jobs cancel <id>
  account                                                 plan, credits, limits
environment: ADCLEAN_API_KEY (required), ADCLEAN_BASE_URL (default http://127.0.0.1:8787)
exit status: 0 done, 1 local failure, 2 usage, 3 refused by the API (4xx), 4 job failed or canceled,
  5 service unreachable or 5xx after retries, 130 interrupted (the job is canceled)`;

interface Outcome {
  json: unknown;
  text: string;
  exitCode: number;
}

const OPTIONS = {
  output: { type: "string", short: "o" },
  text: { type: "string", multiple: true },
  region: { type: "string", multiple: true },
  picture: { type: "string" },
  json: { type: "boolean", default: false },
  limit: { type: "string" },
  status: { type: "string" },
  "starting-after": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: bindOptionValues(argv, OPTIONS), allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function argument(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`missing ${name}`);
  return value;
}

/**
 * A path as the user typed it: `npm run` starts us in the project root, so relative paths are
 * taken from the folder npm was called in (INIT_CWD).
 */
function userPath(file: string): string {
  const base = process.env.npm_lifecycle_event === "adclean" ? process.env.INIT_CWD : undefined;
  return isUrl(file) ? file : path.resolve(base ?? process.cwd(), file);
}

function clientFromEnv(progress: ProgressDisplay): AdClean {
  const apiKey = process.env.ADCLEAN_API_KEY;
  if (!apiKey) throw new UsageError("set ADCLEAN_API_KEY to an API key (sk_live_…)");
  return new AdClean({
    apiKey,
    baseUrl: process.env.ADCLEAN_BASE_URL || "http://127.0.0.1:8787",
    onRetry: ({ reason, delayMs }) =>
      progress.note(`${reason}; retrying in ${(delayMs / 1000).toFixed(1)} s`),
  });
}

/** After `clean`: the report in a sentence, and where the picture went. */
function cleanedSummary(job: Job | undefined, picture: string | null): string[] {
  if (!job?.report) return [];
  return [reportSummary(job.report), ...(picture ? [`before/after picture: ${picture}`] : [])];
}

async function run(argv: string[], progress: ProgressDisplay): Promise<Outcome> {
  const { values, positionals } = parse(argv);
  const [command, ...args] = positionals;
  if (values.help) return { json: { usage: USAGE }, text: USAGE, exitCode: EXIT.ok };
  const client = clientFromEnv(progress);
  const done = (json: unknown, text: string): Outcome => ({ json, text, exitCode: EXIT.ok });
  switch (command) {
    case "clean": {
      const input = userPath(argument(args[0], "<file|url>"));
      const output = userPath(values.output ?? defaultOutput(input));
      const options = {
        output,
        texts: values.text,
        regions: values.region?.map(parseRegion),
        picture: values.picture === undefined ? undefined : userPath(values.picture),
      };
      const outcome = await clean(client, input, options, progress);
      const text = outcome.output
        ? [outcome.output, ...cleanedSummary(outcome.job, outcome.picture)].join("\n")
        : outcome.job
          ? formatJob(outcome.job)
          : "interrupted";
      const json = { job: outcome.job ?? null, output: outcome.output, picture: outcome.picture };
      return { json, text, exitCode: outcome.exitCode };
    }
    case "estimate": {
      let input = argument(args[0], "<seconds|file>");
      let seconds = Number(input);
      if (!Number.isFinite(seconds)) {
        input = userPath(input);
        if (!existsSync(input)) throw new UsageError(`${input}: neither a number of seconds nor a file`);
        seconds = await probeDuration(input);
      }
      const estimate = await client.estimate(seconds);
      return done(estimate, formatEstimate(estimate));
    }
    case "jobs": {
      const [action, id] = args;
      if (action === "list") {
        const query: JobListQuery = {};
        if (values.limit !== undefined) {
          query.limit = Number(values.limit);
          if (!Number.isInteger(query.limit)) throw new UsageError("--limit takes a whole number");
        }
        if (values.status) query.status = values.status as JobListQuery["status"];
        if (values["starting-after"]) query.starting_after = values["starting-after"];
        const list = await client.listJobs(query);
        return done(list, formatJobList(list));
      }
      if (action === "get" || action === "cancel") {
        const jobId = argument(id, "<id>");
        const job = action === "get" ? await client.getJob(jobId) : await client.cancelJob(jobId);
        if (action === "get" && values.picture) {
          await client.downloadReportPicture(job, userPath(values.picture));
          return done(job, `${formatJob(job)}\npicture saved: ${userPath(values.picture)}`);
        }
        return done(job, formatJob(job));
      }
      throw new UsageError("jobs takes list, get <id> or cancel <id>");
    }
    case "account": {
      const account = await client.getAccount();
      return done(account, formatAccount(account));
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : "missing command");
  }
}

const json = process.argv.includes("--json");
const progress = new ProgressDisplay();
try {
  const outcome = await run(process.argv.slice(2), progress);
  progress.end();
  console.log(json ? JSON.stringify(outcome.json) : outcome.text);
  process.exitCode = outcome.exitCode;
} catch (error) {
  progress.end();
  const details = errorJson(error);
  if (json) console.log(JSON.stringify({ error: details }));
  const code = "code" in details ? `${details.code}: ` : "";
  const request = "request_id" in details && details.request_id ? ` (request ${details.request_id})` : "";
  console.error(`adclean: ${code}${details.message}${request}`);
  if (error instanceof UsageError) console.error(USAGE);
  process.exitCode = exitCodeOf(error);
}
