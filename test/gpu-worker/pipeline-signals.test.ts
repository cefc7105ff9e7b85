import { describe, expect, it } from "vitest";
import { type GreyRegion, profileShift, profilesOf } from "../../gpu-worker/engine/fill/profile-shift";
import { dilate } from "../../gpu-worker/engine/pipeline/dilate";
import { frameSignature, suddenChangeShare } from "../../gpu-worker/engine/pipeline/signatures";

const WIDTH = 320;
const HEIGHT = 180;

/** A textured picture seen through a camera that has moved `shift` pixels right. */
function panFrame(shift: number): Uint8Array {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const u = x + shift;
      const value = 128 + 60 * Math.sin(u / 40) + 40 * Math.sin((u + 2 * y) / 70) + 20 * Math.sin(y / 25);
      data.fill(Math.round(value), (y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3);
    }
  }
  return data;
}

/** White letter-like bars across the bottom, as a caption appearing. */
function withCaption(frame: Uint8Array): Uint8Array {
  const data = frame.slice();
  for (let y = 140; y < 165; y++) {
    for (let x = 40; x < 280; x++)
      if (x % 12 < 7) data.fill(255, (y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3);
  }
  return data;
}

const signature = (data: Uint8Array) => frameSignature(data, WIDTH, HEIGHT);

describe("suddenChangeShare", () => {
  it("does not count the steady change of a fast pan, so a pan does not trigger a read on every frame", () => {
    const frames = [0, 6, 12, 18].map((shift) => signature(panFrame(shift)));
    expect(suddenChangeShare(frames[0], frames[1] as Uint8Array, frames[2] as Uint8Array)).toBeLessThan(0.02);
    expect(suddenChangeShare(frames[1], frames[2] as Uint8Array, frames[3] as Uint8Array)).toBeLessThan(0.02);
  });

  it("counts a caption appearing during the same pan", () => {
    const older = signature(panFrame(0));
    const previous = signature(panFrame(6));
    const current = signature(withCaption(panFrame(12)));
    expect(suddenChangeShare(older, previous, current)).toBeGreaterThan(0.02);
  });

  it("counts a cut", () => {
    const older = signature(panFrame(0));
    const previous = signature(panFrame(2));
    const cut = signature(panFrame(2).map((value) => 255 - value));
    expect(suddenChangeShare(older, previous, cut)).toBeGreaterThan(0.5);
  });
});

describe("dilate", () => {
  it("grows each set pixel into a square of side 2r+1, clipped at the edges", () => {
    const width = 9;
    const height = 7;
    const mask = new Uint8Array(width * height);
    mask[3 * width + 4] = 255;
    mask[0] = 255;
    const grown = dilate(mask, width, height, 2);
    const set = (x: number, y: number) => grown[y * width + x] === 255;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const nearCentre = Math.abs(x - 4) <= 2 && Math.abs(y - 3) <= 2;
        const nearCorner = x <= 2 && y <= 2;
        expect(set(x, y), `(${x}, ${y})`).toBe(nearCentre || nearCorner);
      }
    }
  });
});

describe("profileShift", () => {
  const size = { width: 200, height: 60 };
  /** Vertical stripes moved `shift` pixels right; `usable` everywhere but a text-like block. */
  function stripes(shift: number, paint = (u: number) => (Math.floor(u / 23) % 3) * 90): GreyRegion {
    const grey = new Uint8Array(size.width * size.height);
    const usable = new Uint8Array(size.width * size.height).fill(1);
    for (let y = 0; y < size.height; y++) {
      for (let x = 0; x < size.width; x++) {
        grey[y * size.width + x] = paint(x - shift + 1000);
        if (x >= 60 && x < 140 && y >= 20 && y < 40) usable[y * size.width + x] = 0;
      }
    }
    return { grey, usable, ...size };
  }
  const shiftBetween = (a: GreyRegion, b: GreyRegion) => profileShift(profilesOf(a), profilesOf(b), 16);

  it("measures how far stripes moved across, and no move along them", () => {
    const shift = shiftBetween(stripes(0), stripes(5));
    expect(shift?.dx).toBeCloseTo(5, 1);
    expect(shift?.dy).toBe(0);
  });

  it("says nothing moved on a flat picture", () => {
    expect(
      shiftBetween(
        stripes(0, () => 128),
        stripes(7, () => 128),
      ),
    ).toEqual({ dx: 0, dy: 0 });
  });

  it("gives no answer when the picture changed rather than moved", () => {
    const other = stripes(0, (u) => (((u * 7919) % 251) % 2 === 0 ? 20 : 230));
    expect(shiftBetween(stripes(0), other)).toBeUndefined();
  });
});
