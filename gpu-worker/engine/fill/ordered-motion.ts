import type { SizedRect } from "../geometry";
import type { IndexedFrame, MotionChain } from "./motion-chain";
import type { Homography } from "./types";

/**
 * The camera motions of the frames being filled, for several frames at once (the pool's searches run
 * ahead of the frame being written), such that every motion is what a frame-by-frame pass gets.
 * A step of the chain is measured within the region of the first frame to ask for it, and frames
 * ahead may ask before the frame being written asks: so a step nobody measured yet is measured for a
 * frame only once no earlier frame still open could ask for it (its window reaches `radius` frames
 * on), and otherwise waits until those frames are finished. Requests go to the chain one at a time.
 */
export class OrderedMotion {
  /** Frames (by index) whose fill started and did not finish. */
  private readonly open = new Set<number>();
  private readonly waiting: Array<{ ready: () => boolean; go: () => void }> = [];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly chain: MotionChain,
    /** The window as it is now (frames in order of index, consecutive). */
    private readonly window: () => IndexedFrame[],
    private readonly radius: number,
  ) {}

  /** Frame `index`'s fill started: later frames' unmeasured steps within its reach wait for it. */
  started(index: number): void {
    this.open.add(index);
  }

  /** Frame `index`'s fill (its second try too) is over. */
  finished(index: number): void {
    this.open.delete(index);
    this.wake();
  }

  /** The motion from frame `from` to frame `to` (video indices), for the fill of frame `from`. */
  async between(from: number, to: number, roi: SizedRect): Promise<Homography | undefined> {
    if (!this.mayMeasure(from, to)) {
      await new Promise<void>((go) => this.waiting.push({ ready: () => this.mayMeasure(from, to), go }));
    }
    const measured = this.queue.then(() => {
      // The window's frames now; the window moves on only past frames no open fill reads.
      const frames = this.window().slice();
      const first = frames[0]?.index ?? from;
      return this.chain.between(frames, from - first, to - first, roi);
    });
    this.queue = measured.catch(() => undefined);
    try {
      return await measured;
    } finally {
      this.wake();
    }
  }

  /** Whether every step between the two frames is measured, or out of reach of the earlier open frames. */
  private mayMeasure(from: number, to: number): boolean {
    let reach = Number.NEGATIVE_INFINITY;
    for (const open of this.open) if (open < from) reach = Math.max(reach, open + this.radius);
    for (let step = Math.min(from, to); step < Math.max(from, to); step += 1) {
      if (step < reach && !this.chain.knows(step)) return false;
    }
    return true;
  }

  private wake(): void {
    for (let k = this.waiting.length - 1; k >= 0; k -= 1) {
      const waiter = this.waiting[k] as (typeof this.waiting)[number];
      if (!waiter.ready()) continue;
      this.waiting.splice(k, 1);
      waiter.go();
    }
  }
}
