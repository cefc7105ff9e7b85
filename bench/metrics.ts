import { maskedSsimSum, type PixelBox } from "./ssim";
import type { TruthFrame } from "./truth";

/** What is shared by every method on one frame: the truth, the input, where the mask lies. */
export interface FrameContext {
  truth: TruthFrame;
  input: Uint8Array;
  width: number;
  /** The mask's box grown by the SSIM window; null on frames without overlays. */
  box: PixelBox | null;
  /** The previous frame's truth (for flicker), null on the first. */
  previousClean: Uint8Array | null;
}

export interface Scores {
  frames: number;
  /** Inside the mask, against the clean truth; null when the clip has no overlay pixels. */
  psnrIn: number | null;
  ssimIn: number | null;
  /** Outside the mask, against the clean truth (includes the input's own compression loss)... */
  psnrOut: number;
  /** ...and against the input (only what the method changed or lost in re-encoding). */
  psnrOutVsInput: number;
  /** mean |out - clean| / mean |input - clean| inside the mask: 0 is a perfect fill, 1 is untouched. */
  residual: number | null;
  /** Mean |out[n] - out[n-1]| minus mean |clean[n] - clean[n-1]| over frame n's mask, in grey levels. */
  flicker: number | null;
  /** Mean |(out - clean)[n] - (out - clean)[n-1]| over frame n's mask: how much the error itself jumps. */
  errorFlicker: number | null;
  /**
   * The loss breakdown: the share of the squared error inside the mask on pixels the method left as
   * the input had them (text it missed or outlined too tightly); the rest is pixels it filled badly.
   */
  missedShare: number | null;
  /** PSNR inside the mask over the worst tenth of the frames with overlays (their errors pooled). */
  psnrInWorstTenth: number | null;
  /** The frames with the lowest PSNR inside the mask, worst first. */
  worstFrames: Array<{ index: number; psnrIn: number }>;
  /** On the scene's sign (clips with one), against the input: untouched text stays above 35 dB... */
  sceneTextPsnr?: number;
  /** ...on every frame: a sign erased on a few frames barely moves the clip's figure. */
  sceneTextWorstPsnr?: number;
}

/**
 * A masked pixel counts as left as it was when no channel of the output moved further than this from
 * the input: the re-encode alone moves pixels by a few levels, a fill by far more.
 */
const LEFT_TOLERANCE = 6;
const WORST_FRAMES_LISTED = 3;

/** PSNR of 8-bit samples from a sum of squared errors; 100 dB stands for identical. */
function psnr(squaredErrors: number, samples: number): number {
  if (samples === 0) return Number.NaN;
  if (squaredErrors === 0) return 100;
  return Math.min(100, 10 * Math.log10((255 * 255 * samples) / squaredErrors));
}

/** Accumulates one method's scores over a clip, frame by frame, keeping only its previous frame. */
export class ScoreAccumulator {
  private frames = 0;
  private inSquared = 0;
  private inAbsolute = 0;
  private inputAbsolute = 0;
  private inSamples = 0;
  private outSquared = 0;
  private outVsInputSquared = 0;
  private outSamples = 0;
  private ssimSum = 0;
  private ssimCount = 0;
  private changeOut = 0;
  private changeClean = 0;
  private errorChange = 0;
  private changeSamples = 0;
  private sceneSquared = 0;
  private sceneSamples = 0;
  private sceneWorst = Number.POSITIVE_INFINITY;
  private missedSquared = 0;
  /** Squared error and samples inside the mask, per frame with overlays. */
  private perFrame: Array<{ index: number; squared: number; samples: number }> = [];
  private previous: Uint8Array | null = null;

  add(out: Uint8Array, context: FrameContext): void {
    const { truth, input, previousClean } = context;
    const { clean, mask, scene } = truth;
    const previous = this.previous;
    const flicker = previous !== null && previousClean !== null;
    let sceneSquared = 0;
    let sceneSamples = 0;
    let frameSquared = 0;
    let frameSamples = 0;
    for (let p = 0, i = 0; p < mask.length; p++, i += 3) {
      if (mask[p]) {
        let pixelSquared = 0;
        let moved = 0;
        for (let c = i; c < i + 3; c++) {
          const error = (out[c] as number) - (clean[c] as number);
          pixelSquared += error * error;
          moved = Math.max(moved, Math.abs((out[c] as number) - (input[c] as number)));
          this.inAbsolute += Math.abs(error);
          this.inputAbsolute += Math.abs((input[c] as number) - (clean[c] as number));
          if (flicker) {
            this.changeOut += Math.abs((out[c] as number) - (previous[c] as number));
            this.changeClean += Math.abs((clean[c] as number) - (previousClean[c] as number));
            this.errorChange += Math.abs(error - ((previous[c] as number) - (previousClean[c] as number)));
          }
        }
        this.inSquared += pixelSquared;
        if (moved <= LEFT_TOLERANCE) this.missedSquared += pixelSquared;
        frameSquared += pixelSquared;
        frameSamples += 3;
        this.inSamples += 3;
        if (flicker) this.changeSamples += 3;
      } else {
        for (let c = i; c < i + 3; c++) {
          const error = (out[c] as number) - (clean[c] as number);
          const change = (out[c] as number) - (input[c] as number);
          this.outSquared += error * error;
          this.outVsInputSquared += change * change;
        }
        this.outSamples += 3;
        if (scene?.[p]) {
          for (let c = i; c < i + 3; c++) sceneSquared += ((out[c] as number) - (input[c] as number)) ** 2;
          sceneSamples += 3;
        }
      }
    }
    if (frameSamples > 0)
      this.perFrame.push({ index: truth.index, squared: frameSquared, samples: frameSamples });
    if (sceneSamples > 0) {
      this.sceneSquared += sceneSquared;
      this.sceneSamples += sceneSamples;
      this.sceneWorst = Math.min(this.sceneWorst, psnr(sceneSquared, sceneSamples));
    }
    if (context.box) {
      const { sum, count } = maskedSsimSum(out, clean, mask, context.width, context.box);
      this.ssimSum += sum;
      this.ssimCount += count;
    }
    this.previous = out;
    this.frames++;
  }

  /** The worst tenth of the frames (at least one), pooled, and the few worst frames. */
  private worst(): Pick<Scores, "psnrInWorstTenth" | "worstFrames"> {
    const ranked = this.perFrame
      .map((frame) => ({ ...frame, psnr: psnr(frame.squared, frame.samples) }))
      .sort((a, b) => a.psnr - b.psnr);
    const tenth = ranked.slice(0, Math.max(1, Math.ceil(ranked.length / 10)));
    const pooled = tenth.reduce(
      (sum, frame) => ({ squared: sum.squared + frame.squared, samples: sum.samples + frame.samples }),
      { squared: 0, samples: 0 },
    );
    return {
      psnrInWorstTenth: ranked.length > 0 ? psnr(pooled.squared, pooled.samples) : null,
      worstFrames: ranked.slice(0, WORST_FRAMES_LISTED).map(({ index, psnr }) => ({ index, psnrIn: psnr })),
    };
  }

  result(): Scores {
    const masked = this.inSamples > 0;
    const changes = this.changeSamples > 0;
    return {
      frames: this.frames,
      psnrIn: masked ? psnr(this.inSquared, this.inSamples) : null,
      ssimIn: this.ssimCount > 0 ? this.ssimSum / this.ssimCount : null,
      psnrOut: psnr(this.outSquared, this.outSamples),
      psnrOutVsInput: psnr(this.outVsInputSquared, this.outSamples),
      residual: masked && this.inputAbsolute > 0 ? this.inAbsolute / this.inputAbsolute : null,
      missedShare: this.inSquared > 0 ? this.missedSquared / this.inSquared : null,
      ...this.worst(),
      flicker: changes ? (this.changeOut - this.changeClean) / this.changeSamples : null,
      errorFlicker: changes ? this.errorChange / this.changeSamples : null,
      ...(this.sceneSamples > 0
        ? { sceneTextPsnr: psnr(this.sceneSquared, this.sceneSamples), sceneTextWorstPsnr: this.sceneWorst }
        : {}),
    };
  }
}
