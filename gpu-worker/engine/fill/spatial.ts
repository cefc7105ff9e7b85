import { type CropWork, distanceTo, Source } from "./crop";
import { fillInside, HALF_RADIUS, type HoledPicture, halfSize, THICK } from "./deep-holes";
import { loadOpenCv, release } from "./opencv";
import { fillRegions, framePixel } from "./regions";
import type { RgbFrame } from "./types";

export type InpaintMethod = "telea" | "ns";

export interface InpaintOptions {
  /** Neighbourhood radius in pixels that each filled pixel is estimated from. */
  radius?: number;
  method?: InpaintMethod;
}

const DEFAULT_RADIUS = 5;

/**
 * Inpaints the masked pixels from their surroundings alone (OpenCV's Telea fast marching or
 * Navier-Stokes), each connected part on its own crop at native resolution. Unmasked pixels are
 * returned unchanged.
 */
export async function inpaintSpatial(
  frame: RgbFrame,
  mask: Uint8Array,
  options: InpaintOptions = {},
): Promise<RgbFrame> {
  const radius = options.radius ?? DEFAULT_RADIUS;
  const out = { width: frame.width, height: frame.height, data: new Uint8Array(frame.data) };
  for (const rect of await fillRegions(mask, frame.width, frame.height, radius + 1)) {
    const pixels = new Uint8Array(rect.width * rect.height * 3);
    const holes = new Uint8Array(rect.width * rect.height);
    for (let y = 0; y < rect.height; y += 1) {
      const start = (rect.y + y) * frame.width + rect.x;
      pixels.set(frame.data.subarray(start * 3, (start + rect.width) * 3), y * rect.width * 3);
      holes.set(mask.subarray(start, start + rect.width), y * rect.width);
    }
    const filled = await inpaintPixels(pixels, holes, rect.width, rect.height, options);
    for (let i = 0; i < holes.length; i += 1) {
      if (!holes[i]) continue;
      const at = framePixel(rect, frame.width, i) * 3;
      out.data.set(filled.subarray(i * 3, i * 3 + 3), at);
    }
  }
  return out;
}

/**
 * Fills the crop's masked pixels that no other frame showed, using everything already filled as
 * context. The margin counts as known, as the frame has it: it is written back so, and a fill grown
 * from past it would meet it with a step.
 */
export async function inpaintUnfilled(work: CropWork, options: InpaintOptions): Promise<number> {
  const { rect, frame, masked, margin, inside, source, fill } = work;
  // Clamped: fill colours are fractional and must round, not truncate.
  const pixels = new Uint8ClampedArray(masked.length * 3);
  const holes = new Uint8Array(masked.length);
  let unfilled = 0;
  // The farthest an unfilled pixel lies from the unmasked picture: no nearer to what is known.
  let deepest = 0;
  for (let i = 0; i < masked.length; i += 1) {
    const text = masked[i] && !margin[i];
    if (text && source[i] === Source.none) {
      holes[i] = 255;
      unfilled += 1;
      deepest = Math.max(deepest, inside[i] as number);
    } else if (text) {
      for (let c = 0; c < 3; c += 1) pixels[i * 3 + c] = fill[i * 3 + c] as number;
    } else {
      // The frame's own picture, the margin's too whatever another frame showed there.
      const at = framePixel(rect, frame.width, i) * 3;
      pixels.set(frame.data.subarray(at, at + 3), i * 3);
      if (!margin[i] || source[i] !== Source.none) continue;
      // A margin pixel no frame showed: the later steps read a fill there, the frame's own.
      for (let c = 0; c < 3; c += 1) fill[i * 3 + c] = frame.data[at + c] as number;
      source[i] = Source.spatial;
    }
  }
  if (unfilled === 0) return 0;
  // inpaintThick marks the inside it fills as known: it gets a copy of the holes.
  const filled =
    deepest >= THICK
      ? await inpaintThick({ pixels, holes: holes.slice(), width: rect.width, height: rect.height }, options)
      : await inpaintPixels(pixels, holes, rect.width, rect.height, options);
  for (let i = 0; i < holes.length; i += 1) {
    if (!holes[i]) continue;
    for (let c = 0; c < 3; c += 1) fill[i * 3 + c] = filled[i * 3 + c] as number;
    source[i] = Source.spatial;
  }
  return unfilled;
}

/**
 * Inpaints `picture`'s holes; a thick hole (see deep-holes.ts) has its inside filled first at half
 * resolution, from what the half-size picture knows, and the rest at full. `picture` is changed.
 * The caller skips it where no hole pixel lies THICK from the unmasked picture: the distance
 * transform then costs a crop for nothing.
 */
async function inpaintThick(picture: HoledPicture, options: InpaintOptions): Promise<Uint8Array> {
  const { holes, width, height } = picture;
  const { cv } = await loadOpenCv();
  // Each pixel's distance to the nearest known one (0 for those).
  const depth = distanceTo(cv, holes, { x: 0, y: 0, width, height }, 0);
  if (depth.some((distance) => distance >= THICK)) {
    const half = halfSize(picture);
    const filledHalf = await inpaintPixels(half.pixels, half.holes, half.width, half.height, {
      ...options,
      radius: HALF_RADIUS,
    });
    fillInside(picture, depth, await resized(filledHalf, half, picture));
  }
  return inpaintPixels(picture.pixels, picture.holes, width, height, options);
}

/** An RGB24 image of `from`'s size brought to `to`'s, bilinearly (OpenCV's resize). */
async function resized(
  pixels: Uint8Array,
  from: { width: number; height: number },
  to: { width: number; height: number },
): Promise<Uint8Array> {
  const { cv } = await loadOpenCv();
  const source = new cv.Mat(from.height, from.width, cv.CV_8UC3);
  const result = new cv.Mat();
  try {
    source.data.set(pixels);
    cv.resize(source, result, new cv.Size(to.width, to.height), 0, 0, cv.INTER_LINEAR);
    return new Uint8Array(result.data);
  } finally {
    release(source, result);
  }
}

/** OpenCV inpainting of an RGB24 image where `holes` is non-zero. */
async function inpaintPixels(
  pixels: ArrayLike<number>,
  holes: Uint8Array,
  width: number,
  height: number,
  options: InpaintOptions,
): Promise<Uint8Array> {
  const { cv } = await loadOpenCv();
  const image = new cv.Mat(height, width, cv.CV_8UC3);
  const holeMat = new cv.Mat(height, width, cv.CV_8UC1);
  const result = new cv.Mat();
  try {
    image.data.set(pixels);
    holeMat.data.set(holes);
    const flags = options.method === "ns" ? cv.INPAINT_NS : cv.INPAINT_TELEA;
    cv.inpaint(image, holeMat, result, options.radius ?? DEFAULT_RADIUS, flags);
    return new Uint8Array(result.data);
  } finally {
    release(image, holeMat, result);
  }
}
