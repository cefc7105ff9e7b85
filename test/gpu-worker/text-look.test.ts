import { describe, expect, it } from "vitest";
import type { RgbFrame } from "../../gpu-worker/engine/ocr/ocr";
import { isSceneText, type Motion } from "../../gpu-worker/engine/pipeline/classify";
import { textLook } from "../../gpu-worker/engine/pipeline/text-look";
import type { Detection, Track } from "../../gpu-worker/engine/pipeline/tracks";

const WIDTH = 200;
const HEIGHT = 60;
/** The line's box as the detector gives it: its letters are bars inside, the background between them. */
const BOX = { x: 20, y: 14, width: 160, height: 32 };
const STILL: Motion = [1, 0, 0, 0, 1, 0, 0, 0, 1];
const FRAMES = 5;

/** Letter coverage (0 to 1) of each pixel: vertical bars 6 pixels wide, softened by a lens of `blur` pixels. */
function coverage(blur: number): Float32Array {
  const sharp = new Float32Array(WIDTH * HEIGHT);
  for (let y = 20; y < 40; y++) for (let x = 26; x < 174; x++) if (x % 12 < 6) sharp[y * WIDTH + x] = 1;
  if (blur === 0) return sharp;
  const radius = Math.ceil(blur * 3);
  const weights = Array.from({ length: 2 * radius + 1 }, (_, k) =>
    Math.exp(-((k - radius) ** 2) / (2 * blur ** 2)),
  );
  const total = weights.reduce((sum, w) => sum + w, 0);
  const pass = (from: Float32Array, step: number, limit: number, at: (i: number) => number) => {
    const to = new Float32Array(from.length);
    for (let i = 0; i < from.length; i++) {
      let sum = 0;
      for (let k = -radius; k <= radius; k++) {
        const along = Math.min(limit - 1, Math.max(0, at(i) + k)) - at(i);
        sum += (weights[k + radius] as number) * (from[i + along * step] as number);
      }
      to[i] = sum / total;
    }
    return to;
  };
  return pass(
    pass(sharp, 1, WIDTH, (i) => i % WIDTH),
    WIDTH,
    HEIGHT,
    (i) => Math.floor(i / WIDTH),
  );
}

/** A deterministic noise source: uniform integers in [-amplitude, amplitude]. */
function noise(seed: number, amplitude: number): () => number {
  let state = seed * 2654435761;
  return () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return amplitude === 0 ? 0 : Math.round(((state >>> 8) / 0xffffff) * 2 * amplitude - amplitude);
  };
}

interface Shot {
  /** The lens's blur, in pixels (0: edges as a renderer draws them). */
  blur: number;
  /** Sensor noise (grey levels), new on every frame. */
  grain: number;
  /** Drawn on after filming: the letters cover the scene's noise; filmed, they carry it. */
  drawnOn: boolean;
}

/** Frame n of a still shot: light letters on a mid-grey scene. */
function frame(shot: Shot, n: number, letters: Float32Array): RgbFrame {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  const grain = noise(n + 1, shot.grain);
  for (let i = 0; i < WIDTH * HEIGHT; i++) {
    const scene = 70 + grain();
    const cover = letters[i] as number;
    const value = shot.drawnOn ? scene * (1 - cover) + 225 * cover : 70 + 155 * cover + grain();
    data.fill(Math.max(0, Math.min(255, Math.round(value))), i * 3, i * 3 + 3);
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** The line followed over a still shot, each sample's look measured as the reading pass does. */
function filmedTrack(shot: Shot): { track: Track; motions: Map<number, Motion> } {
  const letters = coverage(shot.blur);
  const frames = Array.from({ length: FRAMES }, (_, n) => frame(shot, n, letters));
  const detections: Detection[] = frames.map((picture, n) => ({
    frame: n * 12,
    box: BOX,
    text: "OPEN",
    confidence: 0.9,
    look: textLook(picture, BOX, frames[n - 1]),
  }));
  const motions = new Map(detections.slice(1).map(({ frame }) => [frame, STILL] as const));
  return { track: { id: 0, detections, first: 0, last: (FRAMES - 1) * 12 }, motions };
}

describe("isSceneText under a still camera (by the text's look)", () => {
  const cases: Array<[string, Shot, boolean]> = [
    [
      "keeps text with the lens's soft edges that carries the scene's changing noise",
      { blur: 1.3, grain: 10, drawnOn: false },
      true,
    ],
    [
      "erases soft text whose fill stays the same while the scene under it is noisy (an upscaled caption)",
      { blur: 1.3, grain: 10, drawnOn: true },
      false,
    ],
    [
      "erases text with a renderer's crisp edges even when grain covers the whole frame",
      { blur: 0, grain: 10, drawnOn: false },
      false,
    ],
    [
      "erases soft text on frames too clean to show any noise: nothing tells, so an overlay",
      { blur: 1.3, grain: 0, drawnOn: false },
      false,
    ],
  ];
  it.each(cases)("%s", (_, shot, kept) => {
    const { track, motions } = filmedTrack(shot);
    expect(isSceneText(track, motions)).toBe(kept);
  });
});
