/**
 * `node --import tsx bench/life-bounds.ts`: what the best guesses could score inside the masks of the
 * life clip (content new on every frame, camera still), against its target of the best baseline's
 * PSNR plus 3 dB. Each guess cheats by reading the truth, so none is a method; they bound what any
 * method can reach. Scored by the bench's own ScoreAccumulator. Run `npm run bench -- --clip life`
 * first (it makes the clip).
 */
import path from "node:path";
import { ScoreAccumulator } from "./metrics";
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
if (first === 0 || last === frames.length - 1) {
  throw new Error("the caption must start after frame 0 and end before the last frame");
}

/** PSNR inside the masks of the frames with text, of the frames `guess` makes. */
function psnrIn(guess: (frame: TruthFrame) => Uint8Array): number {
  const scores = new ScoreAccumulator();
  for (const truth of withText) {
    // Only the masked pixels count here, which need neither the input nor SSIM's box.
    scores.add(guess(truth), {
      truth,
      input: truth.clean,
      width: clip.width,
      box: null,
      previousClean: null,
    });
  }
  return scores.result().psnrIn ?? Number.NaN;
}

const truthOf = (index: number) => (frames[index] as TruthFrame).clean;
const nearestClear = (index: number) => (index - (first - 1) <= last + 1 - index ? first - 1 : last + 1);
/** The frame's truth with its masked pixels set to their mean colour (rounded, as any output is). */
function meanColour({ clean, mask, masked }: TruthFrame): Uint8Array {
  const sums = new Float64Array(3);
  for (let pixel = 0; pixel < mask.length; pixel += 1) {
    if (!mask[pixel]) continue;
    for (let c = 0; c < 3; c += 1) sums[c] = (sums[c] as number) + (clean[pixel * 3 + c] as number);
  }
  const guess = Uint8Array.from(clean);
  for (let pixel = 0; pixel < mask.length; pixel += 1) {
    if (!mask[pixel]) continue;
    for (let c = 0; c < 3; c += 1) guess[pixel * 3 + c] = Math.round((sums[c] as number) / masked);
  }
  return guess;
}

console.log(`text on frames ${first} to ${last}; PSNR inside the masks of those frames:`);
const line = (what: string, db: number) => console.log(`  ${what.padEnd(44)} ${db.toFixed(2)} dB`);
line(
  "the truth of the nearest frame without text:",
  psnrIn((f) => truthOf(nearestClear(f.index))),
);
line(
  "the truth of the frame before:",
  psnrIn((f) => truthOf(f.index - 1)),
);
line("the true mean colour of the masked pixels:", psnrIn(meanColour));
