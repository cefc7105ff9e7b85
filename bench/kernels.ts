/**
 * `npm run bench -- --kernels [--gpu] [--write-graphs DIR]`: the fill's kernels as ONNX graphs
 * (gpu-worker/engine/kernels/) against today's JavaScript loops, on this machine's CPU: the warp of
 * one source frame into a caption band (every point of the band carried by a homography and a
 * per-point offset, sampled bicubically, checked against the source's text), at 720p and 1080p;
 * with --gpu on CUDA too (onnxruntime-node's CUDA provider must be installed, as on a GPU host).
 * With --write-graphs the graphs' ONNX files are written to DIR, for a GPU machine without Node
 * (bench/device/fill-kernels-on-cuda.py runs them there).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { project, sampleBicubic } from "../gpu-worker/engine/fill/sample";
import { homography, type RgbFrame } from "../gpu-worker/engine/fill/types";
import { writeModel } from "../gpu-worker/engine/kernels/onnx-writer";
import { warpGraph } from "../gpu-worker/engine/kernels/warp-graph";
import { WarpKernel } from "../gpu-worker/engine/kernels/warp-kernel";

interface Case {
  name: string;
  width: number;
  height: number;
  /** The band's height: the points are every pixel of the bottom rows. */
  band: number;
}

const CASES: Case[] = [
  { name: "720p, a 1280x120 band", width: 1280, height: 720, band: 120 },
  { name: "1080p, a 1920x270 band", width: 1920, height: 1080, band: 270 },
];
/** Runs timed per figure, after one untimed (the session's first run plans its buffers). */
const RUNS = 5;
/** A gentle camera move with some perspective, as between neighbouring frames. */
const MOTION = homography([1.004, 0.003, 2.6, -0.002, 0.998, -1.3, 2e-6, -1e-6, 1]);

/** Deterministic picture-like content: smooth gradients with texture, and text blocks marked. */
function sourceFrame({ width, height }: Case): { frame: RgbFrame; blocked: Uint8Array } {
  const data = new Uint8Array(width * height * 3);
  const blocked = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = 128 + 100 * Math.sin(x / 7) * Math.cos(y / 5);
      // Text in the source: a box in its band, as the frame before had its caption.
      if (y > height - 80 && y < height - 40 && x > width / 4 && x < (width * 3) / 4)
        blocked[y * width + x] = 1;
    }
  }
  return { frame: { width, height, data }, blocked };
}

function bandPoints({ width, height, band }: Case): { points: Float32Array; offsets: Float32Array } {
  const count = width * band;
  const points = new Float32Array(count * 2);
  const offsets = new Float32Array(count * 2);
  for (let k = 0; k < count; k += 1) {
    points[k * 2] = k % width;
    points[k * 2 + 1] = height - band + Math.floor(k / width);
    // Local shifts of up to a pixel, changing block by block (16 px), as the fill's shift field.
    offsets[k * 2] = Math.sin(Math.floor((k % width) / 16)) * 0.8;
    offsets[k * 2 + 1] = Math.cos(Math.floor(k / width / 16)) * 0.5;
  }
  return { points, offsets };
}

/** Today's loop: what the fill does per point (projectShifted, then sampleBicubic). */
function warpInJavaScript(frame: RgbFrame, blocked: Uint8Array, points: Float32Array, offsets: Float32Array) {
  const point = { x: 0, y: 0 };
  const colour = new Float32Array(points.length * 1.5);
  let valid = 0;
  for (let k = 0; k < points.length / 2; k += 1) {
    project(MOTION, points[k * 2] as number, points[k * 2 + 1] as number, point);
    point.x += offsets[k * 2] as number;
    point.y += offsets[k * 2 + 1] as number;
    if (sampleBicubic(frame, blocked, point.x, point.y, colour, k * 3)) valid += 1;
  }
  return valid;
}

async function median(work: () => Promise<unknown> | unknown): Promise<number> {
  await work();
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number;
}

export async function benchKernels(options: { writeGraphsTo?: string; gpu: boolean }): Promise<void> {
  const { writeGraphsTo } = options;
  if (writeGraphsTo) {
    await mkdir(writeGraphsTo, { recursive: true });
    await writeFile(path.join(writeGraphsTo, "warp.onnx"), writeModel(warpGraph()));
    console.log(`wrote ${path.join(writeGraphsTo, "warp.onnx")}`);
  }
  const kernels = [await WarpKernel.open("cpu", 1), await WarpKernel.open("cpu", 2)];
  // On a GPU host (--gpu) the same graph on CUDA: opening fails, and says why, without the provider.
  if (options.gpu) kernels.push(await WarpKernel.open("cuda"));
  const cuda = options.gpu ? " ONNX graph, CUDA ms |" : "";
  console.log(
    `| warp | points | JavaScript loop ms | ONNX graph, 1 thread ms | ONNX graph, 2 threads ms |${cuda}`,
  );
  console.log(`|---|---|---|---|---|${options.gpu ? "---|" : ""}`);
  for (const each of CASES) {
    const { frame, blocked } = sourceFrame(each);
    const { points, offsets } = bandPoints(each);
    const loop = await median(() => warpInJavaScript(frame, blocked, points, offsets));
    const graphs = [];
    for (const kernel of kernels)
      graphs.push(await median(() => kernel.warp(frame, blocked, MOTION, points, offsets)));
    console.log(
      `| ${each.name} | ${points.length / 2} | ${loop.toFixed(1)} | ${graphs.map((ms) => ms.toFixed(1)).join(" | ")} |`,
    );
  }
  await Promise.all(kernels.map((kernel) => kernel.release()));
}
