import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeVideo } from "../../gpu-worker/engine/media/probe";
import { createOcrEngine, type OcrEngine } from "../../gpu-worker/engine/ocr/ocr";
import { analyseVideo } from "../../gpu-worker/engine/pipeline/analyse";
import { markTextLine } from "../../gpu-worker/engine/pipeline/masks";
import { editDistance } from "../helpers/edit-distance";

const run = promisify(execFile);

/**
 * The top-right corner of a street shot (OpenCV's vtest.avi, from Debian's opencv-doc) at 768x576,
 * with the bench's "@citynews" handle over it: white at 60 % across a brick wall, a red door, a pole
 * and a white van. At the reading pass's 640 px its letters are 11 px tall and the detector finds
 * nothing there; enlarged twice it reads "itynews".
 */
const HANDLE_CORNER = path.resolve(import.meta.dirname, "../fixtures/handle-corner.png");

describe("a small see-through handle in a corner", () => {
  let dir: string;
  let ocr: OcrEngine;
  let clip: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "small-text-"));
    ocr = await createOcrEngine();
    clip = path.join(dir, "handle.mp4");
    // The corner in its place on a plain 768x576 frame, two seconds at 10 fps.
    await run("ffmpeg", [
      ...["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x8a7a60:s=768x576:r=10,trim=end_frame=20"],
      ...["-i", HANDLE_CORNER, "-filter_complex", "[0:v][1:v]overlay=512:0,format=yuv420p"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", clip],
    ]);
  }, 60_000);
  afterAll(async () => {
    await ocr?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("is found and erased, though the detector misses it at the size the reading pass reads", async () => {
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr });
    const texts = analysis.tracks.map(({ text, erase }) => `${text}:${erase}`);
    const handle = analysis.tracks.find(({ text }) => editDistance(text.toLowerCase(), "itynews") <= 2);
    expect(handle, JSON.stringify(texts)).toBeDefined();
    expect(handle?.erase).toBe(true);
    // In the corner, where the handle is.
    const box = handle?.track.detections[0]?.box;
    expect(box && box.x >= 512 && box.y + box.height <= 96).toBe(true);
  }, 120_000);
});

describe("markTextLine on see-through letters over a busy background", () => {
  const WIDTH = 200;
  const HEIGHT = 60;
  /** The line's box, as a detector gives it. */
  const BOX = { x: 40, y: 20, width: 120, height: 22 };
  /** Letter-like strokes: 3 px bars, 14 px tall, every 8 px. */
  const onStroke = (x: number, y: number) => y >= 24 && y < 38 && x >= 46 && x < 154 && (x - 46) % 8 < 3;
  /** A brick wall on the left, a red door in the middle, a white van low on the right, as in a street shot. */
  function background(x: number, y: number): [number, number, number] {
    if (x >= 120 && y >= 31) return [240, 240, 240];
    if (x >= 80 && x < 120) return [176, 64, 32];
    return [160, 128, 96];
  }
  function frame() {
    const data = new Uint8Array(WIDTH * HEIGHT * 3);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const under = background(x, y);
        // White at 60 % over the picture, as a see-through handle is drawn.
        const pixel = onStroke(x, y) ? under.map((v) => Math.round(0.6 * 255 + 0.4 * v)) : under;
        data.set(pixel, (y * WIDTH + x) * 3);
      }
    }
    return { width: WIDTH, height: HEIGHT, data };
  }

  it("marks the letters and leaves the door and the van beside them", () => {
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(frame(), BOX, mask);
    let letters = 0;
    let lettersMarked = 0;
    let away = 0;
    let awayMarked = 0;
    for (let y = BOX.y; y < BOX.y + BOX.height; y++) {
      for (let x = BOX.x; x < BOX.x + BOX.width; x++) {
        const marked = mask[y * WIDTH + x] ? 1 : 0;
        if (onStroke(x, y)) {
          // Over the white van the letters are 9 levels off it: nothing there to erase.
          if (background(x, y)[0] === 240) continue;
          letters += 1;
          lettersMarked += marked;
          continue;
        }
        // Pixels more than the mask's growth (3 px here) from every letter are picture, not letter.
        let near = false;
        for (let dy = -4; dy <= 4 && !near; dy++)
          for (let dx = -4; dx <= 4 && !near; dx++) near = onStroke(x + dx, y + dy);
        if (near) continue;
        away += 1;
        awayMarked += marked;
      }
    }
    expect(lettersMarked / letters).toBeGreaterThan(0.95);
    expect(awayMarked / away).toBeLessThan(0.1);
  });
});
