import type { Detection, Track } from "./tracks";

/** A box this close to the frame's side (pixels) touches it. */
const EDGE = 2;
/** Slower than this (pixels a frame) a line is not sliding over the side. */
const MIN_SPEED = 1;
/** A track's end is moved at most this many frames past where it was refined to. */
const MAX_FRAMES = 12;

/**
 * Stretches a line that slides in or out over the frame's left or right side to the frames it
 * shows a sliver on. Those frames show a few pixels of its leading or trailing letter, too few to
 * move a signature cell (refineEnds sees nothing arrive or leave) and too few to read; the sliver
 * is left there, and a frame left unmasked with it is a source the fill borrows it back from: on
 * the held-out Megamind CTA clip, a line sliding in from the left at 23 px a frame was erased from
 * frame 6, and frames 6 to 9 got two white columns at the edge back from frame 5; one sliding out
 * kept a sliver of its "N" on the frame after its last reading. The end is moved to where the line's
 * end at the side, carried on at the speed it moved between the two readings nearest it, crosses it.
 */
export function extendToSlivers(track: Track, frameWidth: number, lastFrame: number): void {
  const { detections } = track;
  if (detections.length < 2) return;
  const before = framesOfSliver(detections[0] as Detection, detections[1] as Detection, frameWidth);
  if (before !== null) {
    const sliver = Math.floor((detections[0] as Detection).frame - before) + 1;
    track.first = Math.max(0, track.first - MAX_FRAMES, Math.min(track.first, sliver));
  }
  const last = detections.at(-1) as Detection;
  const after = framesOfSliver(last, detections.at(-2) as Detection, frameWidth);
  if (after !== null) {
    const sliver = Math.ceil(last.frame + after) - 1;
    track.last = Math.min(lastFrame, track.last + MAX_FRAMES, Math.max(track.last, sliver));
  }
}

/**
 * For how many frames past reading `end` the line still shows, where both readings touch one side
 * and `end`'s is the nearer to crossing it (the line moving from `other` towards the side); null
 * where the line does not slide over a side.
 */
function framesOfSliver(end: Detection, other: Detection, frameWidth: number): number | null {
  const frames = Math.abs(end.frame - other.frame);
  if (frames === 0) return null;
  const right = (d: Detection) => d.box.x + d.box.width;
  if (end.box.x <= EDGE && other.box.x <= EDGE) {
    const speed = (right(other) - right(end)) / frames;
    return speed >= MIN_SPEED ? right(end) / speed : null;
  }
  if (right(end) >= frameWidth - EDGE && right(other) >= frameWidth - EDGE) {
    const speed = (end.box.x - other.box.x) / frames;
    return speed >= MIN_SPEED ? (frameWidth - end.box.x) / speed : null;
  }
  return null;
}
