import type { Region } from "../../../contract/worker-api";
import type { EdgeRect } from "../geometry";

/** A customer's area in frame pixels, with the span it is erased over (seconds of the video). */
export interface FrameArea {
  rect: EdgeRect;
  startSeconds: number;
  /** Infinity: to the last frame. */
  endSeconds: number;
}

/**
 * The job's regions in frame pixels, grown outward to whole pixels (an area cuts no pixel in two,
 * so nothing of what it covers is left), spanning to the last frame where no end is given.
 */
export function frameAreas(regions: readonly Region[], width: number, height: number): FrameArea[] {
  return regions.map((area) => ({
    rect: {
      x0: Math.max(0, Math.floor(area.x * width)),
      y0: Math.max(0, Math.floor(area.y * height)),
      x1: Math.min(width, Math.ceil((area.x + area.width) * width)),
      y1: Math.min(height, Math.ceil((area.y + area.height) * height)),
    },
    startSeconds: area.start_seconds ?? 0,
    endSeconds: area.end_seconds ?? Number.POSITIVE_INFINITY,
  }));
}

/** The areas on screen at `ptsSeconds`. */
export function areasAt(areas: readonly FrameArea[], ptsSeconds: number): FrameArea[] {
  return areas.filter((area) => area.startSeconds <= ptsSeconds && ptsSeconds < area.endSeconds);
}
