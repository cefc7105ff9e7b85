import type { SizedRect } from "../geometry";
import type { IndexedFrame, MotionChain } from "./motion-chain";
import { sameRect } from "./regions";
import type { Homography } from "./types";

/**
 * The camera motions of the frames being filled, for several frames at once (the pool's searches run
 * ahead of the frame being written), such that every motion is what a frame-by-frame pass gets.
 * A step of the chain is measured within the region of the first frame to ask for it, and frames
 * ahead may ask before the frame being written asks: so a step nobody measured yet is measured for a
 * frame only once no earlier frame still open could ask for it in another region (its window
 * reaches `radius` frames on), and otherwise waits until those frames are finished. A step's
 * motion depends only on the two frames, their masks and the region. Requests go to the chain one
 * at a time.
 */
export class OrderedMotion {
  /**
   * Frames (by index) whose fill started and did not finish, with the region their motions are
   * measured in once known; `settled` once no second try (with a wider mask, so another region)
   * can follow.
   */
  private readonly open = new Map<number, { roi?: SizedRect; settled: boolean }>();
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
    this.open.set(index, { settled: false });
  }

  /**
   * Frame `index` measures its motions within `roi`, and, when `settled`, only there: a later
   * frame that measures in the same region need not wait for it (the step would come out the same).
   */
  searching(index: number, roi: SizedRect, settled: boolean): void {
    this.open.set(index, { roi, settled });
    this.wake();
  }

  /** Frame `index` will not try again with a wider mask. */
  settled(index: number): void {
    const open = this.open.get(index);
    if (open) open.settled = true;
    this.wake();
  }

  /** Frame `index`'s fill (its second try too) is over. */
  finished(index: number): void {
    this.open.delete(index);
    this.wake();
  }

  /** The motion from frame `from` to frame `to` (video indices), for the fill of frame `from`. */
  async between(from: number, to: number, roi: SizedRect): Promise<Homography | undefined> {
    if (!this.mayMeasure(from, to, roi)) {
      await new Promise<void>((go) => this.waiting.push({ ready: () => this.mayMeasure(from, to, roi), go }));
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

  /**
   * Whether every step between the two frames is measured, or out of reach of the earlier open
   * frames that could measure it in another region.
   */
  private mayMeasure(from: number, to: number, roi: SizedRect): boolean {
    let reach = Number.NEGATIVE_INFINITY;
    for (const [index, open] of this.open) {
      if (index >= from || (open.settled && open.roi && sameRect(open.roi, roi))) continue;
      reach = Math.max(reach, index + this.radius);
    }
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
