import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeVideo } from "../../gpu-worker/engine/media/probe";
import { createOcrEngine, type OcrEngine, type RgbFrame } from "../../gpu-worker/engine/ocr/ocr";
import { analyseVideo } from "../../gpu-worker/engine/pipeline/analyse";
import { changedRegions } from "../../gpu-worker/engine/pipeline/changed-regions";
import { GRID_COLUMNS, GRID_ROWS } from "../../gpu-worker/engine/pipeline/signatures";
import { residualText } from "../../gpu-worker/engine/pipeline/verify";
import { editDistance } from "../helpers/edit-distance";

const run = promisify(execFile);

/** From Debian's fonts-dejavu-core, which ffmpeg's fontconfig dependency installs. */
const FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;
/** A still, softened fractal: nothing moves but the captions. */
const STILL =
  "mandelbrot=s=640x360:start_x=-0.7436438870:start_y=0.1318259042:start_scale=0.03:end_pts=1" +
  `:maxiter=300:outer=normalized_iteration_count:inner=mincol,gblur=sigma=1,trim=end_frame=1,` +
  `loop=loop=-1:size=1,settb=1/${FPS},setpts=N,fps=${FPS}`;

/** White outlined text on a dark box, drawn on frames `from` to `to`. */
function caption(text: string, size: number, x: string, y: string, [from, to]: [number, number]): string {
  const options = [
    `fontfile=${FONT_FILE}`,
    `text='${text}'`,
    `fontsize=${size}`,
    "fontcolor=white",
    "borderw=2",
    "bordercolor=black",
    "box=1",
    "boxcolor=black@0.6",
    "boxborderw=8",
    `x=${x}`,
    `y=${y}`,
    `enable='between(n,${from},${to})'`,
  ];
  return `drawtext=${options.join(":")}`;
}

async function ffmpeg(args: string[]): Promise<Buffer> {
  const { stdout } = await run("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args], {
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Three seconds of the still picture with the captions, H.264. */
async function makeClip(file: string, captions: string[]): Promise<string> {
  const video = [STILL, `trim=end_frame=${3 * FPS}`, "format=yuv420p", ...captions].join(",");
  await ffmpeg([
    ...["-f", "lavfi", "-i", video],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", file],
  ]);
  return file;
}

/** An OCR engine that counts the pixels of every frame or crop the detector is given. */
function countingDetector(ocr: OcrEngine) {
  const seen: Array<{ width: number; height: number }> = [];
  const engine: OcrEngine = {
    ...ocr,
    detect: (frames) => {
      seen.push(...frames.map(({ width, height }) => ({ width, height })));
      return ocr.detect(frames);
    },
  };
  return { engine, seen };
}

const normalise = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]/g, "");
const reads = (text: string, expected: string) => editDistance(normalise(text), expected) <= 1;

let workDir: string;
let ocr: OcrEngine;

beforeAll(async () => {
  if (!existsSync(FONT_FILE)) throw new Error(`${FONT_FILE} is missing: install Debian's fonts-dejavu-core`);
  workDir = await mkdtemp(path.join(tmpdir(), "read-less-test-"));
  ocr = await createOcrEngine();
});

afterAll(async () => {
  await ocr?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("changedRegions", () => {
  const signature = () => new Uint8Array(GRID_COLUMNS * GRID_ROWS).fill(100);

  it("is empty for a picture that did not change, and null for one that changed all over", () => {
    expect(changedRegions(signature(), signature(), [], WIDTH, HEIGHT)).toEqual([]);
    expect(changedRegions(signature(), signature().fill(140), [], WIDTH, HEIGHT)).toBeNull();
  });

  it("covers a changed cell with one cell around it, grown to hold a line it touches", () => {
    const now = signature();
    now[5 * GRID_COLUMNS + 30] = 130; // a cell near the right edge, 20 px wide and 20 px tall
    const [only, ...rest] = changedRegions(signature(), now, [], WIDTH, HEIGHT) ?? [];
    expect(rest).toEqual([]);
    expect(only).toEqual({ x: 580, y: 80, width: 60, height: 60 });
    const line = { x: 400, y: 100, width: 200, height: 30 };
    const [grown] = changedRegions(signature(), now, [line], WIDTH, HEIGHT) ?? [];
    expect(grown).toEqual({ x: 400, y: 80, width: 240, height: 60 });
  });
});

describe("analyseVideo reads less", () => {
  it("finds a caption that appears in a corner of a still picture by searching only around it", async () => {
    const clip = await makeClip(path.join(workDir, "corner.mp4"), [
      caption("WAIT FOR IT", 30, "(w-text_w)/2", "30", [0, 74]),
      caption("NEW", 22, "w-text_w-30", "h-text_h-30", [40, 74]),
    ]);
    const { engine, seen } = countingDetector(ocr);
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr: engine });
    const texts = analysis.tracks.map(({ text }) => text);
    const late = analysis.tracks.find(({ text }) => reads(text, "NEW"));
    expect(late, JSON.stringify(texts)).toBeDefined();
    expect(late?.erase).toBe(true);
    expect(Math.abs((late?.track.first ?? 0) - 40)).toBeLessThanOrEqual(2);
    expect(analysis.tracks.some(({ text }) => reads(text, "WAITFORIT"))).toBe(true);
    // The first sample is searched whole; after it only crops around what changed.
    const whole = seen.filter(({ width, height }) => width === WIDTH && height === HEIGHT);
    expect(whole.length).toBe(1);
    expect(seen.length).toBeGreaterThan(1);
  });

  it("reads a line again when its words change under a box that stays put", async () => {
    const place = ["(w-text_w)/2", "h-text_h-40"] as const;
    const clip = await makeClip(path.join(workDir, "price.mp4"), [
      caption("ONLY 10 EUR", 36, ...place, [0, 37]),
      caption("ONLY 99 EUR", 36, ...place, [38, 74]),
    ]);
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr });
    const detections = analysis.tracks.flatMap(({ track }) => track.detections);
    const summary = JSON.stringify(detections.map(({ frame, text }) => [frame, text]));
    expect(
      detections.some(({ frame, text }) => frame >= 38 && reads(text, "ONLY99EUR")),
      summary,
    ).toBe(true);
    expect(
      detections.some(({ frame, text }) => frame >= 38 && reads(text, "ONLY10EUR")),
      summary,
    ).toBe(false);
  });
});

describe("a ticker", () => {
  it("is read as its words come in and followed as they scroll on, not read on every frame read", async () => {
    const ticker = `drawtext=fontfile=${FONT_FILE}:text='BREAKING - PRICES CUT IN HALF AT EVERY STORE THIS WEEKEND':fontsize=24:fontcolor=white:box=1:boxcolor=0x1d3557:boxborderw=6:x=w*0.7-t*w*0.25:y=h-40`;
    const clip = await makeClip(path.join(workDir, "ticker.mp4"), [ticker]);
    const readings: number[] = [];
    const counting: OcrEngine = {
      ...ocr,
      recognizeBoxes: (items) => {
        readings.push(...items.filter(({ box }) => box.box.y > HEIGHT - 60).map(() => 1));
        return ocr.recognizeBoxes(items);
      },
    };
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr: counting });
    const bottom = analysis.tracks.filter(({ track }) =>
      track.detections.some(({ box }) => box.y > HEIGHT - 60),
    );
    const frames = bottom.flatMap(({ track }) => track.detections.map(({ frame }) => frame));
    console.info(
      `ticker: ${readings.length} readings, seen on frames ${Math.min(...frames)} to ${Math.max(...frames)}`,
    );
    expect(bottom.every(({ erase }) => erase)).toBe(true);
    expect(Math.min(...frames)).toBeLessThanOrEqual(5);
    expect(Math.max(...frames)).toBeGreaterThanOrEqual(3 * FPS - 5);
    // Read 18 times before it was followed by its appearance: on every frame read as its words moved.
    // It comes in over 2.8 s, and is read again each time it shows a quarter more of itself.
    expect(readings.length).toBeLessThanOrEqual(7);
  });
});

describe("residualText", () => {
  it("finds a leftover line by searching around each part of the mask, not the frame between them", async () => {
    const data = await ffmpeg([
      ...["-f", "lavfi", "-i", `color=c=0x3060a0:s=${WIDTH}x${HEIGHT}`],
      ...["-vf", caption("LEFT OVER", 30, "40", "30", [0, 0]), "-frames:v", "1"],
      ...["-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
    ]);
    const frame: RgbFrame = { width: WIDTH, height: HEIGHT, data: new Uint8Array(data) };
    const mask = new Uint8Array(WIDTH * HEIGHT);
    const mark = (x0: number, y0: number, x1: number, y1: number) => {
      for (let y = y0; y < y1; y++) mask.fill(255, y * WIDTH + x0, y * WIDTH + x1);
    };
    mark(30, 20, 260, 80); // where the leftover line is
    mark(460, 290, 620, 340); // a line erased cleanly, far from it
    const { engine, seen } = countingDetector(ocr);
    const found = await residualText(engine, frame, mask);
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const box of found) expect(box.y + box.height).toBeLessThan(100);
    const searched = seen.reduce((sum, { width, height }) => sum + width * height, 0);
    // The rectangle holding both parts, grown by 16, is 622x352: the two crops are a fifth of it.
    expect(searched).toBeLessThan(0.3 * 622 * 352);
  });
});
