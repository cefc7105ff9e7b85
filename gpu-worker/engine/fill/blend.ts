import { type CropWork, isSynthesised, Source } from "./crop";
import { solvePoisson } from "./poisson";
import { scratchPlane } from "./scratch";

/**
 * Mean ring offset (levels, per channel) below which a fill with no seams is left as it is: the
 * encoder's noise on the ring, not drift, and a solve that would change nothing a person sees.
 */
const NOISE_OFFSET = 1;

/**
 * Fuses the fill with the frame in the gradient domain (Poisson blending): the fill keeps its own
 * gradients within each kind of patch (seen in other frames, inpainted, estimated behind a
 * see-through box, carried on from the previous output's made-up fill), while a smooth correction
 * takes out the steps where patches meet each other and the frame. Seen pixels answer only to the
 * ring and each other (two seen patches meet with the picture's own step between them); a made-up
 * patch fits itself to everything around it. On the ring just outside the mask the
 * correction is the difference between the frame and what the borrowed frames show there (exposure
 * drift, a light that flickers, slight misalignment); offsets above `maxOffset` are text the mask
 * missed (a halo, a shadow), not drift, and the ring says nothing there. Made-up fills meet the
 * frame as they are. Only masked pixels change; a fill from one frame that matches exactly is left
 * as it was.
 */
export function fuseSeams(work: CropWork, ringEstimate: Float32Array, maxOffset: number): void {
  const { rect, maskedPixels, masked, source, fill } = work;
  const { width, height } = rect;
  const count = maskedPixels.length;
  if (count === 0) return;
  // Per masked pixel: its masked neighbours (crop index + 1, 0 for none), how many terms its equation
  // has, and the fixed part of it (the ring's offsets and the steps across seams), per channel.
  const neighbours = new Int32Array(count * 4);
  const terms = new Uint8Array(count);
  const fixed = scratchPlane("fusion fixed", count * 3, 0);
  const slot = new Int32Array(width * height).fill(-1);
  for (let k = 0; k < count; k += 1) slot[maskedPixels[k] as number] = k;
  let seams = 0;
  const ringSums = [0, 0, 0];
  let ringTerms = 0;
  for (let k = 0; k < count; k += 1) {
    const i = maskedPixels[k] as number;
    const row = Math.floor(i / width);
    const column = i - row * width;
    const around = [
      column > 0 ? i - 1 : -1,
      column < width - 1 ? i + 1 : -1,
      row > 0 ? i - width : -1,
      row < height - 1 ? i + width : -1,
    ];
    for (let d = 0; d < 4; d += 1) {
      const j = around[d] as number;
      if (j < 0) continue;
      if (masked[j]) {
        const seenHere = !isSynthesised(source[i] as number);
        const seenThere = !isSynthesised(source[j] as number);
        // Seen pixels follow only seen pixels and the ring: a made-up patch fits itself to them.
        if (seenHere && !seenThere) continue;
        neighbours[k * 4 + d] = (slot[j] as number) + 1;
        terms[k] = (terms[k] as number) + 1;
        if (seenHere === seenThere && (seenHere || source[j] === source[i])) continue;
        // Across a seam the fill's own step is not kept: the correction takes it out.
        seams += 1;
        for (let c = 0; c < 3; c += 1) {
          fixed[k * 3 + c] =
            (fixed[k * 3 + c] as number) + (fill[j * 3 + c] as number) - (fill[i * 3 + c] as number);
        }
        continue;
      }
      const offset =
        source[i] === Source.neighbours ? ringOffset(work, ringEstimate, j, maxOffset) : NO_OFFSET;
      if (offset === undefined) continue;
      terms[k] = (terms[k] as number) + 1;
      ringTerms += 1;
      for (let c = 0; c < 3; c += 1) {
        ringSums[c] = (ringSums[c] as number) + (offset[c] as number);
        fixed[k * 3 + c] = (fixed[k * 3 + c] as number) + (offset[c] as number);
      }
    }
  }
  const drifted = ringSums.some((sum) => Math.abs(sum / Math.max(1, ringTerms)) > NOISE_OFFSET);
  if (seams === 0 && !drifted) return;
  const pass = new Uint8Array(count);
  for (let k = 0; k < count; k += 1)
    pass[k] = isSynthesised(source[maskedPixels[k] as number] as number) ? 1 : 0;
  const correction = solvePoisson({ width, pixels: maskedPixels, neighbours, terms, fixed, pass });
  for (let k = 0; k < count; k += 1) {
    const i = maskedPixels[k] as number;
    for (let c = 0; c < 3; c += 1)
      fill[i * 3 + c] = (fill[i * 3 + c] as number) + (correction[k * 3 + c] as number);
  }
}

const offsetScratch = new Float32Array(3);
/** Made-up fills grew from the frame's own pixels (or the previous output's): they meet the ring as they are. */
const NO_OFFSET = new Float32Array(3);

/**
 * The correction the ring pixel `j` (unmasked) asks of a borrowed pixel beside it: frame minus what
 * the borrowed frames show there, zero where they show nothing; undefined where the offset is too
 * large to be drift.
 */
function ringOffset(work: CropWork, ringEstimate: Float32Array, j: number, maxOffset: number) {
  const { rect, frame } = work;
  if (Number.isNaN(ringEstimate[j * 3])) return NO_OFFSET;
  const at = ((rect.y + Math.floor(j / rect.width)) * frame.width + rect.x + (j % rect.width)) * 3;
  let size = 0;
  for (let c = 0; c < 3; c += 1) {
    offsetScratch[c] = (frame.data[at + c] as number) - (ringEstimate[j * 3 + c] as number);
    size += Math.abs(offsetScratch[c] as number);
  }
  return size / 3 > maxOffset ? undefined : offsetScratch;
}
