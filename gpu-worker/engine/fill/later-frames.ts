import type { IndexedFrame } from "./motion-chain";

/**
 * How many frames from after the window one frame may be filled from, nearest first: one for each
 * line on screen then that outlasts the window (a hook, a caption and a tag at once).
 */
export const LATER_FRAMES = 3;

/** The frames a line is on, first to last. */
export interface Span {
  first: number;
  last: number;
}

/**
 * The frames from after the window (issue 22's "reach past the window", forward): a line on screen
 * for longer than the window (a hook from the first frame) hides pixels that no frame of its early
 * frames' windows shows, while the frame just after the line leaves shows them. That frame is fetched
 * ahead of the window (a seek), once, and let go as soon as the window reaches it. The caller lines
 * it up (a direct motion: the chain has no steps that far ahead) and checks it as any source.
 */
export class LaterFrames<Frame extends IndexedFrame> {
  private readonly fetched = new Map<number, Promise<Frame | undefined>>();

  constructor(
    private readonly lines: Span[],
    private readonly frameCount: number,
    /** Frames on each side of a frame that its window holds. */
    private readonly radius: number,
    /** The frame at an index with its mask, or undefined where it cannot be had. */
    private readonly fetch: (index: number) => Promise<Frame | undefined>,
    /** Called with each fetched frame let go. */
    private readonly letGo: (frame: Frame) => void,
  ) {}

  /** The indices of the frames just after the lines on screen at `index` leave, past its window, nearest first. */
  wanted(index: number): number[] {
    const after = new Set<number>();
    for (const { first, last } of this.lines) {
      const leftAt = last + 1;
      if (first <= index && index <= last && leftAt > index + this.radius && leftAt < this.frameCount)
        after.add(leftAt);
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

  /** Lets go of the frames at `index` and before: the windows from here on hold them. */
  reached(index: number): void {
    for (const [at, frame] of this.fetched) {
      if (at > index) continue;
      this.fetched.delete(at);
      frame.then(
        (got) => got && this.letGo(got),
        () => undefined,
      );
    }
  }

  /** Lets go of every frame fetched. */
  clear(): void {
    this.reached(Number.POSITIVE_INFINITY);
  }

  private frameAt(index: number): Promise<Frame | undefined> {
    let frame = this.fetched.get(index);
    if (!frame) {
      frame = this.fetch(index);
      frame.catch(() => undefined); // surfaces when the frame is asked for
      this.fetched.set(index, frame);
    }
    return frame;
  }
}
