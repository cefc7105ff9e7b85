import { overlaps, type SizedRect } from "../geometry";
import { compose, type IndexedFrame } from "./motion-chain";
import type { Homography } from "./types";

/**
 * How many frames from after the window one frame may be filled from, nearest first: one for each
 * line on screen then that outlasts the window (a hook, a caption and a tag at once).
 */
export const LATER_FRAMES = 3;

/** The frames a line is on, first to last, and where it is on each. */
export interface Line {
  first: number;
  last: number;
  box: (frame: number) => SizedRect;
}

/**
 * The frames after `line` leaves that may show what it hid, nearest first: the first after it, and,
 * while another line is on in its place then (subtitles that follow each other in one place), the
 * first after that one leaves too; LATER_FRAMES at most, before `frameCount`.
 */
export function shownAfter(line: Line, lines: Line[], frameCount: number): number[] {
  const place = line.box(line.last);
  const shown: number[] = [];
  for (let at = line.last + 1; at < frameCount && shown.length < LATER_FRAMES; ) {
    shown.push(at);
    const covering = lines.filter(
      (other) => other.first <= at && at <= other.last && overlaps(other.box(at), place),
    );
    if (covering.length === 0) break;
    at = Math.max(...covering.map((other) => other.last)) + 1;
  }
  return shown;
}

/**
 * The frames from after the window (issue 22's "reach past the window", forward): a line on screen
 * for longer than the window (a hook from the first frame) hides pixels that no frame of its early
 * frames' windows shows, while the frame just after the line leaves shows them (or, where the next
 * subtitle takes its place, the frame after that one leaves: shownAfter). Such a frame is fetched
 * ahead of the window (a seek), once, and let go as soon as the window reaches it. It is lined up
 * by a direct motion (the chain has no steps that far ahead), measured once for a stretch of frames
 * (lineUp), and checked as any source by the caller.
 */
export class LaterFrames<Frame extends IndexedFrame> {
  private readonly fetched = new Map<number, Promise<Frame | undefined>>();
  /** The last fetch asked for: the next starts once it is over. */
  private fetching: Promise<unknown> = Promise.resolve();
  /** By later frame, then by region: the frame whose direct motion to it was measured, and that motion. */
  private readonly anchors = new Map<
    number,
    Map<string, { index: number; motion: Promise<Homography | undefined> }>
  >();
  /** Each line's span, and the frames after it that may show what it hid (shownAfter). */
  private readonly lines: Array<{ first: number; last: number; shown: number[] }>;

  constructor(
    lines: Line[],
    /** The frames that start a shot (the reading pass's, told from the whole picture), in order. */
    private readonly cuts: number[],
    frameCount: number,
    /** Frames on each side of a frame that its window holds. */
    private readonly radius: number,
    /** The frame at an index with its mask, or undefined where it cannot be had. */
    private readonly fetch: (index: number) => Promise<Frame | undefined>,
    /** Called with each fetched frame let go. */
    private readonly letGo: (frame: Frame) => void,
  ) {
    this.lines = lines.map((line) => ({ ...line, shown: shownAfter(line, lines, frameCount) }));
  }

  /**
   * The indices of the frames after the lines on screen at `index` that may show what they hide,
   * past its window, nearest first; none across a cut (one at the frame itself is the caller's to
   * tell, with masks: the line's own plate going may look like one here).
   */
  wanted(index: number): number[] {
    const after = new Set<number>();
    for (const { first, last, shown } of this.lines) {
      if (first > index || index > last) continue;
      for (const at of shown) if (at > index + this.radius) after.add(at);
    }
    for (const cut of this.cuts) {
      if (cut <= index) continue;
      for (const at of after) if (at > cut) after.delete(at);
      break;
    }
    return [...after].sort((a, b) => a - b).slice(0, LATER_FRAMES);
  }

  /** Starts fetching the frames that frame `index` wants, so they are there when it is filled. */
  prefetch(index: number): void {
    for (const at of this.wanted(index)) this.frameAt(at);
  }

  /** The frames that frame `index` wants, those that could be had, nearest first. */
  async for(index: number): Promise<Frame[]> {
    const frames: Frame[] = [];
    for (const at of this.wanted(index)) {
      const frame = await this.frameAt(at);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  /**
   * The motion from frame `index` to later frame `later` in a region (`region` names it): measured
   * directly (`measure`) from the first frame that asks, which becomes the anchor, and for the frames
   * after it within the window's reach composed with their motion to the anchor (`toAnchor`, the
   * chain's). A direct fit costs as much as a window's worth of chain steps, and where it fails (a
   * cut between) it fails for the anchor's neighbours too: it is not tried again before the reach.
   */
  async lineUp(
    index: number,
    later: number,
    region: string,
    measure: () => Promise<Homography | undefined>,
    toAnchor: (anchor: number) => Promise<Homography | undefined>,
  ): Promise<Homography | undefined> {
    const byRegion = this.anchors.get(later) ?? new Map();
    this.anchors.set(later, byRegion);
    let anchor = byRegion.get(region);
    if (!anchor || index < anchor.index || index - anchor.index > this.radius) {
      anchor = { index, motion: measure() };
      byRegion.set(region, anchor);
    }
    const direct = await anchor.motion;
    if (!direct || anchor.index === index) return direct;
    const step = await toAnchor(anchor.index);
    return step && compose(direct, step);
  }

  /** Lets go of the frames at `index` and before: the windows from here on hold them. */
  reached(index: number): Promise<void> {
    const leaving: Array<Promise<void>> = [];
    for (const [at, frame] of this.fetched) {
      if (at > index) continue;
      this.fetched.delete(at);
      leaving.push(
        frame.then(
          (got) => got && this.letGo(got),
          () => undefined,
        ),
      );
    }
    for (const at of this.anchors.keys()) if (at <= index) this.anchors.delete(at);
    return Promise.all(leaving).then(() => undefined);
  }

  /** Lets go of every frame fetched, once the fetches still under way are over (their ffmpeg gone). */
  clear(): Promise<void> {
    return this.reached(Number.POSITIVE_INFINITY);
  }

  private frameAt(index: number): Promise<Frame | undefined> {
    let frame = this.fetched.get(index);
    if (!frame) {
      // One fetch at a time: each is an ffmpeg decoder of its own, and the frames started ahead may
      // ask for several at once (real-portrait's words in a row: a peak of 949 MB with them all under
      // way together, 723 one at a time).
      frame = this.fetching.then(() => this.fetch(index));
      this.fetching = frame.catch(() => undefined); // a failure surfaces when the frame is asked for
      this.fetched.set(index, frame);
    }
    return frame;
  }
}
