import { limitBreach } from "../contract/video-limits";
import type { ClaimedJob } from "../contract/worker-api";
import type { InputVideo } from "./engine-contract";

/**
 * Room for the clocks of one honest file to disagree (rounding between the container's and the
 * streams' timescales, an audio frame past the video): far below one billed second's worth of cheating.
 */
const DURATION_TOLERANCE_SECONDS = 0.5;

/** The downloaded file is not what was priced, or breaks a limit: the job fails and its credits come back. */
export class InputRefusedError extends Error {
  readonly code = "limit_exceeded";
  override name = "InputRefusedError";
}

const CREDITS_BACK = "The job was not run and its credits were returned.";

/**
 * Checks what the worker actually downloaded against what the edge priced at job creation: a
 * video_url server can answer the edge's range probe and the worker's GET with different files,
 * and a file's headers can understate what its streams hold. Refused rather than billed anew:
 * credits are reserved once, at creation, and the customer sees the reason.
 */
export function admitPriced(priced: ClaimedJob["input"]): (video: InputVideo) => void {
  return (video) => {
    const breach = limitBreach(video);
    if (breach) throw new InputRefusedError(`${breach.message} ${CREDITS_BACK}`);
    if (video.durationSeconds > priced.duration_seconds + DURATION_TOLERANCE_SECONDS) {
      throw new InputRefusedError(
        `The file downloaded plays ${video.durationSeconds.toFixed(1)} s, longer than the ` +
          `${priced.duration_seconds.toFixed(1)} s it was priced at when the job was created (the file at the ` +
          `address changed, or its metadata understates its length). ${CREDITS_BACK}`,
      );
    }
  };
}
