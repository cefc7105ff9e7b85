import { describe, expect, it } from "vitest";
import { BufferPool } from "../../gpu-worker/engine/media/buffer-pool";

describe("BufferPool", () => {
  it("hands a given-back buffer out again, as a new array over the same memory", () => {
    const pool = new BufferPool(16);
    const first = pool.take();
    first.fill(7);
    pool.give(first);
    const second = pool.take(false);
    expect(second).not.toBe(first);
    expect(second.buffer).toBe(first.buffer);
    expect([...second]).toEqual(new Array(16).fill(7));
    expect(pool.allocated).toBe(1);
  });

  it("zeroes what it hands out unless told not to", () => {
    const pool = new BufferPool(8);
    pool.give(pool.take().fill(9));
    expect([...pool.take()]).toEqual(new Array(8).fill(0));
  });

  it("allocates only when none is free", () => {
    const pool = new BufferPool(4);
    const held = [pool.take(), pool.take(), pool.take()];
    for (const buffer of held) pool.give(buffer);
    for (let round = 0; round < 10; round += 1) pool.give(pool.take());
    expect(pool.allocated).toBe(3);
  });

  it("refuses a buffer of another size, a part of one, and one given back twice", () => {
    const pool = new BufferPool(8);
    expect(() => pool.give(new Uint8Array(9))).toThrow(RangeError);
    expect(() => pool.give(new Uint8Array(16).subarray(0, 8))).toThrow(RangeError);
    const buffer = pool.take();
    pool.give(buffer);
    expect(() => pool.give(buffer)).toThrow(/twice/);
  });
});
