import { describe, expect, it } from "vitest";
import { frameLook, isCut } from "../../gpu-worker/engine/fill/shot-cut";
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

/** The picture with a dark plate over its lower fifth, as a lower third comes on. */
function withPlate(frame: RgbFrame): RgbFrame {
  const data = Uint8Array.from(frame.data);
  data.fill(20, Math.floor(HEIGHT * 0.8) * WIDTH * 3);
  return { ...frame, data };
}

describe("cuts between shots", () => {
  const street = { base: 110, tint: 20 };
  const night = { base: 50, tint: -15 };

  it("finds a cut to another shot", () => {
    expect(isCut(frameLook(picture(street)), frameLook(picture(night)))).toBe(true);
  });

  it("finds none in a pan, nor where a plate comes on over the same shot", () => {
    expect(isCut(frameLook(picture(street)), frameLook(picture(street, 6)))).toBe(false);
    expect(isCut(frameLook(picture(street)), frameLook(withPlate(picture(street))))).toBe(false);
  });
});
