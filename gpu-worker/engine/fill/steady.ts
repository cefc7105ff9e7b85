import type { CropWork } from "./crop";
import { projectShifted } from "./local-shift";
import { meanGrey, sampleBicubic } from "./sample";
import { scratchPlane } from "./scratch";
import type { LinedUpPrevious } from "./stabilise";
import { MARGIN_PIXEL, type RgbFrame } from "./types";

/**
 * Largest difference (levels, any channel) between the fill and the previous output at a textured
 * pixel for the two to be taken as the same picture: the steps between frames borrowed from (light,
 * a fraction of a pixel of drift, their noise) stay under it; a subject that moved under the text
 * does not, and is left as this frame's fill has it. On real-portrait the flicker inside the masks
 * fell from 0.94 to 0.65 at 10, 0.40 at 20 and 0.17 at 48, but real-subject lost 0.05 dB at 48.
 */
const SAME_PICTURE = 20;
/** How much of the previous output a pixel takes where the two agree: a recursive mean. */
const PREVIOUS_SHARE = 0.5;
/**
 * The texture at a pixel (the sum of the grey steps across it, left to right and top to bottom,
 * levels) under which it counts as smooth, and over which as textured; in between, the test eases
 * from SAME_PICTURE to none. A smooth stretch of fill (skin, cloth, a wall) that steps between frames
 * is what a viewer sees as flicker, and a step there is the fill's own doing (a lump of a borrowed
 * frame), not a subject that moved: on smooth picture a misalignment costs nothing. Where the
 * previous output was a fill too, a smooth pixel is averaged with it whatever the step (real-subject
 * 24.54 to 24.86 dB inside the masks, flicker 0.60 to 0.49; real-portrait 27.48 to 27.67, 0.23 to
 * 0.12; caption-pan 33.78 to 33.65). Taking 0.8 of the previous output there, not 0.5, took the
 * flicker to 0.40 and -0.01, but a still noisy shot under a sliding line came out worse than with no
 * steadying at all; with 0.8, 4 and 16 for these bounds took 0.5 dB off caption-pan, 8 and 32 1.0 dB.
 */
const SMOOTH_TEXTURE = 2;
const TEXTURED = 12;
const MAX_LEVEL = 255;

/**
 * Holds the fill steady over time. Each frame's fill is borrowed from whichever frames show the hole
 * best, so the same background comes from other frames on every frame and steps by a few levels
 * (and by more where a band of the borrowed frames was a little off). Where the previous output,
 * carried by the camera motion and nudged block by block as the ring around the hole moved
 * (localShifts: a subject moving beside the caption), shows nearly what the fill has, the two are
 * averaged: a motion-compensated recursive filter, which leaves what truly changed alone (on
 * texture: on smooth picture a step is the fill's own). Nothing is done when the previous output
 * does not line up with the frame around the hole (a cut, a picture that moved on).
 */
export function steadyFill(
  work: CropWork,
  linedUp: LinedUpPrevious | undefined,
  previousMask?: Uint8Array,
): void {
  if (!linedUp) return;
  const { source: lined, shift } = linedUp;
  const grey = greyOf(work);
  const { rect, maskedPixels, fill } = work;
  const point = { x: 0, y: 0 };
  const sample = new Float32Array(3);
  for (const i of maskedPixels) {
    const row = Math.floor(i / rect.width);
    projectShifted(lined.motion, shift, rect.x + i - row * rect.width, rect.y + row, point);
    if (!sampleBicubic(lined.frame, undefined, point.x, point.y, sample, 0)) continue;
    const smooth = wasFilled(previousMask, lined.frame, point)
      ? smoothnessAt(grey, rect.width, rect.height, i)
      : 0;
    let apart = 0;
    for (let c = 0; c < 3; c += 1) {
      apart = Math.max(apart, Math.abs((sample[c] as number) - (fill[i * 3 + c] as number)));
    }
    // A smooth pixel is averaged whatever the difference; in between, the test eases off.
    if (apart > SAME_PICTURE + smooth * (MAX_LEVEL - SAME_PICTURE)) continue;
    for (let c = 0; c < 3; c += 1) {
      const at = i * 3 + c;
      fill[at] = (fill[at] as number) + PREVIOUS_SHARE * ((sample[c] as number) - (fill[at] as number));
    }
  }
}

/**
 * Whether the previous output at `point` was the fill's (the frame before had text there) rather
 * than that frame as it was: a frame's own noise is no steadier a source than the fill.
 */
function wasFilled(
  previousMask: Uint8Array | undefined,
  frame: RgbFrame,
  point: { x: number; y: number },
): boolean {
  if (!previousMask) return false;
  const x = Math.round(point.x);
  const y = Math.round(point.y);
  if (x < 0 || y < 0 || x >= frame.width || y >= frame.height) return false;
  const value = previousMask[y * frame.width + x] as number;
  return value !== 0 && value !== MARGIN_PIXEL;
}

/**
 * The grey of the crop as it will be written: the fill where masked, the frame elsewhere, taken
 * before any pixel is averaged. A scratch plane (see scratch.ts): read only within steadyFill.
 */
function greyOf(work: CropWork): Float32Array {
  const { rect, frame, masked, fill } = work;
  const grey = scratchPlane("steady grey", rect.width * rect.height);
  for (let row = 0; row < rect.height; row += 1) {
    for (let column = 0; column < rect.width; column += 1) {
      const i = row * rect.width + column;
      grey[i] = masked[i]
        ? ((fill[i * 3] as number) + (fill[i * 3 + 1] as number) + (fill[i * 3 + 2] as number)) / 3
        : meanGrey(frame.data, (rect.y + row) * frame.width + rect.x + column);
    }
  }
  return grey;
}

/**
 * How smooth the picture is at crop pixel i of a `width` x `height` grey plane: 1 at or under
 * SMOOTH_TEXTURE, 0 at or over TEXTURED (and on the crop's border), linear between.
 */
function smoothnessAt(grey: Float32Array, width: number, height: number, i: number): number {
  const row = Math.floor(i / width);
  const column = i - row * width;
  if (column === 0 || row === 0 || column === width - 1 || row === height - 1) return 0;
  const texture =
    Math.abs((grey[i + 1] as number) - (grey[i - 1] as number)) +
    Math.abs((grey[i + width] as number) - (grey[i - width] as number));
  return Math.min(1, Math.max(0, (TEXTURED - texture) / (TEXTURED - SMOOTH_TEXTURE)));
}
