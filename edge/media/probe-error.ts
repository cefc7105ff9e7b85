export type ProbeFailure = "unsupported_format" | "unreadable_video";

/** Why a file cannot be probed; the message is written for the customer who uploaded it. */
export class ProbeError extends Error {
  constructor(
    readonly reason: ProbeFailure,
    message: string,
  ) {
    super(message);
    this.name = "ProbeError";
  }
}

export const NOT_MP4 = "The file is not an MP4 or MOV video.";
export const EMPTY_FILE = "The file is empty.";
export const MISSING_MOOV = "The file ends before its metadata (moov); the upload may be incomplete.";
export const DAMAGED_STRUCTURE = "The file is damaged: a part of it has an invalid size.";
export const DAMAGED_METADATA = "The video's metadata is damaged and cannot be read.";
export const MOOV_TOO_LARGE = "The video's metadata is too large to read.";
export const SHORT_READ = "The file could not be read completely.";
export const TOO_MANY_BOXES = "The video's metadata has too many entries to read.";
export const TOO_DEEP = "The video's metadata is nested too deeply to read.";
export const NO_VIDEO_TRACK = "The file has no video track.";
export const NO_DIMENSIONS = "The video track has no width or height.";
export const NO_CODEC = "The video track does not say which codec it uses.";
export const NO_DURATION = "The video's duration could not be determined.";

export function unreadable(message: string): ProbeError {
  return new ProbeError("unreadable_video", message);
}
