import { GraphBuilder } from "./graph-builder";
import type { GraphSpec } from "./onnx-writer";

/**
 * The fill's warp as an ONNX graph: the sample of a source frame at each target point carried by a
 * homography and a per-point offset (the local shift blocks, or any dense motion field), the same
 * Catmull-Rom bicubic with the edge repeated as fill/sample.ts's sampleBicubic, and whether the
 * sample counts (inside the frame, no tap of real weight on the source's text). The same graph
 * runs on onnxruntime's CPU threads and, where the CUDA provider is installed, on the GPU, where a
 * window's sources are thousands of such points at once (README, "Scaling and cost").
 *
 * Inputs: `frame` uint8 [pixels, 3] (RGB, row-major), `blocked` uint8 [pixels] (non-zero where
 * the source's own text is), `size` float [2] (width, height), `motion` float [3, 3] (row-major,
 * target to source), `points` float [points, 2] (x, y in the target) and `offsets` float
 * [points, 2] (added after the homography). Outputs: `colour` float [points, 3], `valid` bool
 * [points].
 */
export const WARP_OPSET = 17;

/** Taps with less weight than this are ignored (sample.ts's NEGLIGIBLE). */
const NEGLIGIBLE = 1e-3;

/**
 * Catmull-Rom weights as a matrix: [t³, t², t, 1] times it gives the four taps' weights, as
 * sample.ts's catmullRom writes them one by one.
 */
const CATMULL_ROM = [
  [-0.5, 1.5, -1.5, 0.5],
  [1, -2.5, 2, -0.5],
  [-0.5, 0, 0.5, 0],
  [0, 1, 0, 0],
].flat();

export function warpGraph(): GraphSpec {
  const g = new GraphBuilder();
  const width = g.op("Gather", ["size", g.constant(0, "int64")]);
  const height = g.op("Gather", ["size", g.constant(1, "int64")]);
  const one = g.constant(1);
  const zero = g.constant(0);

  // Homogeneous points [points, 3] times the transposed homography: each row is H·(x, y, 1).
  const ones = g.op("Add", [
    g.op("Mul", [
      g.op("Slice", ["points", g.constant([0], "int64"), g.constant([1], "int64"), g.constant([1], "int64")]),
      zero,
    ]),
    one,
  ]);
  const homogeneous = g.op("Concat", ["points", ones], { axis: { int: 1 } });
  const projected = g.op("MatMul", [homogeneous, g.op("Transpose", ["motion"])]);
  const w = g.column(projected, 2);
  const x = g.add(g.div(g.column(projected, 0), w), g.column("offsets", 0));
  const y = g.add(g.div(g.column(projected, 1), w), g.column("offsets", 1));

  // Inside the frame (false for a point at infinity: comparisons with NaN are false).
  const inRange = (value: string, size: string) =>
    g.op("And", [g.op("GreaterOrEqual", [value, zero]), g.op("LessOrEqual", [value, g.sub(size, one)])]);
  const inside = g.op("And", [inRange(x, width), inRange(y, height)]);
  // Points outside read the corner instead, so that every tap index stays inside the frame.
  const safeX = g.op("Where", [inside, x, zero]);
  const safeY = g.op("Where", [inside, y, zero]);

  /** The four weights [points, 4] and tap positions (int64 [points, 4]) along one axis. */
  const axis = (value: string, size: string) => {
    const start = g.op("Floor", [value]);
    const t = g.sub(value, start);
    const t2 = g.mul(t, t);
    const powers = g.op(
      "Concat",
      [g.mul(t2, t), t2, t, g.add(g.mul(t, zero), one)].map((p) => g.unsqueeze(p, [1])),
      {
        axis: { int: 1 },
      },
    );
    const weights = g.op("MatMul", [powers, g.constant(CATMULL_ROM, "float", [4, 4])]);
    const around = g.add(g.unsqueeze(start, [1]), g.constant([-1, 0, 1, 2], "float", [1, 4]));
    const clamped = g.op("Min", [g.op("Max", [around, zero]), g.sub(size, one)]);
    return { weights, taps: g.op("Cast", [clamped], { to: { int: 7 } }) };
  };
  const across = axis(safeX, width);
  const down = axis(safeY, height);

  // The 16 taps of each point: weights and pixel indices [points, 4, 4] (rows, then columns).
  const tapWeights = g.mul(g.unsqueeze(down.weights, [2]), g.unsqueeze(across.weights, [1]));
  const counts = g.op("Cast", [g.op("GreaterOrEqual", [g.op("Abs", [tapWeights]), g.constant(NEGLIGIBLE)])], {
    to: { int: 1 },
  });
  const weights = g.mul(tapWeights, counts);
  const widthIndex = g.op("Cast", [width], { to: { int: 7 } });
  const index = g.add(g.mul(g.unsqueeze(down.taps, [2]), widthIndex), g.unsqueeze(across.taps, [1]));

  const taps = g.op("Cast", [g.op("Gather", ["frame", index], { axis: { int: 0 } })], { to: { int: 1 } });
  const colour = g.op("ReduceSum", [g.mul(taps, g.unsqueeze(weights, [3])), g.constant([1, 2], "int64")], {
    keepdims: { int: 0 },
  });
  const blockedTaps = g.op("Cast", [g.op("Gather", ["blocked", index], { axis: { int: 0 } })], {
    to: { int: 1 },
  });
  const hit = g.op("ReduceMax", [g.mul(blockedTaps, counts)], {
    axes: { ints: [1, 2] },
    keepdims: { int: 0 },
  });
  const valid = g.op("And", [inside, g.op("Equal", [hit, zero])]);

  g.output(colour, "colour");
  g.output(valid, "valid");
  return g.spec(
    "warp",
    [
      { name: "frame", type: "uint8", shape: ["pixels", 3] },
      { name: "blocked", type: "uint8", shape: ["pixels"] },
      { name: "size", type: "float", shape: [2] },
      { name: "motion", type: "float", shape: [3, 3] },
      { name: "points", type: "float", shape: ["points", 2] },
      { name: "offsets", type: "float", shape: ["points", 2] },
    ],
    [
      { name: "colour", type: "float", shape: ["points", 3] },
      { name: "valid", type: "bool", shape: ["points"] },
    ],
    WARP_OPSET,
  );
}
