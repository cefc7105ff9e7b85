import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  type FillFrameOptions,
  type FillResult,
  fillFrame,
  fillRegions,
  type Homography,
  inpaintSpatial,
  type MaskedFrame,
  type PreviousFill,
  type RgbFrame,
} from "../../gpu-worker/engine/fill";
import { cropWork, Source } from "../../gpu-worker/engine/fill/crop";
import { motionRegion } from "../../gpu-worker/engine/fill/fill";
import { MotionEstimator } from "../../gpu-worker/engine/fill/motion";
import { MotionChain } from "../../gpu-worker/engine/fill/motion-chain";
import { maskExtent } from "../../gpu-worker/engine/fill/regions";
import { movingNearHole } from "../../gpu-worker/engine/fill/ring-change";
import { project } from "../../gpu-worker/engine/fill/sample";
import { carryOver, linedUpPrevious } from "../../gpu-worker/engine/fill/stabilise";
import { fillSource } from "../../gpu-worker/engine/fill/temporal";
import { boxIsMasked, forgetTiles, fullTiles } from "../../gpu-worker/engine/fill/tiles";
import { homography, IDENTITY, MARGIN_PIXEL } from "../../gpu-worker/engine/fill/types";
import { keptSources, RING_WIDTH } from "../../gpu-worker/engine/fill/window-fill";
import type { SizedRect } from "../../gpu-worker/engine/geometry";
import { dilate } from "../../gpu-worker/engine/pipeline/dilate";
import { RESTORED_HEAVY } from "../../gpu-worker/engine/pipeline/see-through";

const MANDELBROT = "mandelbrot=size=1280x720:rate=25:start_scale=3:end_scale=3";

/** Raw RGB24 frames from an ffmpeg lavfi source and filter chain. */
function lavfiFrames(source: string, filter: string, width: number, height: number, count: number) {
  const input = ["-v", "error", "-f", "lavfi", "-i", source, "-vf", filter, "-frames:v", String(count)];
  const raw = execFileSync("ffmpeg", [...input, "-pix_fmt", "rgb24", "-f", "rawvideo", "-"], {
    maxBuffer: width * height * 3 * count + 1024,
  });
  const size = width * height * 3;
  expect(raw.length).toBe(size * count);
  return Array.from({ length: count }, (_, k) => ({
    width,
    height,
    data: new Uint8Array(raw.buffer, raw.byteOffset + k * size, size),
  }));
}

type Box = [x: number, y: number, width: number, height: number];

function maskOf(width: number, height: number, boxes: Box[]): Uint8Array {
  const mask = new Uint8Array(width * height);
  for (const [x, y, w, h] of boxes) {
    for (let row = y; row < y + h; row += 1) mask.fill(255, row * width + x, row * width + x + w);
  }
  return mask;
}

/** A caption's background box plus glyph-like strokes above it: vertical stems with crossbars. */
function captionBoxes(x: number, y: number, boxWidth: number, boxHeight: number, glyphs: number): Box[] {
  const boxes: Box[] = [[x, y, boxWidth, boxHeight]];
  for (let k = 0; k < glyphs; k += 1) {
    boxes.push([x + k * 26, y - 40, 5, 32], [x + k * 26 - 6, y - 26, 18, 4]);
  }
  return boxes;
}

/** The colours `withText` burns in. */
const TEXT_COLOURS = [0, 245];

/** Masked pixels that are still exactly one of the text's grey levels. */
function textColoured(frame: RgbFrame, mask: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < mask.length; i += 1) {
    const [r, g, b] = frame.data.subarray(i * 3, i * 3 + 3);
    if (mask[i] && r === g && g === b && TEXT_COLOURS.includes(r as number)) count += 1;
  }
  return count;
}

/** Burns white text with a black outline into the masked pixels, as a caption would cover them. */
function withText(frame: RgbFrame, mask: Uint8Array): MaskedFrame {
  const data = Uint8Array.from(frame.data);
  for (let i = 0; i < mask.length; i += 1) {
    if (mask[i]) data.fill(TEXT_COLOURS[i % 7 === 0 ? 0 : 1] as number, i * 3, i * 3 + 3);
  }
  return { frame: { ...frame, data }, mask };
}

function maskedCount(mask: Uint8Array): number {
  return mask.reduce((total, value) => total + (value ? 1 : 0), 0);
}

function psnrInMask(actual: RgbFrame, expected: RgbFrame, mask: Uint8Array): number {
  let squared = 0;
  let samples = 0;
  for (let i = 0; i < mask.length; i += 1) {
    if (!mask[i]) continue;
    for (let c = 0; c < 3; c += 1) {
      const difference = (actual.data[i * 3 + c] as number) - (expected.data[i * 3 + c] as number);
      squared += difference * difference;
      samples += 1;
    }
  }
  return 10 * Math.log10((255 * 255) / Math.max(squared / samples, 1e-10));
}

function meanAbsDiffInMask(a: RgbFrame, b: RgbFrame, mask: Uint8Array): number {
  let total = 0;
  let samples = 0;
  for (let i = 0; i < mask.length; i += 1) {
    if (!mask[i]) continue;
    for (let c = 0; c < 3; c += 1)
      total += Math.abs((a.data[i * 3 + c] as number) - (b.data[i * 3 + c] as number));
    samples += 3;
  }
  return total / samples;
}

/** The baseline: every masked pixel set to the mean colour of the unmasked pixels within 4 px. */
function meanColourFill(frame: RgbFrame, mask: Uint8Array): RgbFrame {
  const { width, height } = frame;
  const sum = [0, 0, 0];
  let count = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (mask[y * width + x] || !nearMask(mask, width, height, x, y, 4)) continue;
      for (let c = 0; c < 3; c += 1)
        sum[c] = (sum[c] as number) + (frame.data[(y * width + x) * 3 + c] as number);
      count += 1;
    }
  }
  const data = Uint8Array.from(frame.data);
  const mean = sum.map((value) => Math.round(value / count));
  for (let i = 0; i < mask.length; i += 1) if (mask[i]) data.set(mean, i * 3);
  return { width, height, data };
}

function nearMask(mask: Uint8Array, width: number, height: number, x: number, y: number, radius: number) {
  for (let dy = -radius; dy <= radius; dy += 1) {
    for (let dx = -radius; dx <= radius; dx += 1) {
      const nx = x + dx;
      const ny = y + dy;
      if (nx >= 0 && ny >= 0 && nx < width && ny < height && mask[ny * width + nx]) return true;
    }
  }
  return false;
}

function expectOnlyMaskedChanged(input: RgbFrame, output: RgbFrame, mask: Uint8Array): void {
  expect(output.width).toBe(input.width);
  expect(output.height).toBe(input.height);
  expect(output.data.length).toBe(input.data.length);
  let changedOutside = 0;
  for (let i = 0; i < mask.length; i += 1) {
    if (mask[i]) continue;
    for (let c = 0; c < 3; c += 1) if (output.data[i * 3 + c] !== input.data[i * 3 + c]) changedOutside += 1;
  }
  expect(changedOutside).toBe(0);
}

/** Masked pixel channels outside the colour range (±8) of the unmasked pixels within 8 px of the mask. */
function outOfRange(frame: RgbFrame, mask: Uint8Array): number {
  const low = [255, 255, 255];
  const high = [0, 0, 0];
  for (let y = 0; y < frame.height; y += 1) {
    for (let x = 0; x < frame.width; x += 1) {
      if (mask[y * frame.width + x] || !nearMask(mask, frame.width, frame.height, x, y, 8)) continue;
      for (let c = 0; c < 3; c += 1) {
        const value = frame.data[(y * frame.width + x) * 3 + c] as number;
        low[c] = Math.min(low[c] as number, value);
        high[c] = Math.max(high[c] as number, value);
      }
    }
  }
  let count = 0;
  for (let i = 0; i < mask.length; i += 1) {
    for (let c = 0; c < 3 && mask[i]; c += 1) {
      const value = frame.data[i * 3 + c] as number;
      if (value < (low[c] as number) - 8 || value > (high[c] as number) + 8) count += 1;
    }
  }
  return count;
}

/**
 * Fills frames first..last in order, each with the previous output, as the pipeline runs them; with
 * `chain`, motion is measured once per frame pair and composed, as the engine does (window[k].index = k).
 */
async function fillSequence(
  window: MaskedFrame[],
  first: number,
  last: number,
  windowRadius: number,
  chain?: MotionChain,
  options: FillFrameOptions = {},
) {
  const results: FillResult[] = [];
  let previous: PreviousFill | undefined;
  const indexed = window.map((item, index) => ({ ...item, index }));
  for (let center = first; center <= last; center += 1) {
    const motion = chain && ((to: number, roi: SizedRect) => chain.between(indexed, center, to, roi));
    const result = await fillFrame(window, center, previous, {
      windowRadius,
      ...options,
      ...(motion ? { motion } : {}),
    });
    results.push(result);
    previous = { frame: result.frame, filledMask: result.synthesized };
  }
  return results;
}

/**
 * Asserts that the fill reaching farther (`far`) shows every masked pixel, at 35 dB at least and 3 dB
 * over the nearer one (`near`), which leaves some unseen; `label` names the two in the log.
 */
function expectFartherFillsAll(
  fills: { near: FillResult; far: FillResult; input: RgbFrame; truth: RgbFrame; mask: Uint8Array },
  label: string,
): void {
  const { near, far, input, truth, mask } = fills;
  const nearPsnr = psnrInMask(near.frame, truth, mask);
  const farPsnr = psnrInMask(far.frame, truth, mask);
  console.info(`${label}: ${nearPsnr.toFixed(1)} dB, ${farPsnr.toFixed(1)} dB`);
  expect(near.unseen).toBeGreaterThan(0);
  expect(far.unseen).toBe(0);
  expect(farPsnr).toBeGreaterThanOrEqual(35);
  expect(farPsnr).toBeGreaterThan(nearPsnr + 3);
  expectOnlyMaskedChanged(input, far.frame, mask);
}

/** A pseudo-random generator with a fixed seed (mulberry32), for reproducible sensor noise. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function withNoise(frame: RgbFrame, amplitude: number, random: () => number): RgbFrame {
  const data = Uint8Array.from(frame.data, (value) =>
    Math.min(255, Math.max(0, Math.round(value + (random() * 2 - 1) * amplitude))),
  );
  return { ...frame, data };
}

describe("temporal fill", () => {
  const width = 640;
  const height = 360;
  // 8 px per frame to the left over a larger fractal.
  const clean = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*200':y=200", width, height, 30);

  it("fills a caption over a pan from neighbouring frames, leaving the rest untouched", async () => {
    const mask = maskOf(width, height, captionBoxes(250, 290, 56, 28, 6));
    const window = clean.map((frame) => withText(frame, mask));
    const center = 8;
    const result = await fillFrame(window, center, undefined, { windowRadius: 4 });
    const truth = clean[center] as RgbFrame;
    const input = (window[center] as MaskedFrame).frame;

    const temporal = psnrInMask(result.frame, truth, mask);
    const telea = psnrInMask(await inpaintSpatial(input, mask), truth, mask);
    const mean = psnrInMask(meanColourFill(input, mask), truth, mask);
    console.info(
      `pan: temporal ${temporal.toFixed(1)} dB, Telea alone ${telea.toFixed(1)} dB, ` +
        `mean colour ${mean.toFixed(1)} dB`,
    );
    expect(result.unseen).toBe(0);
    expect(temporal).toBeGreaterThanOrEqual(35);
    expect(temporal).toBeGreaterThan(telea);
    expectOnlyMaskedChanged(input, result.frame, mask);
  });

  it("fills the margin around the letters for its own sake but writes it back as the frame had it", async () => {
    const text = maskOf(width, height, captionBoxes(250, 290, 56, 28, 6));
    // The margin (pipeline/glyph-growth): 4 px around the letters, where the picture is the frame's own.
    const grown = dilate(text, width, height, 4);
    const mask = Uint8Array.from(grown, (value, p) => (text[p] ? 255 : value ? MARGIN_PIXEL : 0));
    const window = clean.map((frame) => ({ ...withText(frame, text), mask }));
    const center = 8;
    const result = await fillFrame(window, center, undefined, { windowRadius: 6 });
    const input = (window[center] as MaskedFrame).frame;
    expect(textColoured(result.frame, text)).toBe(0);
    expect(psnrInMask(result.frame, clean[center] as RgbFrame, text)).toBeGreaterThanOrEqual(35);
    // Only the letters changed: the margin is the input's, byte for byte.
    expectOnlyMaskedChanged(input, result.frame, text);
  });

  it("fills the pan as well with motion measured once per frame pair and composed (the engine's way)", async () => {
    const mask = maskOf(width, height, captionBoxes(250, 290, 56, 28, 6));
    const window = clean.map((frame, index) => ({ ...withText(frame, mask), index }));
    const chain = new MotionChain();
    const center = 8;
    const result = await fillFrame(window, center, undefined, {
      windowRadius: 4,
      motion: (to, roi) => chain.between(window, center, to, roi),
    });
    expect(result.unseen).toBe(0);
    expect(psnrInMask(result.frame, clean[center] as RgbFrame, mask)).toBeGreaterThanOrEqual(35);
    expectOnlyMaskedChanged((window[center] as MaskedFrame).frame, result.frame, mask);
  });

  it("carries background revealed earlier through a wide caption band via the previous output", async () => {
    const mask = maskOf(width, height, captionBoxes(240, 290, 160, 36, 7));
    const window = clean.map((frame) => withText(frame, mask));
    const results = await fillSequence(window, 0, 23, 4);
    // 160 px at 8 px per frame: after 20 frames every pixel has been seen to the right of the band.
    const last = results[23] as FillResult;
    const carried = psnrInMask(last.frame, clean[23] as RgbFrame, mask);
    const first = psnrInMask((results[0] as FillResult).frame, clean[0] as RgbFrame, mask);
    console.info(`wide band over a pan: frame 0 ${first.toFixed(1)} dB, frame 23 ${carried.toFixed(1)} dB`);
    expect(last.carried).toBeGreaterThan(0);
    expect(carried).toBeGreaterThanOrEqual(35);
    results.forEach((result, k) => {
      expectOnlyMaskedChanged((window[k] as MaskedFrame).frame, result.frame, mask);
    });
  });

  it("follows a zoom with the homography", async () => {
    const zoom = lavfiFrames(
      `${MANDELBROT},gblur=sigma=1.5`,
      "scale=w='trunc((1280+t*320)/2)*2':h=-2:eval=frame,crop=640:360:x='(iw-640)/2':y='(ih-360)/2'",
      width,
      height,
      10,
    );
    const mask = maskOf(width, height, captionBoxes(60, 300, 24, 20, 4));
    const window = zoom.map((frame) => withText(frame, mask));
    const result = await fillFrame(window, 5, undefined, { windowRadius: 4 });
    const psnr = psnrInMask(result.frame, zoom[5] as RgbFrame, mask);
    console.info(`zoom: temporal ${psnr.toFixed(1)} dB`);
    expect(result.unseen).toBe(0);
    expect(psnr).toBeGreaterThanOrEqual(35);
    expectOnlyMaskedChanged((window[5] as MaskedFrame).frame, result.frame, mask);
  });
});

describe("a see-through box", () => {
  const width = 640;
  const height = 360;
  const clean = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*200':y=200", width, height, 9);

  it("brings the picture estimated behind it into line with what the pan shows at its ends", async () => {
    // A 200 px box over an 8 px-per-frame pan: four frames each side show 32 px at either end; the
    // middle is left to the frame's own estimate, made here 15% too dark and lifted, as a slightly
    // mis-measured opacity leaves it.
    const mask = maskOf(width, height, [[220, 280, 200, 40]]);
    const center = 4;
    const truth = clean[center] as RgbFrame;
    const estimate = Uint8Array.from(truth.data, (value, k) =>
      mask[Math.floor(k / 3)] ? Math.round(0.85 * value + 12) : value,
    );
    const window = clean.map((frame) => withText(frame, mask));
    window[center] = { frame: { ...truth, data: estimate }, mask, behind: Uint8Array.from(mask) };
    const result = await fillFrame(window, center, undefined, { windowRadius: 4 });

    const middle = maskOf(width, height, [[256, 280, 128, 40]]);
    const filled = psnrInMask(result.frame, truth, middle);
    const asEstimated = psnrInMask({ ...truth, data: estimate }, truth, middle);
    console.info(
      `see-through box: middle ${filled.toFixed(1)} dB, the estimate as given ${asEstimated.toFixed(1)} dB`,
    );
    expect(filled).toBeGreaterThanOrEqual(38);
    expect(filled).toBeGreaterThan(asEstimated + 6);
    expectOnlyMaskedChanged(window[center].frame, result.frame, mask);
  });
});

/** Whole levels from -amplitude to amplitude, the same run for the same seed: a restoration's noise. */
function seededNoise(seed: number, amplitude: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.round((state / 2147483648) * 2 * amplitude - amplitude);
  };
}

/**
 * A frame of `still` whose picture under `mask` was restored through a see-through box (the picture
 * plus `noise` a level), its letters at `level` and left out of what it restored; `behind` marks the
 * restored pixels with `restored` (RESTORED, or RESTORED_HEAVY behind a heavy plate).
 */
function restoredThrough(
  still: RgbFrame,
  mask: Uint8Array,
  text: { letters: Uint8Array; level: number; noise: () => number },
  restored: number,
): MaskedFrame {
  const { letters, level, noise } = text;
  const data = Uint8Array.from(still.data);
  for (let p = 0; p < mask.length; p += 1) {
    if (!mask[p]) continue;
    for (let c = 0; c < 3; c += 1) {
      data[p * 3 + c] = letters[p]
        ? level
        : Math.max(0, Math.min(255, (still.data[p * 3 + c] as number) + noise()));
    }
  }
  const behind = Uint8Array.from(mask, (value, p) => (value && !letters[p] ? restored : 0));
  return { frame: { width: still.width, height: still.height, data }, mask, behind, textOnly: letters };
}

/** One 320x180 frame of the fractal, the picture of a still shot. */
function stillShot(): RgbFrame {
  return lavfiFrames(MANDELBROT, "crop=320:180:x=500:y=260", 320, 180, 1)[0] as RgbFrame;
}

describe("a see-through band over a still shot", () => {
  it("takes the picture behind it from more frames than the nearest two: each restored one is noisy", async () => {
    // A ticker's band, its letters moving 12 px a frame: every frame restored the picture behind the
    // band (its own noise scaled up by the band's opacity: here ±14 levels), its letters left out.
    const still = stillShot();
    const { width, height } = still;
    const band: Box = [20, 120, 280, 30];
    const center = 4;
    const noise = seededNoise(7, 14);
    const window: MaskedFrame[] = Array.from({ length: 9 }, (_, k) => {
      const letters = maskOf(
        width,
        height,
        [0, 1, 2, 3].map((n): Box => [30 + n * 60 + k * 12, 124, 14, 22]),
      );
      return restoredThrough(still, maskOf(width, height, [band]), { letters, level: 245, noise }, 255);
    });
    const result = await fillFrame(window, center, undefined, { windowRadius: 4 });
    const inBand = maskOf(width, height, [band]);
    const filled = psnrInMask(result.frame, still, inBand);
    console.info(`see-through band, restored pictures pooled: ${filled.toFixed(1)} dB`);
    // The median of the nearest two restorations scores 31.6 dB here, of the nearest eight 35.0; 34.8
    // since the fill checks them against the frame's own restoration (in the fractal's darkest parts
    // this noise passes for a subject moving behind the band).
    expect(filled).toBeGreaterThanOrEqual(34);
    expectOnlyMaskedChanged((window[center] as MaskedFrame).frame, result.frame, inBand);
  });
});

describe("a heavy plate that came on over a still shot", () => {
  it("takes the picture a frame from before it came on shows, over the blurred restorations through it", async () => {
    // A lower third at 92 % held over the whole window: every frame restored the picture behind it
    // (here the picture with ±14 levels of noise), and marked it as restored behind a heavy plate. A
    // frame from before the plate came on, kept past the window, shows the picture itself.
    const still = stillShot();
    const { width, height } = still;
    const plate: Box = [20, 110, 280, 40];
    const letters = maskOf(width, height, [[40, 118, 120, 24]]);
    const mask = maskOf(width, height, [plate]);
    const noise = seededNoise(11, 14);
    const window: MaskedFrame[] = Array.from({ length: 9 }, () =>
      restoredThrough(still, mask, { letters, level: 20, noise }, RESTORED_HEAVY),
    );
    const before = { frame: still, mask: new Uint8Array(width * height), index: 0 };
    const kept = keptSources([before], async (frame) =>
      fillSource({ ...frame, side: -1 }, IDENTITY, 20, frame.mask),
    );
    const center = 4;
    const result = await fillFrame(window, center, undefined, { windowRadius: 4 }, kept);
    const restoredOnly = await fillFrame(window, center, undefined, { windowRadius: 4 });
    const filled = psnrInMask(result.frame, still, mask);
    const fromRestorations = psnrInMask(restoredOnly.frame, still, mask);
    console.info(
      `heavy plate: ${filled.toFixed(1)} dB with the frame from before it, ${fromRestorations.toFixed(1)} dB from the restorations`,
    );
    expect(filled).toBeGreaterThanOrEqual(40);
    expect(filled).toBeGreaterThan(fromRestorations + 5);
    expectOnlyMaskedChanged((window[center] as MaskedFrame).frame, result.frame, mask);
  });
});

describe("a caption over a subject that moves on its own beside a still background", () => {
  const width = 256;
  const height = 112;
  /**
   * Frame t of a patterned wall the camera pans over (`pan` px a frame) and, from column `edge` on, a
   * subject (its pattern at (u, y)) that moves `speed` px further a frame on its own.
   */
  const wallAndSubject =
    (edge: number, pan: number, speed: number, subject: (u: number, y: number) => number) =>
    (t: number): RgbFrame => {
      const data = new Uint8Array(width * height * 3);
      for (let y = 0; y < height; y += 1) {
        for (let x = 0; x < width; x += 1) {
          const value =
            x >= edge
              ? subject(x - (pan + speed) * t, y)
              : 110 + 40 * Math.sin((x - pan * t) / 5) * Math.cos(y / 7);
          data.set([value, value * 0.8, 255 - value], (y * width + x) * 3);
        }
      }
      return { width, height, data };
    };

  it("fills the letters over the subject from the frames around, nudged to follow it", async () => {
    const scene = wallAndSubject(
      176,
      1,
      2,
      (u, y) => 130 + 60 * Math.sin(u / 3.1 + y / 4.3) + 30 * Math.cos(y / 2.7),
    );
    // Letter stems 4 px wide, 20 tall, every 16 px: the last three over the subject.
    const stems: Box[] = Array.from({ length: 12 }, (_, k) => [40 + 16 * k, 46, 4, 20]);
    const mask = maskOf(width, height, stems);
    const window = [-3, -2, -1, 0, 1, 2, 3].map((t) => withText(scene(t), mask));
    const pan = async (to: number) => homography([1, 0, to - 3, 0, 1, 0, 0, 0, 1]);
    const result = await fillFrame(window, 3, undefined, { windowRadius: 3, motion: pan });
    const onSubject = maskOf(
      width,
      height,
      stems.filter(([x]) => x >= 176),
    );
    const psnr = psnrInMask(result.frame, scene(0), onSubject);
    console.info(`letters over a moving subject: ${psnr.toFixed(1)} dB`);
    // Left out as moving (the spatial fill alone) it scored 21.5 dB; followed, 36.3; each frame starting
    // from the nearer one's nudges, 38.3.
    expect(psnr).toBeGreaterThan(30);
    expectOnlyMaskedChanged(window[3]?.frame as RgbFrame, result.frame, mask);
  });

  it("follows a subject further than one nudge reaches: each farther frame starts from the nearer one's nudges", async () => {
    // A still camera; the subject is patterned both ways, so its ring shows its motion whole.
    const scene = wallAndSubject(
      152,
      0,
      2,
      (u, y) => 130 + 60 * Math.sin(u / 3.7) * Math.cos(y / 4.1) + 25 * Math.sin(u / 2.1 + y / 5.3),
    );
    // Bold stems, 12 px wide: a stem's middle shows only 3 frames away, 6 px on (and the sampling
    // needs a pixel more), past the 4 px one nudge from nought may reach.
    const stems: Box[] = Array.from({ length: 6 }, (_, k) => [24 + 36 * k, 46, 12, 20]);
    const mask = maskOf(width, height, stems);
    const window = [-4, -3, -2, -1, 0, 1, 2, 3, 4].map((t) => withText(scene(t), mask));
    const result = await fillFrame(window, 4, undefined, { windowRadius: 4, motion: async () => IDENTITY });
    const onSubject = maskOf(
      width,
      height,
      stems.filter(([x]) => x >= 152),
    );
    const psnr = psnrInMask(result.frame, scene(0), onSubject);
    console.info(`bold letters over a subject that keeps moving: ${psnr.toFixed(1)} dB`);
    // Each frame nudged from nought it scored 26.2 dB (the stems' middles left to the spatial fill);
    // from the nearer frame's nudges, 42.7.
    expect(psnr).toBeGreaterThan(36);
    expectOnlyMaskedChanged(window[4]?.frame as RgbFrame, result.frame, mask);
  });
});

describe("a see-through box over a subject that moves on its own", () => {
  it("takes the picture behind the box and its letters from the frame's own restoration where the other frames show something else there", async () => {
    // A still shot, except under the hook's box, where a subject slides 6 px a frame: the ring around
    // the box holds still, so every neighbour lines up, yet what each restored behind the box (and
    // shows where this frame has letters) is the subject somewhere else.
    const still = stillShot();
    const { width, height } = still;
    const box: Box = [40, 60, 240, 50];
    const inBox = maskOf(width, height, [box]);
    const letters = maskOf(
      width,
      height,
      [0, 1, 2, 3, 4, 5].map((n): Box => [60 + n * 35, 74, 6, 22]),
    );
    const center = 4;
    const pictureAt = (k: number, p: number, c: number) => {
      if (!inBox[p]) return still.data[p * 3 + c] as number;
      const x = Math.min(width - 1, (p % width) + 6 * k);
      return still.data[(Math.floor(p / width) * width + x) * 3 + c] as number;
    };
    const noise = seededNoise(11, 4);
    const window: MaskedFrame[] = Array.from({ length: 9 }, (_, k) => {
      const data = Uint8Array.from(still.data, (_, i) => pictureAt(k, Math.floor(i / 3), i % 3));
      for (let p = 0; p < inBox.length; p += 1) {
        if (!inBox[p]) continue;
        for (let c = 0; c < 3; c += 1) {
          data[p * 3 + c] = letters[p] ? 245 : Math.max(0, Math.min(255, pictureAt(k, p, c) + noise()));
        }
      }
      const behind = Uint8Array.from(inBox, (value, p) => (value && !letters[p] ? 255 : 0));
      return { frame: { width, height, data }, mask: inBox, behind, textOnly: letters };
    });
    const truth = {
      width,
      height,
      data: Uint8Array.from(still.data, (_, i) => pictureAt(center, Math.floor(i / 3), i % 3)),
    };
    const result = await fillFrame(window, center, undefined, { windowRadius: 4 });
    const boxPsnr = psnrInMask(result.frame, truth, inBox);
    const letterPsnr = psnrInMask(result.frame, truth, letters);
    console.info(
      `see-through box over a moving subject: box ${boxPsnr.toFixed(1)} dB, letters ${letterPsnr.toFixed(1)} dB`,
    );
    // Borrowing from the neighbours, as the fill did before it checked them against this frame's own
    // restoration, scores 15.8 dB in the box (17.4 on the letters); now 27.3 (18.4 on the letters,
    // inpainted from the restored picture around them: a fractal's detail does not carry into a hole).
    expect(boxPsnr).toBeGreaterThanOrEqual(25);
    expectOnlyMaskedChanged((window[center] as MaskedFrame).frame, result.frame, inBox);
  });
});

describe("frames far from the one filled", () => {
  it("fills a caption over a slow pan from frames up to 16 away, with the motion composed over all of them", async () => {
    const width = 640;
    const height = 360;
    // 2 px per frame: a 56 px caption hides pixels that only frames 3 to 14 away show.
    const slow = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*50':y=200", width, height, 33);
    const mask = maskOf(width, height, [[300, 200, 56, 24]]);
    const window = slow.map((frame, index) => ({ ...withText(frame, mask), index }));
    const center = 16;
    const fillWith = (windowRadius: number) => {
      const chain = new MotionChain();
      return fillFrame(window, center, undefined, {
        windowRadius,
        motion: (to, roi) => chain.between(window, center, to, roi),
      });
    };
    const near = await fillWith(2);
    const far = await fillWith(16);
    expectFartherFillsAll(
      { near, far, input: (window[center] as MaskedFrame).frame, truth: slow[center] as RgbFrame, mask },
      "slow pan: ±2 frames, ±16 frames",
    );
  });

  it("takes out a motion error of a fraction of a pixel, as composing many steps leaves", async () => {
    const width = 640;
    const height = 360;
    const slow = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*50':y=200", width, height, 33);
    const mask = maskOf(width, height, [[300, 200, 56, 24]]);
    const window = slow.map((frame) => withText(frame, mask));
    const center = 16;
    // The true motion is 2 px per frame to the left; this one is 0.6 px right and 0.5 px down of it.
    const drifted = async (to: number): Promise<Homography> => [
      1,
      0,
      2 * (center - to) + 0.6,
      0,
      1,
      0.5,
      0,
      0,
      1,
    ];
    const result = await fillFrame(window, center, undefined, { windowRadius: 16, motion: drifted });
    const psnr = psnrInMask(result.frame, slow[center] as RgbFrame, mask);
    console.info(`slow pan with a drifted motion: ${psnr.toFixed(1)} dB`);
    expect(result.unseen).toBe(0);
    expect(psnr).toBeGreaterThanOrEqual(35);
  });
});

describe("pictures without corners", () => {
  it("follows slowly panning colour bars by their edges, so the bars under a wide caption stay in place", async () => {
    const width = 640;
    const height = 360;
    // About 1.8 px per frame to the left over sharp vertical bars: no corners in the caption's rows.
    const bars = lavfiFrames(
      "smptehdbars=size=1920x1080:rate=25",
      "crop=640:360:x='200+t*45':y=100",
      width,
      height,
      40,
    );
    const mask = maskOf(width, height, [[60, 120, 520, 48]]);
    const window = bars.map((frame) => withText(frame, mask));
    const results = await fillSequence(window, 0, 39, 2);
    const last = psnrInMask((results[39] as FillResult).frame, bars[39] as RgbFrame, mask);
    console.info(`bars pan: frame 39 ${last.toFixed(1)} dB inside the caption`);
    // Taken as still, the old bar edges stay put under the caption while the picture moves 70 px.
    expect(last).toBeGreaterThanOrEqual(27);
  });
});

describe("light", () => {
  it("brings borrowed pixels to the light of a frame whose exposure drifted, all across the hole, before any seam blend", async () => {
    const width = 640;
    const height = 360;
    const clean = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*200':y=200", width, height, 9);
    const mask = maskOf(width, height, captionBoxes(250, 290, 56, 28, 6));
    // The centre frame is 10 levels darker than its neighbours, as after an exposure change.
    const truth = {
      ...(clean[4] as RgbFrame),
      data: (clean[4] as RgbFrame).data.map((v) => Math.max(0, v - 10)),
    };
    const window = clean.map((frame, k) => withText(k === 4 ? truth : frame, mask));
    const error = async (fuse: boolean) => {
      const result = await fillFrame(window, 4, undefined, { windowRadius: 4, fuse });
      expectOnlyMaskedChanged((window[4] as MaskedFrame).frame, result.frame, mask);
      return meanAbsDiffInMask(result.frame, truth, mask);
    };
    const copied = await error(false);
    const fused = await error(true);
    console.info(`exposure drift: error in the hole ${copied.toFixed(1)} copied, ${fused.toFixed(1)} fused`);
    // Copied as the neighbours show it, the hole would be 10 levels off (the seam blend took out two thirds).
    expect(copied).toBeLessThan(2);
    expect(fused).toBeLessThan(2);
  });

  it("follows a ramp of light across the picture in a frame a second away, so no shape of the hole shows", async () => {
    const width = 640;
    const height = 360;
    const [still] = lavfiFrames(MANDELBROT, "crop=640:360:x=400:y=80", width, height, 1) as [RgbFrame];
    const mask = maskOf(width, height, [[120, 160, 400, 40]]);
    // A still shot under a caption that leaves 24 frames on, where the picture is lit 12 levels
    // brighter on its left than in the middle and 12 darker on its right (a vignette, a grade).
    const ramp = (x: number) => Math.round(((width / 2 - x) * 12) / (width / 2));
    const later = Uint8Array.from(still.data, (value, at) =>
      Math.max(0, Math.min(255, value + ramp(Math.floor(at / 3) % width))),
    );
    const window = [
      ...Array.from({ length: 24 }, () => withText(still, mask)),
      { frame: { ...still, data: later }, mask: new Uint8Array(width * height) },
    ];
    const result = await fillFrame(window, 0, undefined, { windowRadius: 24, fuse: false });
    expectOnlyMaskedChanged((window[0] as MaskedFrame).frame, result.frame, mask);
    const error = meanAbsDiffInMask(result.frame, still, mask);
    console.info(`light ramp 24 frames on: error in the hole ${error.toFixed(2)} levels`);
    // With one light for the whole hole, its ends would stay 7 levels off, 3.3 on average.
    expect(error).toBeLessThan(1.5);
  });
});

describe("spatial fill", () => {
  const width = 640;
  const height = 360;
  const [still] = lavfiFrames(MANDELBROT, "crop=640:360:x=400:y=80", width, height, 1) as [RgbFrame];
  const mask = maskOf(width, height, captionBoxes(200, 300, 240, 30, 9));

  it("inpaints what no frame shows, clearly better than the mean colour, with no holes", async () => {
    const input = withText(still, mask);
    // A static shot with a static caption: the neighbours never show what is under it.
    const window = [input, input, input, input, input];
    const result = await fillFrame(window, 2);
    const filled = psnrInMask(result.frame, still, mask);
    const mean = psnrInMask(meanColourFill(input.frame, mask), still, mask);
    const ns = psnrInMask(await inpaintSpatial(input.frame, mask, { method: "ns" }), still, mask);
    console.info(
      `static: spatial ${filled.toFixed(1)} dB, NS ${ns.toFixed(1)} dB, mean colour ${mean.toFixed(1)} dB`,
    );
    expect(result.unseen).toBe(maskedCount(mask));
    expect(filled).toBeGreaterThan(mean + 5);
    // No holes and no trace of the text's own colours.
    expect(outOfRange(result.frame, mask)).toBe(0);
    expect(textColoured(result.frame, mask)).toBe(0);
    expect(textColoured(input.frame, mask)).toBe(maskedCount(mask));
    expectOnlyMaskedChanged(input.frame, result.frame, mask);
  });

  it("fills the inside of a wide band no frame shows from farther around than Telea's 5 px", async () => {
    // A solid ticker band 54 px tall across the whole frame, over a still shot.
    const band = maskOf(width, height, [[0, 250, width, 54]]);
    const input = withText(still, band);
    const result = await fillFrame([input, input, input], 1);
    const filled = psnrInMask(result.frame, still, band);
    const telea = psnrInMask(await inpaintSpatial(input.frame, band), still, band);
    console.info(`wide band: ${filled.toFixed(2)} dB, Telea at 5 px ${telea.toFixed(2)} dB`);
    expect(result.unseen).toBe(maskedCount(band));
    expect(filled).toBeGreaterThan(telea + 0.2);
    expect(outOfRange(result.frame, band)).toBe(0);
    expectOnlyMaskedChanged(input.frame, result.frame, band);
  });

  it("meets the picture the margin keeps around the letters, with no step where the two meet", async () => {
    const text = maskOf(width, height, captionBoxes(200, 300, 240, 30, 9));
    const grown = dilate(text, width, height, 4);
    const margin = Uint8Array.from(grown, (value, p) => (value && !text[p] ? 1 : 0));
    // A bright edge of the subject runs around the letters, just where the margin lies: the fill
    // must grow from it (it stays on screen), not from the darker picture past it.
    const picture = Uint8Array.from(still.data);
    for (let p = 0; p < margin.length; p += 1) if (margin[p]) picture.fill(230, p * 3, p * 3 + 3);
    const { frame } = withText({ ...still, data: picture }, text);
    const mask = Uint8Array.from(grown, (value, p) => (text[p] ? 255 : value ? MARGIN_PIXEL : 0));
    const input = { frame, mask };
    const result = await fillFrame([input, input, input], 1);
    // The step across the letters' edge: each text pixel beside the margin against the margin pixel.
    let step = 0;
    let pairs = 0;
    for (let p = 0; p < text.length; p += 1) {
      if (!text[p]) continue;
      for (const q of [p - 1, p + 1, p - width, p + width]) {
        if (!margin[q]) continue;
        for (let c = 0; c < 3; c += 1) step += Math.abs((result.frame.data[p * 3 + c] as number) - 230);
        pairs += 3;
      }
    }
    console.info(`step at the margin: ${(step / pairs).toFixed(1)} levels`);
    expect(step / pairs).toBeLessThan(20);
    expectOnlyMaskedChanged(frame, result.frame, text);
  });

  it("inpaintSpatial changes only masked pixels, with either method", async () => {
    const input = withText(still, mask).frame;
    for (const method of ["telea", "ns"] as const) {
      expectOnlyMaskedChanged(input, await inpaintSpatial(input, mask, { method, radius: 3 }), mask);
    }
  });
});

describe("stability", () => {
  const width = 640;
  const height = 360;
  const [still] = lavfiFrames(MANDELBROT, "crop=640:360:x=400:y=80", width, height, 1) as [RgbFrame];

  it("keeps the fill of a static shot steady from frame to frame despite sensor noise", async () => {
    const random = seededRandom(7);
    const mask = maskOf(width, height, captionBoxes(200, 300, 240, 30, 9));
    const window = Array.from({ length: 10 }, () => withText(withNoise(still, 4, random), mask));

    const steady = await fillSequence(window, 0, 9, 3);
    const independent = await Promise.all(
      window.map((_, k) => fillFrame(window, k, undefined, { windowRadius: 3 })),
    );
    const flicker = (results: FillResult[]) => {
      let total = 0;
      for (let k = 1; k < results.length; k += 1) {
        total += meanAbsDiffInMask(
          (results[k] as FillResult).frame,
          (results[k - 1] as FillResult).frame,
          mask,
        );
      }
      return total / (results.length - 1);
    };
    console.info(
      `static noisy shot: flicker ${flicker(steady).toFixed(2)} with the previous fill, ` +
        `${flicker(independent).toFixed(2)} without`,
    );
    expect(flicker(steady)).toBeLessThan(1);
    steady.slice(1).forEach((result) => {
      expect(result.carried).toBe(maskedCount(mask));
    });
    steady.forEach((result, k) => {
      expectOnlyMaskedChanged((window[k] as MaskedFrame).frame, result.frame, mask);
    });
  });

  it("holds a borrowed fill steady where each frame it borrows from has noise of its own", async () => {
    // Sensor noise on every frame, under a line that slides 6 px a frame, so the frames around show
    // what it hides.
    const random = seededRandom(11);
    const masks = Array.from({ length: 12 }, (_, k) =>
      maskOf(width, height, captionBoxes(150 + 6 * k, 290, 56, 28, 6)),
    );
    const window = masks.map((mask) => withText(withNoise(still, 6, random), mask));
    // How much the fill's error jumps from frame to frame where both frames were filled, in levels.
    const jumps = (results: FillResult[]) => {
      let total = 0;
      let count = 0;
      for (let k = 1; k < results.length; k += 1) {
        const [now, before] = [(results[k] as FillResult).frame, (results[k - 1] as FillResult).frame];
        const [mask, maskBefore] = [masks[3 + k] as Uint8Array, masks[2 + k] as Uint8Array];
        for (let p = 0; p < mask.length; p += 1) {
          if (!mask[p] || !maskBefore[p]) continue;
          for (let c = p * 3; c < p * 3 + 3; c += 1) {
            total += Math.abs((now.data[c] as number) - (before.data[c] as number));
            count += 1;
          }
        }
      }
      return total / count;
    };
    const meanPsnr = (results: FillResult[]) =>
      results.reduce(
        (sum, result, k) => sum + psnrInMask(result.frame, still, masks[3 + k] as Uint8Array),
        0,
      ) / results.length;
    const held = await fillSequence(window, 3, 8, 3);
    const loose = await fillSequence(window, 3, 8, 3, undefined, { steady: false });
    console.info(
      `noisy still shot: the fill jumps ${jumps(held).toFixed(2)} levels a frame held steady, ` +
        `${jumps(loose).toFixed(2)} not; ${meanPsnr(held).toFixed(2)} against ${meanPsnr(loose).toFixed(2)} dB`,
    );
    expect(jumps(held)).toBeLessThan(0.8 * jumps(loose));
    expect(meanPsnr(held)).toBeGreaterThanOrEqual(meanPsnr(loose));
    held.forEach((result, k) => {
      expectOnlyMaskedChanged((window[3 + k] as MaskedFrame).frame, result.frame, masks[3 + k] as Uint8Array);
    });
  });
});

describe("a picture that changes on its own", () => {
  it("does not leave a still patch of what the caption hid when it appeared", async () => {
    const width = 480;
    const height = 272;
    // Conway's life blurred into blobs (the bench's life clip): the camera is still, the picture is not.
    const life = "life=s=120x68:rate=25:seed=7:ratio=0.25:mold=16:life_color=0xe8d890:death_color=0x1c2c44";
    const clean = lavfiFrames(
      life,
      `scale=${width}x${height}:flags=bicubic,gblur=sigma=1.5`,
      width,
      height,
      44,
    );
    const appears = 8;
    const mask = maskOf(width, height, captionBoxes(120, 220, 240, 24, 9));
    const empty = new Uint8Array(width * height);
    const window = clean.map((frame, k) => (k < appears ? { frame, mask: empty } : withText(frame, mask)));
    const results = await fillSequence(window, appears, 43, 20, new MotionChain());
    const last = (results.at(-1) as FillResult).frame;
    const current = psnrInMask(last, clean[43] as RgbFrame, mask);
    // What the hole showed before the caption came, kept standing: what the user must not see.
    const stale = psnrInMask(clean[appears - 1] as RgbFrame, clean[43] as RgbFrame, mask);
    console.info(
      `life, 36 frames under a caption: ${current.toFixed(1)} dB, the old picture ${stale.toFixed(1)} dB`,
    );
    expect(meanAbsDiffInMask(last, clean[appears - 1] as RgbFrame, mask)).toBeGreaterThan(8);
    expect(current).toBeGreaterThan(stale + 1);
    results.forEach((result, k) => {
      expectOnlyMaskedChanged((window[appears + k] as MaskedFrame).frame, result.frame, mask);
    });
  });
});

/** Fixed grain per pixel, 0 to 23: the texture of a wall or a lawn, the same on every frame. */
const grain = (x: number, y: number) => (((x * 73856093) ^ (y * 19349663)) >>> 0) % 24;
const onGreyWall = (g: number) => [120 + g, 120 + g, 120 + g];
const redSubject = (g: number) => [200, 40 + g, 40];

/** A still background with a subject where `onSubject` says, each coloured from the grain. */
function subjectScene(
  width: number,
  height: number,
  onSubject: (x: number, y: number) => boolean,
  background = onGreyWall,
  subject = redSubject,
): RgbFrame {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const g = grain(x, y);
      data.set(onSubject(x, y) ? subject(g) : background(g), (y * width + x) * 3);
    }
  }
  return { width, height, data };
}

describe("a subject moving beside the hole", () => {
  it("does not paste the background a neighbour showed where the subject has moved in", async () => {
    const width = 192;
    const height = 128;
    const hole: Box = [70, 54, 50, 20];
    // A still grey wall, and a red subject (a turning head, a passer-by) at `left`.
    const scene = (left: number) =>
      subjectScene(width, height, (x, y) => x >= left && x < left + 44 && y >= 40 && y < 88);
    const mask = maskOf(width, height, [hole]);
    const empty = new Uint8Array(width * height);
    // The subject walks in from the left: on the frames around, the hole's left part shows the wall.
    const window: MaskedFrame[] = [
      { frame: scene(-20), mask: empty },
      { frame: scene(4), mask: empty },
      withText(scene(50), mask),
      { frame: scene(96), mask: empty },
      { frame: scene(140), mask: empty },
    ];
    const result = await fillFrame(window, 2, undefined, { windowRadius: 2 });
    // Where the subject now stands inside the hole, the fill is the subject's red, not the grey wall.
    let red = 0;
    let pixels = 0;
    for (let y = 58; y < 70; y += 1) {
      for (let x = 74; x < 90; x += 1) {
        const [r, g] = result.frame.data.subarray((y * width + x) * 3, (y * width + x) * 3 + 2);
        if ((r as number) > (g as number) + 60) red += 1;
        pixels += 1;
      }
    }
    expect(red / pixels).toBeGreaterThan(0.8);
    expectOnlyMaskedChanged(window[2]?.frame as RgbFrame, result.frame, mask);
  });

  it("leaves a neighbour out along the subject's own slanted edge, not in squares", async () => {
    const width = 192;
    const height = 96;
    const hole: Box = [16, 40, 160, 16];
    // A red subject whose right edge slants across the caption; in the neighbour it stands 10 px further right.
    const scene = (shift: number): RgbFrame => {
      const data = new Uint8Array(width * height * 3);
      for (let y = 0; y < height; y += 1) {
        for (let x = 0; x < width; x += 1) {
          const onSubject = x < 40 + shift + 2 * y;
          data.set(onSubject ? [200, 40, 40] : [120, 120, 120], (y * width + x) * 3);
        }
      }
      return { width, height, data };
    };
    const mask = maskOf(width, height, [hole]);
    const rect = { x: 0, y: 24, width, height: 48 };
    const work = await cropWork(scene(0), mask, rect);
    const neighbour = fillSource({ frame: scene(10) }, IDENTITY, 1, undefined);
    const changeNear = movingNearHole(work, neighbour) ?? (() => 0);
    const movedNear = (x: number, y: number) => changeNear(x, y) > 1;
    // Where on each row of the hole the neighbour is first left out: judged in 16-pixel squares it
    // was the same column on every row of a square; along the edge it follows the slant.
    const firstLeftOut = new Set<number>();
    for (let y = hole[1]; y < hole[1] + hole[3]; y += 1) {
      for (let x = hole[0]; x < hole[0] + hole[2]; x += 1) {
        if (movedNear(x, y)) {
          firstLeftOut.add(x);
          break;
        }
      }
    }
    expect(firstLeftOut.size).toBeGreaterThanOrEqual(6);
    // And it is left out near the edge (x 120 to 160 across the hole), kept far from it.
    expect(movedNear(140, 48)).toBe(true);
    expect(movedNear(24, 48)).toBe(false);
  });
});

describe("a subject standing behind the middle of a tall caption over a still shot", () => {
  it("does not paste the wall a frame from before the subject came showed there", async () => {
    const width = 384;
    const height = 160;
    // Two caption lines and the gap between them, masked as one: its middle rows are too far from
    // its edges for the picture's change there to be measured, and the subject is a small part of
    // the ring around it.
    const hole: Box = [32, 40, 320, 80];
    const subject = { x0: 180, x1: 204 };
    const scene = (withSubject: boolean) =>
      subjectScene(
        width,
        height,
        (x, y) => withSubject && x >= subject.x0 && x < subject.x1 && y >= 16 && y < 144,
      );
    const mask = maskOf(width, height, [hole]);
    const empty = new Uint8Array(width * height);
    // Only the frame before the caption came on shows the hole, and the subject had not come yet.
    const before = scene(false);
    const window: MaskedFrame[] = [
      { frame: before, mask: empty },
      withText(scene(true), mask),
      withText(scene(true), mask),
      withText(scene(true), mask),
    ];
    const result = await fillFrame(window, 2, undefined, { windowRadius: 2 });
    // In the middle rows, across the subject: how many pixels are the wall as that frame showed it.
    let wall = 0;
    let pixels = 0;
    for (let y = hole[1] + 28; y < hole[1] + 52; y += 1) {
      for (let x = subject.x0 + 4; x < subject.x1 - 4; x += 1) {
        const at = (y * width + x) * 3;
        let off = 0;
        for (let c = 0; c < 3; c += 1)
          off = Math.max(
            off,
            Math.abs((result.frame.data[at + c] as number) - (before.data[at + c] as number)),
          );
        if (off < 12) wall += 1;
        pixels += 1;
      }
    }
    console.info(`subject behind a tall caption: ${wall} of ${pixels} middle pixels the old wall`);
    expect(wall / pixels).toBeLessThan(0.2);
    expectOnlyMaskedChanged(window[2]?.frame as RgbFrame, result.frame, mask);
  });
});

describe("a subject walking away under a caption held over a still shot", () => {
  it("does not carry the subject on where it stood when the caption came on", async () => {
    const width = 192;
    const height = 112;
    const hole: Box = [24, 48, 144, 16];
    // A still green lawn, and a dark subject taller than the caption walking away from the camera:
    // it narrows by 1.6 px a frame about its middle.
    const middle = 96;
    const halfWidth = (k: number) => 22 - 0.8 * k;
    const lawn = (g: number) => [60 + g, 130 + g, 50];
    const darkCoat = (g: number) => [20 + g / 4, 20, 24];
    const scene = (k: number) =>
      subjectScene(
        width,
        height,
        (x, y) => Math.abs(x + 0.5 - middle) < halfWidth(k) && y >= 24 && y < 88,
        lawn,
        darkCoat,
      );
    const appears = 4;
    const last = 22;
    const mask = maskOf(width, height, [hole]);
    const empty = new Uint8Array(width * height);
    const clean = Array.from({ length: last + 1 }, (_, k) => scene(k));
    const window = clean.map((frame, k) => (k < appears ? { frame, mask: empty } : withText(frame, mask)));
    const results = await fillSequence(window, appears, last, 20);
    const output = (results.at(-1) as FillResult).frame;
    // Where the subject stood when the caption came on, and has since left: lawn (or what a spatial
    // fill makes of the lawn around), not the subject's near-black.
    let dark = 0;
    let pixels = 0;
    for (let y = hole[1]; y < hole[1] + hole[3]; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const distance = Math.abs(x + 0.5 - middle);
        if (distance < halfWidth(last) + 4 || distance > halfWidth(appears) - 2) continue;
        if ((output.data[(y * width + x) * 3 + 1] as number) < 70) dark += 1;
        pixels += 1;
      }
    }
    console.info(`subject walked away: ${dark} of ${pixels} pixels of its old place still dark`);
    expect(dark / pixels).toBeLessThan(0.1);
    expectOnlyMaskedChanged(window[last]?.frame as RgbFrame, output, mask);
  });
});

describe("stability over a pan", () => {
  it("eases fresh spatial fills in along the motion, so what no frame shows does not flicker", async () => {
    const width = 640;
    const height = 360;
    // 4 px per frame: under a 200 px band most pixels stay hidden for the whole clip.
    const clean = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*100':y=200", width, height, 12);
    const mask = maskOf(width, height, captionBoxes(220, 290, 200, 36, 8));
    const window = clean.map((frame) => withText(frame, mask));
    const steady = await fillSequence(window, 0, 11, 3);
    const independent = [];
    for (let k = 0; k < 12; k += 1)
      independent.push(await fillFrame(window, k, undefined, { windowRadius: 3 }));
    // Content moves 4 px left per frame: pixel x now was at x + 4 in the frame before.
    const flicker = (results: FillResult[]) => {
      let total = 0;
      let samples = 0;
      for (let k = 1; k < results.length; k += 1) {
        const now = (results[k] as FillResult).frame.data;
        const before = (results[k - 1] as FillResult).frame.data;
        for (let i = 0; i < mask.length; i += 1) {
          if (!mask[i] || (i % width) + 4 >= width) continue;
          for (let c = 0; c < 3; c += 1)
            total += Math.abs((now[i * 3 + c] as number) - (before[(i + 4) * 3 + c] as number));
          samples += 3;
        }
      }
      return total / samples;
    };
    console.info(
      `pan, hidden band: motion-compensated flicker ${flicker(steady).toFixed(2)} with the previous fill, ` +
        `${flicker(independent).toFixed(2)} without`,
    );
    expect(flicker(steady)).toBeLessThan(1);
    expect(flicker(steady)).toBeLessThan(flicker(independent));
    steady.forEach((result, k) => {
      expectOnlyMaskedChanged((window[k] as MaskedFrame).frame, result.frame, mask);
    });
  });
});

describe("easing a fresh spatial fill in over the old one", () => {
  it("keeps the old fill where the picture beside the hole stands, and drops it where a subject moved on its own", async () => {
    const width = 192;
    const height = 112;
    const hole: Box = [30, 48, 130, 16];
    const mask = maskOf(width, height, [hole]);
    // The camera pans 3 px a frame over a grey wall; a red subject at the hole's right end moved 20 px
    // down since the previous frame, on its own.
    const pan = 3;
    const subjectAt = (top: number) => (x: number, y: number) =>
      x >= 130 && x < 170 && y >= top && y < top + 40;
    const current = subjectScene(width, height, subjectAt(36));
    // The previous frame: the same wall and subject `pan` px to the right, the subject 20 px higher.
    const previousFrame = subjectScene(width, height, (x, y) => subjectAt(16)(x - pan, y));
    const wallThen = subjectScene(width + pan, height, () => false);
    for (let y = 0; y < height; y += 1) {
      for (let x = pan; x < width; x += 1) {
        if (subjectAt(16)(x - pan, y)) continue;
        const from = (y * (width + pan) + x - pan) * 3;
        previousFrame.data.set(wallThen.data.subarray(from, from + 3), (y * width + x) * 3);
      }
    }
    // The previous output made up a blue fill for the hole (where it lay then); the fresh fill is black.
    const oldFill = [40, 40, 220];
    const previousMask = new Uint8Array(width * height);
    for (let y = hole[1]; y < hole[1] + hole[3]; y += 1) {
      for (let x = hole[0] + pan; x < hole[0] + hole[2] + pan; x += 1) {
        previousMask[y * width + x] = 255;
        previousFrame.data.set(oldFill, (y * width + x) * 3);
      }
    }
    const previous: PreviousFill = { frame: previousFrame, filledMask: previousMask };
    const motion = homography([1, 0, pan, 0, 1, 0, 0, 0, 1]);
    const work = await cropWork(current, mask, { x: 14, y: 32, width: 164, height: 48 });
    for (const i of work.maskedPixels) work.source[i] = Source.spatial;
    const lined = linedUpPrevious(work, previous, motion, { ringWidth: RING_WIDTH, maxError: 12 });
    expect(lined).toBeDefined();
    carryOver(work, previous, motion, lined, false).settle();
    const blueShare = (x0: number, x1: number) => {
      let total = 0;
      let pixels = 0;
      for (let y = hole[1]; y < hole[1] + hole[3]; y += 1) {
        for (let x = x0; x < x1; x += 1) {
          const i = (y - work.rect.y) * work.rect.width + (x - work.rect.x);
          total += (work.fill[i * 3 + 2] as number) / (oldFill[2] as number);
          pixels += 1;
        }
      }
      return total / pixels;
    };
    const [still, moving] = [blueShare(hole[0], hole[0] + 40), blueShare(140, hole[0] + hole[2])];
    console.info(
      `old fill kept: ${still.toFixed(2)} beside the still wall, ${moving.toFixed(2)} beside the subject`,
    );
    expect(still).toBeGreaterThan(0.65);
    expect(moving).toBeLessThan(0.1);
  });
});

describe("native resolution", () => {
  it("works on a crop around a small mask of a 1080p frame and touches only masked pixels", async () => {
    const width = 1920;
    const height = 1080;
    const frames = lavfiFrames("testsrc2=size=1920x1080:rate=25", "null", width, height, 3);
    const mask = maskOf(width, height, [[860, 1010, 200, 40]]);
    const window = frames.map((frame) => withText(frame, mask));
    const result = await fillFrame(window, 1, undefined, { margin: 16 });

    expect(result.regions).toEqual([{ x: 844, y: 994, width: 232, height: 72 }]);
    expectOnlyMaskedChanged((window[1] as MaskedFrame).frame, result.frame, mask);
  });

  it("keeps separate parts of the mask in separate crops", async () => {
    const mask = maskOf(1920, 1080, [
      [100, 40, 120, 30],
      [860, 1010, 200, 40],
      [1000, 1020, 30, 10],
    ]);
    expect(await fillRegions(mask, 1920, 1080, 8)).toEqual([
      { x: 92, y: 32, width: 136, height: 46 },
      { x: 852, y: 1002, width: 216, height: 56 },
    ]);
  });

  it("finds the mask's extent wherever its set pixels lie, on masks of any length and offset", () => {
    const bruteExtent = (mask: Uint8Array, width: number) => {
      const set = [...mask.keys()].filter((i) => mask[i]);
      if (set.length === 0) return null;
      const xs = set.map((i) => i % width);
      const ys = set.map((i) => Math.floor(i / width));
      const [x, y] = [Math.min(...xs), Math.min(...ys)];
      return { x, y, width: Math.max(...xs) - x + 1, height: Math.max(...ys) - y + 1 };
    };
    // 7x5 is not a whole number of 4-byte words; the subarray starts one byte into its buffer.
    for (const [width, height, offset] of [
      [8, 6, 0],
      [7, 5, 0],
      [7, 5, 1],
    ] as const) {
      for (const pixels of [[], [0], [width * height - 1], [3, width * 2 + 1], [width + 6, width * 3 + 2]]) {
        const mask = new Uint8Array(width * height + offset).subarray(offset);
        for (const pixel of pixels) if (pixel < mask.length) mask[pixel] = 255;
        expect(maskExtent(mask, width, height)).toEqual(bruteExtent(mask, width));
      }
    }
  });
});

describe("the block test of the far-frame search", () => {
  it("calls a box masked only when every pixel of it inside the frame is, and a box off the frame masked", () => {
    type Bounds = [left: number, top: number, right: number, bottom: number];
    // 10x7: tiles at the right and bottom edges are cut short by the frame.
    const [width, height] = [10, 7];
    const everyPixelMasked = (mask: Uint8Array, box: Bounds) => {
      for (let y = Math.max(0, box[1]); y <= Math.min(height - 1, box[3]); y += 1) {
        for (let x = Math.max(0, box[0]); x <= Math.min(width - 1, box[2]); x += 1) {
          if (!mask[y * width + x]) return false;
        }
      }
      return true;
    };
    const boxes: Bounds[] = [];
    for (const left of [-3, 0, 2, 4, 8])
      for (const top of [-2, 0, 3, 4, 6]) boxes.push([left, top, left + 3, top + 2]);
    boxes.push([-9, -9, -1, -1], [10, 0, 14, 6], [0, 0, 9, 6]);
    let masked = 0;
    for (let seed = 0; seed < 40; seed += 1) {
      // Masks from all set to mostly set: one clear pixel must make every box over it unmasked.
      const mask = new Uint8Array(width * height).fill(255);
      for (let k = 0; k < seed % 4; k += 1) mask[(seed * 17 + k * 29) % mask.length] = 0;
      const tiles = fullTiles(mask, width, height);
      for (const box of boxes) {
        const verdict = boxIsMasked(tiles, ...box);
        if (verdict) masked += 1;
        if (verdict) expect(everyPixelMasked(mask, box), `box ${box} on mask ${seed}`).toBe(true);
      }
      expect(boxIsMasked(tiles, -9, -9, -1, -1)).toBe(true);
      if (seed % 4 === 0) expect(boxIsMasked(tiles, 0, 0, 9, 6)).toBe(true);
    }
    expect(masked).toBeGreaterThan(boxes.length * 10);
  });

  it("summarises a mask buffer anew once it is forgotten, as when a pool hands it out for another frame", () => {
    const width = 16;
    const height = 8;
    const buffer = new Uint8Array(width * height).fill(255);
    expect(boxIsMasked(fullTiles(buffer, width, height), 0, 0, 3, 3)).toBe(true);
    // The buffer comes back as the mask of a frame whose text is elsewhere.
    buffer.fill(0);
    forgetTiles(buffer);
    expect(boxIsMasked(fullTiles(buffer, width, height), 0, 0, 3, 3)).toBe(false);
  });
});

describe("speed", () => {
  it("fills a 1280x720 frame with a caption-sized mask", async () => {
    const width = 1280;
    const height = 720;
    const wide = "mandelbrot=size=1920x720:rate=25:start_scale=3:end_scale=3";
    const clean = lavfiFrames(wide, "crop=1280:720:x='t*100':y=0", width, height, 9);
    const mask = maskOf(width, height, captionBoxes(320, 620, 640, 56, 24));
    const window = clean.map((frame) => withText(frame, mask));
    // The first call also loads OpenCV.
    await fillFrame(window, 4, undefined, { windowRadius: 3 });
    const started = performance.now();
    const results = [];
    for (let k = 3; k < 6; k += 1) results.push(await fillFrame(window, k, undefined, { windowRadius: 3 }));
    const perFrame = (performance.now() - started) / results.length;
    console.info(
      `1280x720, ${maskedCount(mask)} masked pixels, window ±3: ${perFrame.toFixed(0)} ms per frame`,
    );
    results.forEach((result, k) => {
      expectOnlyMaskedChanged((window[k + 3] as MaskedFrame).frame, result.frame, mask);
    });
  });
});

describe("camera motion beside a subject that moves on its own", () => {
  /**
   * A lit wall with a few marks, panned 1 px a frame, and a richly textured subject beside it that
   * stretches and leans sideways and slides down (no similarity does that, a homography does): the subject
   * holds most corners, and the homography fitted to them moved the wall by the subject's stretch
   * (real-subject's lamp behind "YES").
   */
  function scene(width: number, height: number, frameNumbers: number[], pan = 1): RgbFrame[] {
    return frameNumbers.map((k) => {
      const data = new Uint8Array(width * height * 3);
      const stretch = 1 + 0.05 * k;
      for (let y = 0; y < height; y += 1) {
        for (let x = 0; x < width; x += 1) {
          const wallX = x + pan * k;
          const mark = wallX % 40 < 5 && y % 36 < 5;
          const wall = mark ? 40 : 150 + 60 * Math.sin(wallX / 37) + 0.2 * y;
          const v = y - 100 - 3 * k;
          const u = (x - 230) / stretch - 0.08 * k * v;
          const onSubject = Math.abs(u) < 60 && Math.abs(v) < 70;
          const texture = 128 + 90 * Math.sin(u * 0.9) * Math.cos(v * 0.7) + 30 * Math.sin((u + v) * 2.1);
          const value = onSubject ? texture : wall;
          data.fill(
            Math.max(0, Math.min(255, Math.round(value))),
            (y * width + x) * 3,
            (y * width + x) * 3 + 3,
          );
        }
      }
      return { width, height, data };
    });
  }

  it("fills stems over the wall from the frames that show it, the motion composed as the engine does", async () => {
    const width = 320;
    const height = 240;
    const frames = scene(
      width,
      height,
      Array.from({ length: 17 }, (_, k) => k),
    );
    // 4 px stems over the wall: the 1 px pan shows what each hides a few frames away. The motion is
    // measured around them, where the subject holds most of the corners.
    const mask = maskOf(width, height, [
      [20, 150, 4, 40],
      [44, 150, 4, 40],
      [68, 150, 4, 40],
      [92, 150, 4, 40],
    ]);
    const window = frames.map((frame, index) => ({ ...withText(frame, mask), index }));
    const center = 8;
    const chain = new MotionChain();
    const result = await fillFrame(window, center, undefined, {
      windowRadius: 8,
      motion: (to, roi) => chain.between(window, center, to, roi),
    });
    const psnr = psnrInMask(result.frame, frames[center] as RgbFrame, mask);
    console.info(`stems over a still wall beside a leaning subject: ${psnr.toFixed(1)} dB`);
    expect(result.unseen).toBe(0);
    expect(psnr).toBeGreaterThan(40);
    expectOnlyMaskedChanged((window[center] as MaskedFrame).frame, result.frame, mask);
  });

  /** The motion measured from `from` to `to`, with stems over the wall, far from the subject, as the text. */
  async function motionBesideStems(from: RgbFrame, to: RgbFrame): Promise<Homography> {
    const { width, height } = from;
    const mask = maskOf(width, height, [
      [20, 150, 4, 40],
      [44, 150, 4, 40],
      [68, 150, 4, 40],
    ]);
    const estimator = await MotionEstimator.create(from, mask, { x: 0, y: 0, width, height });
    const motion = estimator.track(to, mask);
    estimator.release();
    expect(motion).toBeDefined();
    return motion as Homography;
  }

  /** Every point of the wall beside the stems lands `dx` to its right, within `tolerance` pixels. */
  function expectWallMovedBy(motion: Homography, dx: number, tolerance: number): void {
    const lands = { x: 0, y: 0 };
    for (const [x, y] of [
      [10, 140],
      [60, 200],
      [110, 160],
      [20, 20],
    ] as const) {
      project(motion, x, y, lands);
      expect(Math.abs(lands.x - (x + dx))).toBeLessThan(tolerance);
      expect(Math.abs(lands.y - y)).toBeLessThan(tolerance);
    }
  }

  it("measures the camera's motion on the wall, not the subject's", async () => {
    const [from, to] = scene(320, 240, [8, 9]) as [RgbFrame, RgbFrame];
    // The wall pans 1 px left a frame.
    expectWallMovedBy(await motionBesideStems(from, to), -1, 0.3);
  });

  it("measures no motion when the camera stands still, whatever the subject beside the text does", async () => {
    const width = 320;
    const height = 240;
    // A still wall with a few marks, and a richly textured subject sliding across it, 3 px right and
    // 2 px down a frame: the subject holds most of the corners, so both fits follow it.
    const [from, to] = [0, 1].map((k) => {
      const data = new Uint8Array(width * height * 3);
      for (let y = 0; y < height; y += 1) {
        for (let x = 0; x < width; x += 1) {
          const mark = x % 40 < 5 && y % 36 < 5;
          const u = x - 200 - 3 * k;
          const v = y - 90 - 2 * k;
          const onSubject = Math.abs(u) < 70 && Math.abs(v) < 70;
          const texture = 128 + 90 * Math.sin(u * 0.9) * Math.cos(v * 0.7) + 30 * Math.sin((u + v) * 2.1);
          const value = onSubject ? texture : mark ? 40 : 150 + 60 * Math.sin(x / 37) + 0.2 * y;
          data.fill(
            Math.max(0, Math.min(255, Math.round(value))),
            (y * width + x) * 3,
            (y * width + x) * 3 + 3,
          );
        }
      }
      return { width, height, data };
    }) as [RgbFrame, RgbFrame];
    // The wall behind the stems is borrowed from the same place.
    expectWallMovedBy(await motionBesideStems(from, to), 0, 0.05);
  });
});

describe("frames from before the window", () => {
  it("fills a caption held longer than the window from a frame kept from before it came on, lined up over every step since", async () => {
    const width = 640;
    const height = 360;
    // 2 px per frame: a 120 px caption hides pixels that the ±4-frame window around frame 36 never shows.
    const slow = lavfiFrames(MANDELBROT, "crop=640:360:x='300+t*50':y=200", width, height, 41);
    const mask = maskOf(width, height, [[260, 200, 120, 24]]);
    const frames = slow.map((frame, index) =>
      index < 6
        ? { frame, mask: new Uint8Array(width * height), index }
        : { ...withText(frame, mask), index },
    );
    const region = motionRegion(mask, width, height) as SizedRect;
    const chain = new MotionChain();
    await chain.measureSteps(frames, region);
    // Frame 5, the last without the caption, left the window and was kept; the window is now 32..40.
    chain.follow(5);
    chain.forget(32);
    const window = frames.slice(32);
    const center = 4;
    const motion = (to: number, roi: SizedRect) => chain.between(window, center, to, roi);
    const kept = keptSources([frames[5] as (typeof frames)[number]], async (frame) => {
      const towards = await chain.towardsFollowed(window, center, frame.index, region);
      return towards && fillSource({ ...frame, side: -1 }, towards, 36 - frame.index, frame.mask);
    });
    const near = await fillFrame(window, center, undefined, { windowRadius: 4, motion });
    const far = await fillFrame(window, center, undefined, { windowRadius: 4, motion }, kept);
    expectFartherFillsAll(
      { near, far, input: (window[center] as MaskedFrame).frame, truth: slow[36] as RgbFrame, mask },
      "caption held past the window: window only, with frame 5",
    );
  });

  it("lines up the frame before a caption came on with the first frame that has it", async () => {
    const width = 320;
    const height = 180;
    // A softened deep zoom, its detail in a few places, panning slowly; the caption comes on at frame 5.
    const source =
      "mandelbrot=s=1280x720:start_x=-0.7436438870:start_y=0.1318259042:start_scale=0.03:end_pts=1" +
      ":maxiter=300:outer=normalized_iteration_count:inner=mincol";
    const pan =
      "gblur=sigma=1,trim=end_frame=1,loop=loop=-1:size=1,settb=1/25,setpts=N,fps=25,crop=320:180:x='60+t*4':y=200";
    const caption =
      "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:text=SALE 50% OFF:expansion=none" +
      ":fontsize=30:fontcolor=white:borderw=3:bordercolor=black:x=(w-text_w)/2:y=h-text_h-20:enable='gte(n,5)'";
    const [before, after] = lavfiFrames(source, `${pan},${caption}`, width, height, 6).slice(4) as [
      RgbFrame,
      RgbFrame,
    ];
    // The caption's pixels: what changed by far more than a fifth of a pixel's pan does, grown as the
    // engine grows its masks.
    const drawn = Uint8Array.from({ length: width * height }, (_, p) =>
      [0, 1, 2].some(
        (c) => Math.abs((after.data[p * 3 + c] as number) - (before.data[p * 3 + c] as number)) > 40,
      )
        ? 255
        : 0,
    );
    const frames = [
      { frame: before, mask: new Uint8Array(width * height), index: 4 },
      { frame: after, mask: dilate(drawn, width, height, 3), index: 5 },
    ];
    const motion = await new MotionChain().between(frames, 0, 1, { x: 0, y: 0, width, height });
    expect(motion?.[2]).toBeCloseTo(0, 0);
    expect(motion?.[5]).toBeCloseTo(0, 0);
  });

  it("does not line a kept frame up across a step the chain could not measure (a cut)", async () => {
    const width = 320;
    const height = 180;
    const mask = maskOf(width, height, [[120, 80, 60, 20]]);
    const region = motionRegion(mask, width, height) as SizedRect;
    const pan = lavfiFrames(MANDELBROT, "crop=320:180:x='300+t*50':y=200", width, height, 8);
    const grey = lavfiFrames("color=c=gray:size=320x180:rate=25", "null", width, height, 4);
    /** The motion from frame 7 to frame 1, which was followed while frames 1 to 5 left the window. */
    const followed = async (pictures: RgbFrame[]) => {
      const frames = pictures.map((frame, index) => ({ ...withText(frame, mask), index }));
      const chain = new MotionChain();
      await chain.measureSteps(frames, region);
      chain.follow(1);
      chain.forget(6);
      return chain.towardsFollowed(frames.slice(6), 1, 1, region);
    };
    // From frame 4 a flat grey shot, where no motion can be measured: frame 1 is not lined up.
    expect(await followed([...pan.slice(0, 4), ...grey])).toBeUndefined();
    // The pan all along: six steps of 2 px.
    expect((await followed(pan))?.[2]).toBeCloseTo(12, 0);
  });
});
