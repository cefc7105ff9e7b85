import { describe, expect, it } from "vitest";
import { kthSmallest } from "../../gpu-worker/engine/fill/select";

/** A repeatable sequence of floats in [0, range), rounded to `step` so values repeat. */
function values(count: number, range: number, step: number, seed = 7): Float32Array {
  const out = new Float32Array(count);
  let state = seed;
  for (let i = 0; i < count; i += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = Math.floor(((state / 2 ** 32) * range) / step) * step;
  }
  return out;
}

describe("kthSmallest", () => {
  it("gives the value a sort puts at every position, with and without repeats", () => {
    for (const [count, step] of [
      [1, 1],
      [2, 1],
      [7, 1],
      [31, 0.001],
      [200, 5],
      [1000, 0.25],
    ] as const) {
      const input = values(count, 30, step, count);
      const sorted = Float32Array.from(input).sort();
      for (let k = 0; k < count; k += 1) {
        expect(kthSmallest(Float32Array.from(input), count, k), `k=${k} of ${count}`).toBe(sorted[k]);
      }
    }
  });

  it("looks only at the first `count` values, and handles sorted, reversed and constant runs", () => {
    const padded = Float32Array.from([5, 1, 4, 2, 3, -100, -200]);
    expect(kthSmallest(padded, 5, 2)).toBe(3);
    const ascending = Float32Array.from({ length: 501 }, (_, i) => i);
    expect(kthSmallest(ascending, 501, 250)).toBe(250);
    const descending = Float32Array.from({ length: 501 }, (_, i) => 500 - i);
    expect(kthSmallest(descending, 501, 250)).toBe(250);
    expect(kthSmallest(new Float32Array(64).fill(9), 64, 32)).toBe(9);
  });

  it("refuses a position outside the values", () => {
    expect(() => kthSmallest(new Float32Array(4), 4, 4)).toThrow(RangeError);
    expect(() => kthSmallest(new Float32Array(4), 0, 0)).toThrow(RangeError);
    expect(() => kthSmallest(new Float32Array(4), 5, 0)).toThrow(RangeError);
  });
});
