import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rgbFrames } from "../../bench/raw-frames";
import { cleanVideo } from "../../gpu-worker/engine/clean";
import { createOcrEngine, type OcrEngine } from "../../gpu-worker/engine/ocr/ocr";
import { CLIP, isMagenta, LOGO, LOGO_REGION, makeRegionsClip } from "../fixtures/regions-clip";
import { editDistance } from "../helpers/edit-distance";

const run = promisify(execFile);
const SIZE = { width: CLIP.width, height: CLIP.height };

let workDir: string;
let ocr: OcrEngine;
const file = (name: string) => path.join(workDir, name);
let summary: Awaited<ReturnType<typeof cleanVideo>>;

const normalise = (text: string) => text.toUpperCase().replace(/[^A-Z0-9%]/g, "");

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "regions-report-"));
  ocr = await createOcrEngine();
  await makeRegionsClip(file("ad.mp4"));
  summary = await cleanVideo(file("ad.mp4"), file("clean.mp4"), {
    ocr,
    regions: [LOGO_REGION],
    picturePath: file("before-after.jpg"),
  });
});

afterAll(async () => {
  await ocr?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("cleanVideo with a region over a logo no reader reads", () => {
  it("erases the logo over the area's span and leaves the area alone outside it", async () => {
    const outputs = rgbFrames(file("clean.mp4"), SIZE);
    let index = 0;
    for await (const before of rgbFrames(file("ad.mp4"), SIZE)) {
      const after = (await outputs.next()).value as Uint8Array;
      let magentaBefore = 0;
      let magentaAfter = 0;
      let changed = 0;
      for (let y = LOGO.y; y < LOGO.y + LOGO.height; y++) {
        for (let x = LOGO.x; x < LOGO.x + LOGO.width; x++) {
          const i = (y * CLIP.width + x) * 3;
          if (isMagenta(before, i)) magentaBefore++;
          if (isMagenta(after, i)) magentaAfter++;
          if (Math.abs((before[i] as number) - (after[i] as number)) > 12) changed++;
        }
      }
      const seconds = index / CLIP.fps;
      if (seconds >= LOGO.from + 0.04 && seconds <= LOGO.to - 0.04) {
        expect(magentaBefore, `frame ${index} of the input`).toBeGreaterThan(LOGO.width * LOGO.height * 0.5);
        expect(magentaAfter, `frame ${index}`).toBe(0);
      }
      // Before the span the logo is not there and the area is not touched: only the encoder's noise.
      if (seconds < 0.76) expect(changed, `frame ${index}`).toBeLessThan(LOGO.width * LOGO.height * 0.02);
      index++;
    }
    expect(index).toBe(CLIP.seconds * CLIP.fps);
  });

  it("reports the caption erased with its text and times, the sign kept as scene, and the area", () => {
    const report = summary.report;
    expect(report).toBeDefined();
    const lines = JSON.stringify(report);
    const caption = report?.lines_erased.find(({ text }) => editDistance(normalise(text), "SALE50%OFF") <= 2);
    expect(caption, lines).toBeDefined();
    expect(caption?.start_seconds).toBeGreaterThan(0.6);
    expect(caption?.start_seconds).toBeLessThan(1.0);
    expect(caption?.end_seconds).toBeGreaterThan(2.0);
    expect(caption?.end_seconds).toBeLessThan(2.45);
    // Near the bottom, centred.
    expect(caption?.box.y).toBeGreaterThan(0.6);
    expect((caption?.box.x ?? 0) + (caption?.box.width ?? 0) / 2).toBeCloseTo(0.5, 1);
    const sign = report?.lines_kept.find(({ text }) => editDistance(normalise(text), "OPEN24HOURS") <= 2);
    expect(sign, lines).toMatchObject({ reason: "scene" });
    expect(
      report?.lines_erased.some(({ text }) => normalise(text).includes("OPEN")),
      lines,
    ).toBe(false);
    expect(report?.areas_erased).toEqual([{ ...LOGO_REGION }]);
    // Frames from 0.8 s to 2.2 s (the caption; the logo's span is inside it) of 3 s.
    expect(report?.frames_changed_share).toBeGreaterThan(0.4);
    expect(report?.frames_changed_share).toBeLessThan(0.56);
  });

  it("writes a small before/after JPEG, the two frames side by side", async () => {
    expect(summary.pictureWritten).toBe(true);
    const jpeg = await readFile(file("before-after.jpg"));
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect((await stat(file("before-after.jpg"))).size).toBeLessThan(300_000);
    const { stdout } = await run("ffprobe", [
      ...["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", file("before-after.jpg")],
    ]);
    expect(stdout.trim()).toBe(`${CLIP.width * 2},${CLIP.height}`);
  });
});
