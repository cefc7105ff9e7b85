import type { IndexedFrame } from "./motion-chain";

/**
 * How many frames that left the window are kept as sources. Each holds pixels that every frame kept
 * after it hides (a caption that came on, a second line): a caption that stays up longer than the
 * window is filled from the frames before it came on.
 */
export const PAST_FRAMES = 3;

/**
 * The frames kept from before the window (issue 22's "reach past the window"): of the frames leaving
 * it, the latest that shows what the later ones hide. A frame that shows every pixel the newest kept
 * one shows takes its place; one that shows some pixel it hides is kept beside it (the oldest goes
 * past PAST_FRAMES); one that shows nothing new is let go.
 */
export class PastFrames<Frame extends IndexedFrame> {
  private readonly kept: Frame[] = [];

  constructor(
    /** Called with each frame let go (never kept, replaced or pushed out). */
    private readonly letGo: (frame: Frame) => void,
    private readonly limit = PAST_FRAMES,
  ) {}

  /** The kept frames, newest first. */
  get frames(): Frame[] {
    return this.kept.slice().reverse();
  }

  /** Offers a frame that left the window. Returns whether it was kept. */
  offer(frame: Frame): boolean {
    const newest = this.kept.at(-1);
    const { showsAll, showsNew } = newest
      ? compare(newest.mask, frame.mask)
      : { showsAll: true, showsNew: true };
    if (newest && showsAll) this.letGo(this.kept.pop() as Frame);
    else if (!showsNew) {
      this.letGo(frame);
      return false;
    }
    this.kept.push(frame);
    if (this.kept.length > this.limit) this.letGo(this.kept.shift() as Frame);
    return true;
  }

  /** Lets every kept frame go. */
  clear(): void {
    for (const frame of this.kept.splice(0)) this.letGo(frame);
  }
}

/** Whether `later` shows every pixel `earlier` shows, and whether it shows some pixel `earlier` hides. */
function compare(earlier: Uint8Array, later: Uint8Array): { showsAll: boolean; showsNew: boolean } {
  // Frames without text share one empty mask: nothing to read.
  if (earlier === later) return { showsAll: true, showsNew: false };
  let showsAll = true;
  let showsNew = false;
  for (let p = 0; p < earlier.length && (showsAll || !showsNew); p += 1) {
    if (later[p] && !earlier[p]) showsAll = false;
    else if (earlier[p] && !later[p]) showsNew = true;
  }
  return { showsAll, showsNew };
}
