import { describe, expect, it } from "vitest";
import { ShotCounter } from "../../gpu-worker/engine/fill/shot-cut";
import type { RgbFrame } from "../../gpu-worker/engine/fill/types";

const WIDTH = 320;
const HEIGHT = 180;

/** A picture of waves whose brightness and colour `scene` sets, panned `shift` pixels to the left. */
function picture(scene: { base: number; tint: number }, shift = 0): RgbFrame {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y += 1) {
    for (let x = 0; x < WIDTH; x += 1) {
      const u = x + shift;
      const v = scene.base + 40 * Math.sin(u / 7.3 + Math.cos(y / 11.1)) + 30 * Math.cos(y / 5.9 + u / 23);
      const at = (y * WIDTH + x) * 3;
      data[at] = v + scene.tint;
      data[at + 1] = v;
      data[at + 2] = v - scene.tint;
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** Where a lower third's plate lies: the frame's lower fifth. */
const PLATE = Uint8Array.from({ length: WIDTH * HEIGHT }, (_, p) => (p >= WIDTH * HEIGHT * 0.8 ? 255 : 0));
const NO_TEXT = new Uint8Array(WIDTH * HEIGHT);

/** The picture with a dark plate over its lower fifth, as a lower third comes on, and its mask. */
function withPlate(frame: RgbFrame): { frame: RgbFrame; mask: Uint8Array } {
  const data = Uint8Array.from(frame.data);
  data.fill(20, Math.floor(HEIGHT * 0.8) * WIDTH * 3);
  return { frame: { ...frame, data }, mask: PLATE };
}

describe("cuts between shots", () => {
  const street = { base: 110, tint: 20 };
  const night = { base: 50, tint: -15 };

  /** The shots the counter gives the frames, in turn. */
  const shotsOf = (...frames: Array<RgbFrame | { frame: RgbFrame; mask: Uint8Array }>) => {
    const counter = new ShotCounter();
    return frames.map((item) =>
      "mask" in item ? counter.shotOf(item.frame, item.mask) : counter.shotOf(item, NO_TEXT),
    );
  };

  it("starts a new shot at a cut, and the same shot goes on after it", () => {
    expect(shotsOf(picture(street), picture(night), picture(night, 4), picture(street))).toEqual([
      0, 1, 1, 2,
    ]);
  });

  it("finds no cut in a pan, nor where a plate comes on and goes over the same shot", () => {
    const frames = [picture(street), picture(street, 6), withPlate(picture(street, 6)), picture(street, 12)];
    expect(shotsOf(...frames)).toEqual([0, 0, 0, 0]);
  });
});
