import { ffmpegBinary, startMediaProcess } from "../media/process";

/** Each half of the picture is at most this wide: the JPEG stays small (tens to a few hundred KB). */
const HALF_MAX_WIDTH = 640;
const JPEG_QUALITY = "5"; // ffmpeg's -q:v, 2 (best) to 31

/**
 * The before/after picture: the frame with the most erased pixels, as it came in and as it was
 * written, side by side. A frame's "before" is copied when its mask is about to be made (restoring
 * a see-through box changes the frame in place); it becomes the best once its mask is the largest
 * so far, and its "after" is copied when it is written. Buffers are made only once text is found.
 */
export class BeforeAfter {
  private candidate: Uint8Array | null = null;
  private before: Uint8Array | null = null;
  private after: Uint8Array | null = null;
  private bestIndex = -1;
  private bestPixels = 0;
  private afterIndex = -1;

  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {}

  /** Keeps a copy of frame data that is about to be masked. */
  offer(data: Uint8Array): void {
    this.candidate ??= new Uint8Array(data.length);
    this.candidate.set(data);
  }

  /** The mask of the frame last offered has `pixels` pixels: the best so far becomes its copy. */
  measured(index: number, pixels: number): void {
    if (pixels <= this.bestPixels || !this.candidate) return;
    [this.before, this.candidate] = [this.candidate, this.before];
    this.bestIndex = index;
    this.bestPixels = pixels;
  }

  /** Frame `index` was written with `data`: kept when it is the best one's. */
  written(index: number, data: Uint8Array): void {
    if (index !== this.bestIndex) return;
    this.after ??= new Uint8Array(data.length);
    this.after.set(data);
    this.afterIndex = index;
  }

  /** Writes the JPEG; false when no frame was changed. */
  async write(path: string, signal?: AbortSignal): Promise<boolean> {
    if (!this.before || !this.after || this.afterIndex !== this.bestIndex) return false;
    const factor = Math.max(1, Math.ceil(this.width / HALF_MAX_WIDTH));
    const halfWidth = Math.floor(this.width / factor / 2) * 2;
    const height = Math.floor(this.height / factor / 2) * 2;
    const picture = new Uint8Array(halfWidth * 2 * height * 3);
    shrinkInto(this.before, this.width, factor, picture, halfWidth * 2, 0, halfWidth, height);
    shrinkInto(this.after, this.width, factor, picture, halfWidth * 2, halfWidth, halfWidth, height);
    const args = ["-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${halfWidth * 2}x${height}`];
    args.push("-i", "pipe:0", "-frames:v", "1", "-q:v", JPEG_QUALITY, "-y", path);
    const run = startMediaProcess(ffmpegBinary(), args, { stdin: true, ...(signal ? { signal } : {}) });
    run.child.stdin?.end(picture);
    await run.exited;
    return true;
  }
}

/** Averages `factor`×`factor` blocks of an RGB frame into a region of a wider RGB picture. */
function shrinkInto(
  source: Uint8Array,
  sourceWidth: number,
  factor: number,
  target: Uint8Array,
  targetWidth: number,
  left: number,
  width: number,
  height: number,
): void {
  const count = factor * factor;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let dy = 0; dy < factor; dy++) {
          const row = (y * factor + dy) * sourceWidth;
          for (let dx = 0; dx < factor; dx++) sum += source[(row + x * factor + dx) * 3 + c] as number;
        }
        target[(y * targetWidth + left + x) * 3 + c] = Math.round(sum / count);
      }
    }
  }
}
