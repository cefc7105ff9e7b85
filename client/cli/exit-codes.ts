import { AdCleanConnectionError, AdCleanError } from "../errors";

/** What the exit status says failed (README, "The adclean command"). */
export const EXIT = {
  ok: 0,
  /** A local failure: a file that cannot be read or written, ffprobe missing. */
  local: 1,
  usage: 2,
  /** The API refused the request (4xx): key, plan, credits, a bad parameter, not found. */
  refused: 3,
  /** The job ended failed or canceled. */
  jobFailed: 4,
  /** The service could not be reached, or answered 5xx, after every retry. */
  unreachable: 5,
  /** Ctrl-C (128 + SIGINT); a running job was canceled first. */
  interrupted: 130,
} as const;

/** A wrong command line: unknown command or option, missing argument, no API key. */
export class UsageError extends Error {
  override name = "UsageError";
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof AdCleanError) return error.status >= 500 ? EXIT.unreachable : EXIT.refused;
  if (error instanceof AdCleanConnectionError) return EXIT.unreachable;
  return EXIT.local;
}

/** The `--json` form of an error: the API's envelope fields when it is one. */
export function errorJson(error: unknown) {
  if (error instanceof AdCleanError) return error.toJSON();
  const message = error instanceof Error ? error.message : String(error);
  const type =
    error instanceof UsageError
      ? "usage_error"
      : error instanceof AdCleanConnectionError
        ? "connection_error"
        : "local_error";
  return { type, message };
}
