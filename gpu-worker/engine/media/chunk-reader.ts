/** Reads bytes across the chunks of a stream, pulling a chunk only when the bytes at hand run out. */
export class ChunkReader {
  private chunk: Uint8Array = new Uint8Array(0);
  private position = 0;

  constructor(private readonly chunks: AsyncIterator<Uint8Array>) {}

  /** The next byte, or undefined at the end of the stream. */
  async byteOrEnd(): Promise<number | undefined> {
    while (this.position === this.chunk.length) {
      if (!(await this.pull())) return undefined;
    }
    return this.chunk[this.position++];
  }

  async byte(): Promise<number> {
    const byte = await this.byteOrEnd();
    if (byte === undefined) throw new RangeError("The stream ends inside a NUT header");
    return byte;
  }

  /** Fills `target` from the stream. */
  async fill(target: Uint8Array): Promise<Uint8Array> {
    let filled = 0;
    while (filled < target.length) {
      if (this.position === this.chunk.length && !(await this.pull())) {
        throw new RangeError(`The stream ends ${target.length - filled} bytes before the end of a frame`);
      }
      const count = Math.min(target.length - filled, this.chunk.length - this.position);
      target.set(this.chunk.subarray(this.position, this.position + count), filled);
      this.position += count;
      filled += count;
    }
    return target;
  }

  private async pull(): Promise<boolean> {
    const next = await this.chunks.next();
    if (next.done) return false;
    this.chunk = next.value;
    this.position = 0;
    return true;
  }
}
