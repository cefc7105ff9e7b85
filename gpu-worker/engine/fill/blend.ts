import { type CropWork, isSynthesised, Source } from "./crop";
import { GroupSteps } from "./group-steps";
import { solvePoisson } from "./poisson";
import { scratchPlane } from "./scratch";
import type { GroupShows } from "./temporal";

/**
 * Mean ring offset (levels, per channel) below which a fill with no seams is left as it is: the
 * encoder's noise on the ring, not drift, and a solve that would change nothing a person sees.
 */
const NOISE_OFFSET = 1;

/**
 * Fuses the fill with the frame in the gradient domain (Poisson blending): the fill keeps its own
 * gradients within each patch (seen in the same frames, inpainted, estimated behind a see-through
 * box, carried on from the previous output's made-up fill), while a smooth correction takes out the
 * steps where patches meet each other and the frame. Seen pixels answer only to the ring and each
 * other; a made-up patch fits itself to everything around it. Where two seen patches borrowed from
 * different frames (two of the crop's groups) meet, the typical step between them is taken out
 * (GroupSteps): it is the difference of those frames' light (a hook's letters filled from a frame 64
 * on, darker there than the frames that filled the box around them, stood out as dark letters). On the ring just outside
 * the mask the correction is the difference between the frame and what the frames that filled the
 * pixel beside it show there (`shows`: exposure drift, a light that flickers, slight misalignment);
 * offsets above `maxOffset` are text the mask missed (a halo, a shadow), not drift, and the ring
 * says nothing there. Made-up fills meet the frame as they are. Only masked pixels change; a fill
 * from one frame that matches exactly is left as it was.
 */
export function fuseSeams(work: CropWork, shows: GroupShows, maxOffset: number): void {
  const { rect, maskedPixels, masked, source, fill, group } = work;
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
  // Seams between seen groups, as pairs of a masked pixel's slot and its neighbour's crop index: their
  // typical step is known only once every step along them is.
  const groupSteps = new GroupSteps();
  const groupSeams: number[] = [];
  // Crop pixel p if it was seen in the frames of crop pixel `of`'s group, else -1.
  const ofGroup = (p: number, of: number) =>
    p >= 0 && masked[p] && group[p] === group[of] && !isSynthesised(source[p] as number) ? p : -1;
  const ringSums = [0, 0, 0];
  let ringTerms = 0;
  for (let k = 0; k < count; k += 1) {
    const i = maskedPixels[k] as number;
    for (let d = 0; d < 4; d += 1) {
      const j = neighbourIn(i, d, width, height);
      if (j < 0) continue;
      if (masked[j]) {
        const seenHere = !isSynthesised(source[i] as number);
        const seenThere = !isSynthesised(source[j] as number);
        // Seen pixels follow only seen pixels and the ring: a made-up patch fits itself to them.
        if (seenHere && !seenThere) continue;
        neighbours[k * 4 + d] = (slot[j] as number) + 1;
        terms[k] = (terms[k] as number) + 1;
        if (seenHere && seenThere) {
          if (group[j] === group[i]) continue;
          groupSeams.push(k, j);
          // Each seam once (it is met from both sides), with the pixels behind it on either side.
          if ((group[i] as number) < (group[j] as number)) {
            const after = ofGroup(neighbourIn(j, d, width, height), j);
            groupSteps.add(
              fill,
              group[i] as number,
              i,
              group[j] as number,
              j,
              ofGroup(neighbourIn(i, d ^ 1, width, height), i),
              after,
            );
          }
          continue;
        }
        if (source[j] === source[i]) continue;
        // Across a seam between made-up patches the fill's own step is not kept: the correction takes it out.
        seams += 1;
        for (let c = 0; c < 3; c += 1) {
          fixed[k * 3 + c] =
            (fixed[k * 3 + c] as number) + (fill[j * 3 + c] as number) - (fill[i * 3 + c] as number);
        }
        continue;
      }
      const offset =
        source[i] === Source.neighbours
          ? ringOffset(work, shows(group[i] as number, j), j, maxOffset)
          : NO_OFFSET;
      if (offset === undefined) continue;
      terms[k] = (terms[k] as number) + 1;
      ringTerms += 1;
      for (let c = 0; c < 3; c += 1) {
        ringSums[c] = (ringSums[c] as number) + (offset[c] as number);
        fixed[k * 3 + c] = (fixed[k * 3 + c] as number) + (offset[c] as number);
      }
    }
  }
  for (let s = 0; s < groupSeams.length; s += 2) {
    const k = groupSeams[s] as number;
    const here = group[maskedPixels[k] as number] as number;
    const there = group[groupSeams[s + 1] as number] as number;
    let step = 0;
    for (let c = 0; c < 3; c += 1) {
      const light = groupSteps.between(here, there, c);
      fixed[k * 3 + c] = (fixed[k * 3 + c] as number) + light;
      step += Math.abs(light);
    }
    // A seam with no step in light asks nothing of the correction (the fill keeps its step there).
    if (step > 0) seams += 1;
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

/** The pixel beside crop pixel `p` in direction `d` (left, right, up, down), -1 past the crop's edge. */
function neighbourIn(p: number, d: number, width: number, height: number): number {
  const column = p % width;
  const row = (p - column) / width;
  if (d === 0) return column > 0 ? p - 1 : -1;
  if (d === 1) return column < width - 1 ? p + 1 : -1;
  if (d === 2) return row > 0 ? p - width : -1;
  return row < height - 1 ? p + width : -1;
}

const offsetScratch = new Float32Array(3);
/** Made-up fills grew from the frame's own pixels (or the previous output's): they meet the ring as they are. */
const NO_OFFSET = new Float32Array(3);

/**
 * The correction the ring pixel `j` (unmasked) asks of a borrowed pixel beside it: frame minus what
 * the borrowed pixel's frames show there (`shown`), zero where they show nothing; undefined where the
 * offset is too large to be drift.
 */
function ringOffset(work: CropWork, shown: Float32Array | undefined, j: number, maxOffset: number) {
  const { rect, frame } = work;
  if (!shown) return NO_OFFSET;
  const at = ((rect.y + Math.floor(j / rect.width)) * frame.width + rect.x + (j % rect.width)) * 3;
  let size = 0;
  for (let c = 0; c < 3; c += 1) {
    offsetScratch[c] = (frame.data[at + c] as number) - (shown[c] as number);
    size += Math.abs(offsetScratch[c] as number);
  }
  return size / 3 > maxOffset ? undefined : offsetScratch;
}
