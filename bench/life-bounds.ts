/**
 * `node --import tsx bench/life-bounds.ts`: what the best guesses could score inside the masks of the
 * life clip (content new on every frame, camera still), against its target of the best baseline's
 * PSNR plus 3 dB. Each guess cheats by reading the truth, so none is a method; they bound what any
 * method can reach. Run `npm run bench -- --clip life` first (it makes the clip).
 */
import path from "node:path";
import { psnr } from "./metrics";
import { readClip, type TruthFrame, truthFrames } from "./truth";

const dir = path.resolve(import.meta.dirname, "..", ".cache", "bench", "clips", "life");
const clip = await readClip(dir);
// Four seconds at 960x540: every frame fits in memory.
const frames: TruthFrame[] = [];
for await (const frame of truthFrames(dir, clip)) frames.push(frame);
const withText = frames.filter((frame) => frame.masked > 0);
const first = withText[0]?.index ?? 0;
const last = withText.at(-1)?.index ?? 0;
// The guesses read the frames just outside the caption's span.
if (first === 0 || last === frames.length - 1)
  throw new Error("the caption must start after frame 0 and end before the last frame");

/** PSNR over every masked sample of every frame with text, of `guess(frame)` against the truth. */
function score(guess: (frame: TruthFrame) => (pixel: number, channel: number) => number): number {
  let squared = 0;
  let samples = 0;
  for (const frame of withText) {
    const guessed = guess(frame);
    for (let pixel = 0; pixel < frame.mask.length; pixel += 1) {
      if (!frame.mask[pixel]) continue;
      for (let channel = 0; channel < 3; channel += 1) {
        const error = guessed(pixel, channel) - (frame.clean[pixel * 3 + channel] as number);
        squared += error * error;
        samples += 1;
      }
    }
  }
  return psnr(squared, samples);
}

const truthOf = (index: number) => (frames[index] as TruthFrame).clean;
const picture = (clean: Uint8Array) => (pixel: number, channel: number) =>
  clean[pixel * 3 + channel] as number;
/** The masked pixels' mean colour in the frame's own truth. */
function meanColour(frame: TruthFrame): (pixel: number, channel: number) => number {
  const sums = new Float64Array(3);
  for (let pixel = 0; pixel < frame.mask.length; pixel += 1) {
    if (!frame.mask[pixel]) continue;
    for (let channel = 0; channel < 3; channel += 1)
      sums[channel] = (sums[channel] as number) + (frame.clean[pixel * 3 + channel] as number);
  }
  return (_, channel) => (sums[channel] as number) / frame.masked;
}

const nearestClear = (index: number) => (index - (first - 1) <= last + 1 - index ? first - 1 : last + 1);
console.log(`text on frames ${first} to ${last}; PSNR inside the masks of those frames:`);
console.log(
  `  the truth of the nearest frame without text: ${score((f) => picture(truthOf(nearestClear(f.index)))).toFixed(2)} dB`,
);
console.log(
  `  the truth of the frame before:               ${score((f) => picture(truthOf(f.index - 1))).toFixed(2)} dB`,
);
console.log(`  the true mean colour of the masked pixels:   ${score(meanColour).toFixed(2)} dB`);
