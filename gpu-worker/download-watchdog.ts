import type { DownloadLimits } from "./config";

/** Why a download was cut off: the source is too slow, whatever it is sending. */
export class SlowSourceError extends Error {
  override name = "SlowSourceError";
}

export interface DownloadWatchdog {
  /** Aborts with SlowSourceError when a limit is passed, or with the caller's reason on its abort. */
  readonly signal: AbortSignal;
  /** Counts bytes as they arrive. */
  received(bytes: number): void;
  /** Stops watching (the download ended either way). */
  end(): void;
}

/**
 * Holds a download to its limits: the whole of it within the deadline, and at least the minimum rate
 * over every window from the first request on, so a server that trickles a byte now and then (or
 * sends nothing at all) cannot hold a worker slot.
 */
export function watchDownload(limits: DownloadLimits, outer?: AbortSignal): DownloadWatchdog {
  const controller = new AbortController();
  const stop = (message: string) => controller.abort(new SlowSourceError(message));
  const deadline = setTimeout(
    () => stop(`The video was not downloaded within ${Math.round(limits.deadlineMs / 1000)} s.`),
    limits.deadlineMs,
  );
  const minimum = (limits.minBytesPerSecond * limits.rateWindowMs) / 1000;
  let windowBytes = 0;
  const rate = setInterval(() => {
    if (windowBytes < minimum) {
      stop(`The video's server sent it slower than ${limits.minBytesPerSecond} bytes a second.`);
    }
    windowBytes = 0;
  }, limits.rateWindowMs);
  const forward = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", forward, { once: true });
  if (outer?.aborted) forward();
  return {
    signal: controller.signal,
    received: (bytes) => {
      windowBytes += bytes;
    },
    end: () => {
      clearTimeout(deadline);
      clearInterval(rate);
      outer?.removeEventListener("abort", forward);
    },
  };
}
