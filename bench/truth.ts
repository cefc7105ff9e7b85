import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ClipSpec } from "./clips";
import { isOn, spanFrames, type Zone } from "./overlays";
import { rgbFrames } from "./raw-frames";

/** The files of a generated clip, in its cache folder. */
export function clipFiles(dir: string) {
  return {
    spec: path.join(dir, "clip.json"),
    truth: path.join(dir, "truth.json"),
    /** Lossless: the footage without overlays (the truth), with them, and without the scene's sign. */
    clean: path.join(dir, "clean.mkv"),
    overlaid: path.join(dir, "overlaid.mkv"),
    plain: path.join(dir, "plain.mkv"),
    /** What the methods are given: the overlaid footage as an ad would arrive (H.264 CRF 16, AAC). */
    input: path.join(dir, "input.mp4"),
    /** The clean footage encoded as the input is, with its audio: what the engine costs with no text. */
    textFreeInput: path.join(dir, "input-no-text.mp4"),
    /** The input's first second: what the warm engine cleans before it is timed. */
    warmUpInput: path.join(dir, "input-warm-up.mp4"),
    output: (method: string) => path.join(dir, `out-${method}.mp4`),
  };
}

export async function readClip(dir: string): Promise<ClipSpec> {
  return (JSON.parse(await readFile(clipFiles(dir).spec, "utf8")) as { clip: ClipSpec }).clip;
}

export interface TruthFrame {
  index: number;
  clean: Uint8Array;
  /** 255 where an overlay changed the pixel (the lossless renders differ), else 0. */
  mask: Uint8Array;
  /** Pixels in the mask. */
  masked: number;
  /** 255 on the scene's sign (clips with one: drawn, or a zone of real footage), else absent. */
  scene?: Uint8Array;
}

/** 255 inside a zone of the frame (a sign that a still camera's footage shows in one place). */
function zoneMask(zone: Zone, { width, height }: { width: number; height: number }): Uint8Array {
  const mask = new Uint8Array(width * height);
  const x0 = Math.round(zone.x0 * width);
  const x1 = Math.round(zone.x1 * width);
  for (let y = Math.round(zone.y0 * height); y < Math.round(zone.y1 * height); y++) {
    mask.fill(255, y * width + x0, y * width + x1);
  }
  return mask;
}

/** 255 where two RGB frames differ in any channel. */
function differences(a: Uint8Array, b: Uint8Array): { mask: Uint8Array; count: number } {
  const mask = new Uint8Array(a.length / 3);
  let count = 0;
  for (let p = 0, i = 0; p < mask.length; p++, i += 3) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) {
      mask[p] = 255;
      count++;
    }
  }
  return { mask, count };
}

/**
 * The truth of each frame, streamed: the clean frame and the overlays' mask, the difference between
 * the lossless renders with and without them (outlines, shadows, boxes and anti-aliasing included).
 */
export async function* truthFrames(dir: string, clip: ClipSpec): AsyncGenerator<TruthFrame> {
  const files = clipFiles(dir);
  const clean = rgbFrames(files.clean, clip);
  const overlaid = rgbFrames(files.overlaid, clip);
  const plain = clip.sceneText ? rgbFrames(files.plain, clip) : undefined;
  const sceneZone = clip.sceneZone ? zoneMask(clip.sceneZone, clip) : undefined;
  try {
    for (let index = 0; ; index++) {
      const [c, o, p] = await Promise.all([clean.next(), overlaid.next(), plain?.next()]);
      if (c.done || o.done || p?.done) {
        if (!(c.done && o.done && (p?.done ?? true))) throw new Error(`${dir}: truth files differ in length`);
        return;
      }
      const { mask, count } = differences(c.value, o.value);
      const scene = p ? differences(c.value, p.value).mask : sceneZone;
      yield { index, clean: c.value, mask, masked: count, ...(scene ? { scene } : {}) };
    }
  } finally {
    await Promise.all([clean.return(undefined), overlaid.return(undefined), plain?.return(undefined)]);
  }
}

export interface OverlayBox {
  text: string;
  /** Bounding box of all its pixels over all its frames. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** The frames it is on, [first, last] per span. */
  frames: Array<[number, number]>;
}

export interface Truth {
  frames: number;
  /** Frames with overlay pixels. */
  maskedFrames: number;
  /** Mean share of the frame covered by overlays, over the frames with some. */
  coverage: number;
  boxes: OverlayBox[];
  /** Mask pixels no overlay's zone and span claim: should be 0. */
  unclaimed: number;
}

/** Measures the truth once per generated clip: how many frames, and where each overlay lies. */
export async function measureTruth(dir: string, clip: ClipSpec): Promise<Truth> {
  const spans = clip.overlays.map((overlay) => spanFrames(overlay, clip.fps));
  const bounds = clip.overlays.map(() => ({ x0: Infinity, y0: Infinity, x1: -1, y1: -1 }));
  const { width, height } = clip;
  let frames = 0;
  let maskedFrames = 0;
  let coverage = 0;
  let unclaimed = 0;
  for await (const { index, mask, masked } of truthFrames(dir, clip)) {
    frames++;
    if (masked === 0) continue;
    maskedFrames++;
    coverage += masked / mask.length;
    const on = clip.overlays.flatMap((overlay, i) => (isOn(spans[i] ?? [], index) ? [{ overlay, i }] : []));
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!mask[y * width + x]) continue;
        const owner = on.find(({ overlay: { zone } }) => {
          return x >= zone.x0 * width && x < zone.x1 * width && y >= zone.y0 * height && y < zone.y1 * height;
        });
        const box = owner && bounds[owner.i];
        if (!box) {
          unclaimed++;
          continue;
        }
        box.x0 = Math.min(box.x0, x);
        box.y0 = Math.min(box.y0, y);
        box.x1 = Math.max(box.x1, x);
        box.y1 = Math.max(box.y1, y);
      }
    }
  }
  const boxes = clip.overlays.flatMap((overlay, i) => {
    const box = bounds[i];
    if (!box || box.x1 < 0) return [];
    const frames = spans[i] ?? [];
    return [
      {
        text: overlay.text,
        x: box.x0,
        y: box.y0,
        width: box.x1 - box.x0 + 1,
        height: box.y1 - box.y0 + 1,
        frames,
      },
    ];
  });
  return { frames, maskedFrames, coverage: maskedFrames ? coverage / maskedFrames : 0, boxes, unclaimed };
}
