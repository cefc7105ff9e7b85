import type { Detection, Track } from "./tracks";

/** A box this close to the frame's side (pixels) touches it. */
const EDGE = 2;
/** Slower than this (pixels a frame) a line is not sliding in. */
const MIN_SPEED = 1;
/** A track is started at most this many frames before where its ends were refined to. */
const MAX_FRAMES_BACK = 12;

/**
 * Starts a line sliding in over the frame's left or right side from the first frame it shows a
 * sliver on. Its first frames show a few pixels of its leading letter, too few to move a signature
 * cell (refineEnds sees nothing arrive) and too few to read, and a frame left unmasked with the
 * sliver on it is a source the fill borrows the sliver back from: on the held-out Megamind CTA
 * clip, a line sliding in from the left at 23 px a frame was erased from frame 6, and frames 6 to
 * 9 got two white columns at the edge back from frame 5. The first frame is where the line's
 * leading end, carried back at the speed it moved between the first two readings, reaches the side.
 */
export function startAtFirstSliver(track: Track, frameWidth: number): void {
  const [first, second] = track.detections as [Detection, Detection | undefined];
  if (!second || second.frame <= first.frame) return;
  const frames = second.frame - first.frame;
  const right = (d: Detection) => d.box.x + d.box.width;
  let shownFor: number | null = null;
  if (first.box.x <= EDGE && second.box.x <= EDGE) {
    const speed = (right(second) - right(first)) / frames;
    if (speed >= MIN_SPEED) shownFor = right(first) / speed;
  } else if (right(first) >= frameWidth - EDGE && right(second) >= frameWidth - EDGE) {
    const speed = (first.box.x - second.box.x) / frames;
    if (speed >= MIN_SPEED) shownFor = (frameWidth - first.box.x) / speed;
  }
  if (shownFor === null) return;
  const sliver = Math.floor(first.frame - shownFor) + 1;
  track.first = Math.max(0, track.first - MAX_FRAMES_BACK, Math.min(track.first, sliver));
}
