import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rgbFrames } from "../../bench/raw-frames";
import { cleanVideo } from "../../gpu-worker/engine/clean";
import { createOcrEngine, type OcrEngine } from "../../gpu-worker/engine/ocr/ocr";
import { editDistance } from "../helpers/edit-distance";

const run = promisify(execFile);
const FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;

/** A camera panning over a fractal, as in clean.test.ts: what an area hides on one frame shows on others. */
const PAN =
  "mandelbrot=s=1280x720:start_x=-0.7436438870:start_y=0.1318259042:start_scale=0.03:end_pts=1" +
  ":maxiter=300:outer=normalized_iteration_count:inner=mincol,gblur=sigma=1,trim=end_frame=1," +
  `loop=loop=-1:size=1,settb=1/${FPS},setpts=N,fps=${FPS}`;
const CROP = `crop=${WIDTH}:${HEIGHT}:x='60+t*110':y='200'`;
/** A sign in the filmed picture (drawn before the camera's crop): it pans with the scene. */
const SIGN = `drawtext=fontfile=${FONT_FILE}:text='OPEN 24 HOURS':fontsize=36:fontcolor=white:borderw=2:x=320:y=330`;
/** The caption, 0.8 s to 2.2 s. */
const CAPTION =
  `drawtext=fontfile=${FONT_FILE}:text='SALE 50% OFF':expansion=none:fontsize=40:fontcolor=white:` +
  "borderw=3:bordercolor=black:x=(w-text_w)/2:y=h-text_h-30:enable='between(t,0.8,2.2)'";
/** A logo no reader reads: a magenta disc-like block with a yellow bar, top left, 1 s to 2 s. */
const LOGO = { x: 24, y: 20, width: 72, height: 56 };
const LOGO_DRAWN =
  `drawbox=x=${LOGO.x}:y=${LOGO.y}:w=${LOGO.width}:h=${LOGO.height}:color=magenta:t=fill:enable='between(t,1,2)',` +
  `drawbox=x=${LOGO.x + 10}:y=${LOGO.y + 22}:w=${LOGO.width - 20}:h=12:color=yellow:t=fill:enable='between(t,1,2)'`;
/** The area the customer draws over it, a little wider than the logo. */
const REGION = {
  x: (LOGO.x - 4) / WIDTH,
  y: (LOGO.y - 4) / HEIGHT,
  width: (LOGO.width + 8) / WIDTH,
  height: (LOGO.height + 8) / HEIGHT,
  start_seconds: 1,
  end_seconds: 2.04,
};

let workDir: string;
let ocr: OcrEngine;
const file = (name: string) => path.join(workDir, name);
let summary: Awaited<ReturnType<typeof cleanVideo>>;

const normalise = (text: string) => text.toUpperCase().replace(/[^A-Z0-9%]/g, "");
const isMagenta = (data: Uint8Array, i: number) =>
  (data[i] as number) > 180 && (data[i + 1] as number) < 90 && (data[i + 2] as number) > 180;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "regions-report-"));
  ocr = await createOcrEngine();
  const video = [PAN, SIGN, CROP, `trim=end_frame=${3 * FPS}`, "format=yuv420p", CAPTION, LOGO_DRAWN].join(
    ",",
  );
  await run("ffmpeg", [
    ...["-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i", video],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", file("ad.mp4")],
  ]);
  summary = await cleanVideo(file("ad.mp4"), file("clean.mp4"), {
    ocr,
    regions: [REGION],
    picturePath: file("before-after.jpg"),
  });
});

afterAll(async () => {
  await ocr?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("cleanVideo with a region over a logo no reader reads", () => {
  it("erases the logo over the area's span and leaves the area alone outside it", async () => {
    const outputs = rgbFrames(file("clean.mp4"), { width: WIDTH, height: HEIGHT });
    let index = 0;
    for await (const before of rgbFrames(file("ad.mp4"), { width: WIDTH, height: HEIGHT })) {
      const after = (await outputs.next()).value as Uint8Array;
      let magentaBefore = 0;
      let magentaAfter = 0;
      let changed = 0;
      for (let y = LOGO.y; y < LOGO.y + LOGO.height; y++) {
        for (let x = LOGO.x; x < LOGO.x + LOGO.width; x++) {
          const i = (y * WIDTH + x) * 3;
          if (isMagenta(before, i)) magentaBefore++;
          if (isMagenta(after, i)) magentaAfter++;
          if (Math.abs((before[i] as number) - (after[i] as number)) > 12) changed++;
        }
      }
      const seconds = index / FPS;
      if (seconds >= 1.04 && seconds <= 1.96) {
        expect(magentaBefore, `frame ${index} of the input`).toBeGreaterThan(LOGO.width * LOGO.height * 0.5);
        expect(magentaAfter, `frame ${index}`).toBe(0);
      }
      // Before the span the logo is not there and the area is not touched: only the encoder's noise.
      if (seconds < 0.76) expect(changed, `frame ${index}`).toBeLessThan(LOGO.width * LOGO.height * 0.02);
      index++;
    }
    expect(index).toBe(3 * FPS);
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
    expect(report?.areas_erased).toEqual([{ ...REGION }]);
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
    expect(stdout.trim()).toBe(`${WIDTH * 2},${HEIGHT}`);
  });
});
