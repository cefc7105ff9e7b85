import { InferenceSession, Tensor } from "onnxruntime-node";
import type { Homography, RgbFrame } from "../fill/types";
import {
  cudaProviderInstalled,
  defaultThreadCount,
  ModelFileError,
  sessionOptions,
} from "../ocr/model-loader";
import type { ExecutionProvider } from "../ocr/types";
import { writeModel } from "./onnx-writer";
import { warpGraph } from "./warp-graph";

export interface Warped {
  /** Per point, its three channels (levels, not rounded). */
  colour: Float32Array;
  /** Per point, 1 where the sample counts (see warp-graph.ts), else 0. */
  valid: Uint8Array;
}

/**
 * The warp graph (warp-graph.ts) in an onnxruntime session: samples a source frame at many target
 * points in one call, on the provider it was opened with.
 */
export class WarpKernel {
  private constructor(
    private readonly session: InferenceSession,
    readonly provider: ExecutionProvider,
  ) {}

  static async open(
    provider: ExecutionProvider = "cpu",
    threads = defaultThreadCount(),
  ): Promise<WarpKernel> {
    if (provider === "cuda" && !cudaProviderInstalled()) {
      throw new ModelFileError("onnxruntime-node's CUDA provider libraries are not installed");
    }
    const session = await InferenceSession.create(writeModel(warpGraph()), sessionOptions(provider, threads));
    return new WarpKernel(session, provider);
  }

  /**
   * Samples `frame` at `points` (x, y pairs in the target) carried by `motion` and then by
   * `offsets` (x, y pairs, one per point; none is no offset); `blocked` marks the frame's text.
   */
  async warp(
    frame: RgbFrame,
    blocked: Uint8Array | undefined,
    motion: Homography,
    points: Float32Array,
    offsets?: Float32Array,
  ): Promise<Warped> {
    const pixels = frame.width * frame.height;
    const count = points.length / 2;
    const feeds = {
      frame: new Tensor("uint8", frame.data.subarray(0, pixels * 3), [pixels, 3]),
      blocked: new Tensor("uint8", blocked ?? new Uint8Array(pixels), [pixels]),
      size: new Tensor("float32", Float32Array.of(frame.width, frame.height), [2]),
      motion: new Tensor("float32", Float32Array.from(motion), [3, 3]),
      points: new Tensor("float32", points, [count, 2]),
      offsets: new Tensor("float32", offsets ?? new Float32Array(count * 2), [count, 2]),
    };
    const { colour, valid } = await this.session.run(feeds);
    return {
      colour: (colour as Tensor).data as Float32Array,
      // onnxruntime hands a bool tensor over as bytes, 1 for true.
      valid: (valid as Tensor).data as Uint8Array,
    };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
