/**
 * Frame-sized byte buffers given back for reuse. At 720p every frame brings a 2.7 MB picture, its
 * masks and its fill output: allocated afresh, each is page-faulted in and, living outside V8's
 * heap, pushes it into a full garbage collection every few frames (73 on a 100-frame clip).
 * Each take() hands out a new view of a free buffer, so a cache keyed by the array (tiles.ts) never
 * takes a reused buffer for the one it saw.
 * The memory is a SharedArrayBuffer: the fill's worker threads (fill/pool.ts) read a window's frames
 * and masks where they lie, with no copy per task.
 */
export class BufferPool {
  private readonly free: ArrayBufferLike[] = [];
  /** Buffers this pool had to allocate: the most it ever held at once. */
  allocated = 0;

  constructor(readonly bytes: number) {}

  /** A buffer of `bytes` bytes, zeroed; or, when `zeroed` is false, holding whatever it last held. */
  take(zeroed = true): Uint8Array {
    const buffer = this.free.pop();
    if (!buffer) {
      this.allocated += 1;
      return new Uint8Array(new SharedArrayBuffer(this.bytes));
    }
    const view = new Uint8Array(buffer);
    return zeroed ? view.fill(0) : view;
  }

  /** Gives back a buffer that take() handed out; the giver must not touch it again. */
  give(view: Uint8Array): void {
    const { buffer } = view;
    if (view.byteOffset !== 0 || view.byteLength !== this.bytes || buffer.byteLength !== this.bytes) {
      throw new RangeError(`A buffer of ${view.byteLength} bytes is not one of this pool's ${this.bytes}.`);
    }
    // Given twice, one buffer would be handed to two holders at once.
    if (this.free.includes(buffer)) throw new Error("The buffer was given back twice.");
    this.free.push(buffer);
  }
}
