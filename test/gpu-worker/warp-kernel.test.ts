import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { project, sampleBicubic } from "../../gpu-worker/engine/fill/sample";
import { homography, type RgbFrame } from "../../gpu-worker/engine/fill/types";
import { WarpKernel } from "../../gpu-worker/engine/kernels/warp-kernel";
import { cudaProviderInstalled } from "../../gpu-worker/engine/ocr/model-loader";

/**
 * The fill's warp as an ONNX graph built in code (the path of its per-pixel work to a GPU) must
 * sample as the JavaScript loop it stands for does: same colours, same verdict on which samples
 * count.
 */
const WIDTH = 96;
const HEIGHT = 64;

function texturedFrame(): RgbFrame {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let i = 0; i < data.length; i += 1) data[i] = (i * 37 + ((i / 3) >> 4) * 91) % 256;
  return { width: WIDTH, height: HEIGHT, data };
}

/** Text on the source: a box where no sample may read. */
function textBox(): Uint8Array {
  const blocked = new Uint8Array(WIDTH * HEIGHT);
  for (let y = 20; y < 30; y += 1) for (let x = 30; x < 70; x += 1) blocked[y * WIDTH + x] = 1;
  return blocked;
}

/** Every pixel of the target, a little past the frame on each side, with offsets of up to a pixel. */
function targetPoints(): { points: Float32Array; offsets: Float32Array } {
  const xs: number[] = [];
  const offsets: number[] = [];
  for (let y = -4; y < HEIGHT + 4; y += 1) {
    for (let x = -4; x < WIDTH + 4; x += 1) {
      xs.push(x, y);
      offsets.push(Math.sin(x * 0.7 + y) * 0.9, Math.cos(x - y * 0.3) * 0.6);
    }
  }
  return { points: Float32Array.from(xs), offsets: Float32Array.from(offsets) };
}

describe("the warp kernel (an ONNX graph built in code)", () => {
  let kernel: WarpKernel;
  beforeAll(async () => {
    kernel = await WarpKernel.open("cpu", 1);
  });
  afterAll(() => kernel.release());

  it.each([
    ["a shift by whole pixels", homography([1, 0, 3, 0, 1, -2, 0, 0, 1])],
    [
      "a rotation and zoom with perspective",
      homography([1.02, 0.05, -1.5, -0.04, 0.98, 2.2, 3e-4, -2e-4, 1]),
    ],
  ])("samples as sampleBicubic does: %s", async (_, motion) => {
    const frame = texturedFrame();
    const blocked = textBox();
    const { points, offsets } = targetPoints();
    const warped = await kernel.warp(frame, blocked, motion, points, offsets);

    const expected = new Float32Array(3);
    const point = { x: 0, y: 0 };
    let counted = 0;
    let disagreements = 0;
    let largest = 0;
    for (let k = 0; k < points.length / 2; k += 1) {
      project(motion, points[k * 2] as number, points[k * 2 + 1] as number, point);
      const ok = sampleBicubic(
        frame,
        blocked,
        point.x + (offsets[k * 2] as number),
        point.y + (offsets[k * 2 + 1] as number),
        expected,
        0,
      );
      if (ok !== (warped.valid[k] === 1)) {
        disagreements += 1;
        continue;
      }
      if (!ok) continue;
      counted += 1;
      for (let c = 0; c < 3; c += 1) {
        largest = Math.max(largest, Math.abs((expected[c] as number) - (warped.colour[k * 3 + c] as number)));
      }
    }
    // Both sides of the frame's edge and of the text box are met, and most points count.
    expect(counted).toBeGreaterThan(WIDTH * HEIGHT * 0.6);
    expect(counted).toBeLessThan(points.length / 2);
    // float32 against float64: a tap whose weight sits at the negligible bound may go either way.
    expect(disagreements).toBeLessThanOrEqual(2);
    expect(largest).toBeLessThan(0.5);
  });

  it.skipIf(cudaProviderInstalled())(
    "says why it cannot open on CUDA where the provider is missing",
    async () => {
      await expect(WarpKernel.open("cuda")).rejects.toThrow(/CUDA provider libraries are not installed/);
    },
  );

  it("reads nothing where the homography sends a point to infinity", async () => {
    const frame = texturedFrame();
    // w = 0 along the line x = 50: those points have no place in the source.
    const motion = homography([1, 0, 0, 0, 1, 0, 0.02, 0, -1]);
    const points = Float32Array.of(50, 10, 50, 40, 10, 10);
    const warped = await kernel.warp(frame, undefined, motion, points);
    expect([...warped.valid.subarray(0, 2)]).toEqual([0, 0]);
  });
});
