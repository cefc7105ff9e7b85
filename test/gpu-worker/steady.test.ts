import { describe, expect, it } from "vitest";
import { type CropWork, cropWork } from "../../gpu-worker/engine/fill/crop";
import { linedUpPrevious } from "../../gpu-worker/engine/fill/stabilise";
import { steadyFill } from "../../gpu-worker/engine/fill/steady";
import { IDENTITY, type RgbFrame } from "../../gpu-worker/engine/fill/types";
import { boxMask, greyPicture } from "../helpers/pictures";

// The steady step on its own: a frame's fill against the previous output, the camera still.
const width = 96;
const height = 64;
const hole = { x: 32, y: 24, width: 32, height: 16 };

const picture = (value: (x: number, y: number) => number) => greyPicture(width, height, value);
const holeMask = () => boxMask(width, height, hole);

/** The crop's fill set to the picture with a lump of `step` levels in the middle of the hole. */
async function filledWithLump(frame: RgbFrame, mask: Uint8Array, step: number): Promise<CropWork> {
  const work = await cropWork(frame, mask, { x: 16, y: 8, width: 64, height: 48 });
  for (const i of work.maskedPixels) {
    const x = work.rect.x + (i % work.rect.width);
    const y = work.rect.y + Math.floor(i / work.rect.width);
    const lump = Math.abs(x - 48) < 6 && Math.abs(y - 32) < 4 ? step : 0;
    for (let c = 0; c < 3; c += 1)
      work.fill[i * 3 + c] = (frame.data[(y * width + x) * 3 + c] as number) + lump;
  }
  return work;
}

/** The mean step left at the lump's centre after steadyFill. */
function lumpLeft(work: CropWork, frame: RgbFrame): number {
  const i = (32 - work.rect.y) * work.rect.width + (48 - work.rect.x);
  return (work.fill[i * 3] as number) - (frame.data[(32 * width + 48) * 3] as number);
}

const check = { ringWidth: 4, maxError: 12 };
/** The previous output: `frame` as it was, nothing of it filled. */
const previousOf = (frame: RgbFrame) => ({ frame, filledMask: new Uint8Array(width * height) });

describe("holding the fill steady", () => {
  const smooth = picture((x, y) => 100 + x / 4 + y / 8);
  const textured = picture((x, y) => 128 + 60 * Math.sin(x / 1.3) * Math.cos(y / 1.7));

  it("pulls a lump in a smooth fill halfway back to the previous fill, however large", async () => {
    const mask = holeMask();
    const work = await filledWithLump(smooth, mask, 40);
    steadyFill(work, linedUpPrevious(work, previousOf(smooth), IDENTITY, check), mask);
    expect(lumpLeft(work, smooth)).toBeCloseTo(20, 0);
  });

  it("leaves a large step on texture as this frame has it: there it is a subject that moved", async () => {
    const mask = holeMask();
    const work = await filledWithLump(textured, mask, 40);
    steadyFill(work, linedUpPrevious(work, previousOf(textured), IDENTITY, check), mask);
    expect(lumpLeft(work, textured)).toBeCloseTo(40, 0);
  });

  it("leaves a large step on smooth picture where the previous output was that frame itself, not a fill", async () => {
    // The text arrived on this frame: the previous output is a frame as filmed, noise and all.
    const work = await filledWithLump(smooth, holeMask(), 40);
    steadyFill(
      work,
      linedUpPrevious(work, previousOf(smooth), IDENTITY, check),
      new Uint8Array(width * height),
    );
    expect(lumpLeft(work, smooth)).toBeCloseTo(40, 0);
  });
});
