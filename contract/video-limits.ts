/** 15 minutes (spec, Limits). */
export const MAX_DURATION_SECONDS = 15 * 60;
/** Our decision: up to 4K UHD in either orientation (3840 on the long side, 2160 on the short). */
const MAX_LONG_SIDE = 3840;
const MAX_SHORT_SIDE = 2160;

export interface MeasuredVideo {
  durationSeconds: number;
  /** The frame size the frames are cleaned at (coded, before any rotation). */
  width: number;
  height: number;
}

export interface LimitBreach {
  code: "video_too_long" | "resolution_too_high";
  message: string;
}

/**
 * The service's length and resolution limits, shared by the edge (on the file's metadata, before
 * pricing) and the GPU worker (on what ffprobe reads of the file it downloaded).
 */
export function limitBreach(video: MeasuredVideo): LimitBreach | null {
  if (video.durationSeconds > MAX_DURATION_SECONDS) {
    return {
      code: "video_too_long",
      message: `The video lasts ${video.durationSeconds.toFixed(1)} s; the longest we clean is 15 minutes.`,
    };
  }
  const longSide = Math.max(video.width, video.height);
  const shortSide = Math.min(video.width, video.height);
  if (longSide > MAX_LONG_SIDE || shortSide > MAX_SHORT_SIDE) {
    return {
      code: "resolution_too_high",
      message: `The video is ${video.width}x${video.height}; the largest we clean is 3840x2160 (either orientation).`,
    };
  }
  return null;
}
