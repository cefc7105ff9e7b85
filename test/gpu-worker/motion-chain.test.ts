import { describe, expect, it } from "vitest";
import { type IndexedFrame, MotionChain } from "../../gpu-worker/engine/fill/motion-chain";

const WIDTH = 320;
const HEIGHT = 180;
/** Pixels the left half of the picture moves right between the two frames; the right half stays. */
const LEFT_MOVES = 6;

/** A texture with no period across the frame, shifted right by `shift` pixels left of the middle. */
function frame(index: number, shift: number): IndexedFrame {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y += 1) {
    for (let x = 0; x < WIDTH; x += 1) {
      const u = x < WIDTH / 2 ? x - shift : x;
      const v = 128 + 45 * Math.sin(u / 4.3 + Math.cos(y / 6.1)) + 45 * Math.cos(y / 3.7 + Math.sin(u / 9.2));
      for (let c = 0; c < 3; c += 1) data[(y * WIDTH + x) * 3 + c] = v;
    }
  }
  return { index, frame: { width: WIDTH, height: HEIGHT, data }, mask: new Uint8Array(WIDTH * HEIGHT) };
}

describe("MotionChain", () => {
  it("keeps each step as measured around the text of the frame asking, whichever frame asked first", async () => {
    const frames = [frame(0, 0), frame(1, LEFT_MOVES)];
    const left = { x: 8, y: 8, width: 140, height: 164 };
    const right = { x: 172, y: 8, width: 140, height: 164 };
    const chain = new MotionChain();
    // The frame whose text is on the left asks first; the one on the right must not get its motion.
    await chain.measureSteps(frames, left);
    const onTheRight = await chain.between(frames, 0, 1, right);
    const onTheLeft = await chain.between(frames, 0, 1, left);
    expect(onTheLeft?.[2]).toBeCloseTo(LEFT_MOVES, 0);
    expect(onTheRight?.[2]).toBeCloseTo(0, 0);
    // What a worker thread is sent for each region is that region's step.
    expect(chain.measured(0, 0, right)).toEqual([[0, onTheRight]]);
    expect(chain.measured(0, 0, left)).toEqual([[0, onTheLeft]]);
  });
});
