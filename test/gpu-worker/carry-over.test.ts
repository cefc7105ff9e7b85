import { describe, expect, it } from "vitest";
import { cropWork } from "../../gpu-worker/engine/fill/crop";
import { carryOver, linedUpPrevious } from "../../gpu-worker/engine/fill/stabilise";
import { IDENTITY } from "../../gpu-worker/engine/fill/types";
import { boxMask, greyPicture } from "../helpers/pictures";

// The carry-over on its own: a hole no neighbour showed, given what the previous output had there,
// under a still camera while a subject on one side of the hole moves on its own.
const width = 128;
const height = 80;
const hole = { x: 16, y: 34, width: 96, height: 12 };
/** The subject: everything right of this column, 3 px further right than on the previous frame. */
const subjectFrom = 64;
const subjectStep = 3;

const texture = (x: number, y: number) =>
  128 + 50 * Math.sin(x / 2.3) * Math.cos(y / 3.1) + 30 * Math.sin((x + y) / 5.7);

const picture = (value: (x: number, y: number) => number) => greyPicture(width, height, value);
const holeMask = () => boxMask(width, height, hole);

describe("carrying the previous output into a hole no neighbour showed", () => {
  it("carries the part beside a moving subject along with it, not where it was", async () => {
    const previous = picture(texture);
    const current = picture((x, y) => (x < subjectFrom ? texture(x, y) : texture(x - subjectStep, y)));
    const mask = holeMask();
    const work = await cropWork(current, mask, { x: 0, y: 14, width, height: 52 });
    const previousFill = { frame: previous, filledMask: new Uint8Array(width * height) };
    const lined = linedUpPrevious(work, previousFill, IDENTITY, { ringWidth: 4, maxError: 12 });
    const { carried } = carryOver(work, previousFill, IDENTITY, lined, false);
    expect(carried).toBe(hole.width * hole.height);
    // Mean error of the carried fill against the current picture, on the subject's side of the hole
    // (a block in from the edge where the two sides meet).
    let error = 0;
    let count = 0;
    for (const i of work.maskedPixels) {
      const x = work.rect.x + (i % work.rect.width);
      const y = work.rect.y + Math.floor(i / work.rect.width);
      if (x < subjectFrom + 16) continue;
      error += Math.abs((work.fill[i * 3] as number) - (current.data[(y * width + x) * 3] as number));
      count += 1;
    }
    // Left where it was on the previous frame (the camera's motion alone), it is off by about 24 levels.
    expect(error / count).toBeLessThan(6);
  });
});
