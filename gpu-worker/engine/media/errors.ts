export type MediaFailure = "unreadable_video" | "unsupported_format" | "ffmpeg_failed";

/** A video that cannot be read, or an ffmpeg run that failed; stderr holds ffmpeg's last lines. */
export class MediaError extends Error {
  constructor(
    readonly code: MediaFailure,
    message: string,
    readonly stderr?: string,
  ) {
    super(message);
    this.name = "MediaError";
  }
}

/** What an aborted operation rejects with, whatever reason the signal was given. */
export function abortError(): DOMException {
  return new DOMException("The operation was aborted.", "AbortError");
}
