/**
 * The OpenCV Telea baseline, run as its own process so its time and memory are measured alone:
 * `node --import tsx bench/telea.ts CLIP_DIR OUTPUT`. Every frame of the input is inpainted on the
 * true mask (grown by 2 pixels to take the compression's ringing around the letters), on its own.
 */
import { inpaintSpatial } from "../gpu-worker/engine/fill";
import { yuvToRgbFilter } from "../gpu-worker/engine/media/colour";
import { dilate } from "../gpu-worker/engine/pipeline/dilate";
import { BASELINE_GROW } from "./methods";
import { rawEncoder } from "./raw-encoder";
import { rgbFrames } from "./raw-frames";
import { clipFiles, readClip, truthFrames } from "./truth";

const TELEA_RADIUS = 5;

const [dir, output] = process.argv.slice(2);
if (!dir || !output) {
  console.error("usage: telea.ts CLIP_DIR OUTPUT");
  process.exit(2);
}
const clip = await readClip(dir);
const { width, height } = clip;
// Decoded as the engine decodes, so that both lose the same in the colour conversions.
const input = rgbFrames(clipFiles(dir).input, clip, yuvToRgbFilter({}));
const encoder = rawEncoder(output, clip, clipFiles(dir).input);
for await (const truth of truthFrames(dir, clip)) {
  const frame = await input.next();
  if (frame.done) throw new Error("the input has fewer frames than the truth");
  if (truth.masked === 0) {
    await encoder.write(frame.value);
    continue;
  }
  const mask = dilate(truth.mask, width, height, BASELINE_GROW);
  const filled = await inpaintSpatial({ width, height, data: frame.value }, mask, {
    radius: TELEA_RADIUS,
    method: "telea",
  });
  await encoder.write(filled.data);
}
await encoder.finish();
