import { describe, expect, it } from "vitest";
import { PastFrames } from "../../gpu-worker/engine/fill/past-frames";

const SIZE = 8;

/** A frame whose mask hides pixels `from` to `to` (exclusive) of an 8-pixel picture. */
function frame(index: number, from = 0, to = 0) {
  const mask = new Uint8Array(SIZE);
  mask.fill(255, from, to);
  return { index, frame: { width: SIZE, height: 1, data: new Uint8Array(SIZE * 3) }, mask };
}

function keeper(limit?: number) {
  const letGo: number[] = [];
  const past = new PastFrames<ReturnType<typeof frame>>((f) => letGo.push(f.index), limit);
  return { past, letGo, kept: () => past.frames.map((f) => f.index) };
}

describe("the frames kept from before the window", () => {
  it("keeps the last frame before a caption came on while the captioned frames pass", () => {
    const { past, letGo, kept } = keeper();
    for (let index = 0; index < 4; index += 1) past.offer(frame(index));
    for (let index = 4; index < 10; index += 1) past.offer(frame(index, 2, 6));
    expect(kept()).toEqual([3]);
    expect(letGo).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
  });

  it("keeps a frame that shows what the newest kept one hid, beside it, and the latest of each", () => {
    const { past, kept } = keeper();
    past.offer(frame(0, 0, 4));
    past.offer(frame(1, 0, 4));
    // The text moved: frame 2 shows pixels 0 to 3 and hides 4 to 7.
    past.offer(frame(2, 4, 8));
    expect(kept()).toEqual([2, 1]);
    // Frame 3 shows all that frame 2 did, and more: it takes its place.
    past.offer(frame(3, 6, 8));
    expect(kept()).toEqual([3, 1]);
  });

  it("holds at most its limit, letting the oldest go, and lets all go when cleared", () => {
    const { past, letGo, kept } = keeper(2);
    past.offer(frame(0, 0, 2));
    past.offer(frame(1, 2, 4));
    past.offer(frame(2, 4, 6));
    expect(kept()).toEqual([2, 1]);
    expect(letGo).toEqual([0]);
    past.clear();
    expect(kept()).toEqual([]);
    expect(letGo).toEqual([0, 1, 2]);
  });
});
