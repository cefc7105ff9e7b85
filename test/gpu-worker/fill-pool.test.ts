import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanVideo } from "../../gpu-worker/engine/clean";
import { type CropWork, cropWork } from "../../gpu-worker/engine/fill/crop";
import { composeSteps, type IndexedFrame } from "../../gpu-worker/engine/fill/motion-chain";
import { FillPool, fillPoolSize, type SearchTask } from "../../gpu-worker/engine/fill/pool";
import type { Homography } from "../../gpu-worker/engine/fill/types";
import { searchWindow, windowSources } from "../../gpu-worker/engine/fill/window-fill";
import { createOcrEngine, type OcrEngine } from "../../gpu-worker/engine/ocr/ocr";

const run = promisify(execFile);
const FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

describe("fillPoolSize", () => {
  it("takes one thread per core less one for the cleaning thread, at least one and at most four, unless FILL_THREADS says", () => {
    expect(fillPoolSize(undefined, 16)).toBe(4);
    expect(fillPoolSize(undefined, 4)).toBe(3);
    expect(fillPoolSize(undefined, 2)).toBe(1);
    expect(fillPoolSize(undefined, 1)).toBe(1);
    expect(fillPoolSize("", 8)).toBe(4);
    expect(fillPoolSize("16", 16)).toBe(15);
    // FILL_THREADS counts the cleaning thread: 2 is one worker thread beside it, 1 and 0 none.
    expect(fillPoolSize("2", 16)).toBe(1);
    expect(fillPoolSize("4", 2)).toBe(3);
    expect(fillPoolSize("1", 16)).toBe(0);
    expect(fillPoolSize("0", 16)).toBe(0);
    for (const wrong of ["-1", "1.5", "many"]) expect(() => fillPoolSize(wrong, 4)).toThrow(/FILL_THREADS/);
  });
});

let workDir: string;
let ocr: OcrEngine;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "fill-pool-test-"));
  ocr = await createOcrEngine();
});

afterAll(async () => {
  await ocr?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/**
 * A camera panning right and down over a softened fractal, with a caption low in the frame and a
 * hook on a see-through box high in it, on and off at different frames: the frames' fill regions,
 * and so the regions their motions are measured in, change along the clip.
 */
async function panWithCaptions(file: string): Promise<void> {
  const text = (words: string, y: string, frames: string, box: boolean) =>
    [
      `drawtext=fontfile=${FONT_FILE}:text='${words}':fontsize=36:fontcolor=white:borderw=3:bordercolor=black`,
      ...(box ? ["box=1:boxcolor=black@0.5:boxborderw=10"] : []),
      `x=(w-text_w)/2:y=${y}:enable='between(n,${frames})'`,
    ].join(":");
  const graph = [
    "mandelbrot=s=1280x720:start_x=-0.7436438870:start_y=0.1318259042:start_scale=0.02:end_pts=1",
    "gblur=sigma=1,trim=end_frame=1,loop=loop=-1:size=1,settb=1/25,setpts=N,fps=25",
    "crop=640:360:x='40+t*120':y='180+t*30',trim=end_frame=30,format=yuv420p",
    text("BIG SUMMER SALE", "h-text_h-30", "4,26", false),
    text("WAIT FOR IT", "30", "10,22", true),
  ].join(",");
  await run("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    graph,
    "-c:v",
    "libx264",
    "-crf",
    "16",
    file,
  ]);
}

const md5 = async (file: string) =>
  createHash("md5")
    .update(await readFile(file))
    .digest("hex");

describe("cleanVideo with the fill's window search in worker threads", () => {
  it("writes the same bytes with one thread (no pool) and with two (a worker thread beside it)", async () => {
    const input = path.join(workDir, "pan.mp4");
    await panWithCaptions(input);
    const alone = path.join(workDir, "one-thread.mp4");
    const setting = process.env.FILL_THREADS;
    process.env.FILL_THREADS = "1";
    try {
      await cleanVideo(input, alone, { ocr });
    } finally {
      if (setting === undefined) delete process.env.FILL_THREADS;
      else process.env.FILL_THREADS = setting;
    }
    const pool = new FillPool(1);
    const pooled = path.join(workDir, "two-threads.mp4");
    try {
      const summary = await cleanVideo(input, pooled, { ocr, fillPool: pool });
      expect(summary.linesErased).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
    expect(await md5(pooled)).toBe(await md5(alone));
  });
});

const SIZE = { width: 320, height: 180 };
/** Pixels the picture moves up each frame: the frames two away show all the 12 rows the bar hides. */
const PAN_STEP = 8;

/** Textured frames of a camera tilting down (PAN_STEP pixels a frame), a bar masked across each. */
function panFrames(count: number): IndexedFrame[] {
  const { width, height } = SIZE;
  return Array.from({ length: count }, (_, index) => {
    const data = new Uint8Array(new SharedArrayBuffer(width * height * 3));
    const mask = new Uint8Array(new SharedArrayBuffer(width * height));
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const v = y + PAN_STEP * index;
        for (let c = 0; c < 3; c += 1) {
          data[(y * width + x) * 3 + c] = 128 + 60 * Math.sin(x / (7 + c)) * Math.cos(v / (9 - c));
        }
        if (y >= 120 && y < 132 && x >= 60 && x < 260) mask[y * width + x] = 255;
      }
    }
    return { index, frame: { ...SIZE, data }, mask };
  });
}

/** The tilt's motion from frame `from` to frame `to`. */
const panMotion = (from: number, to: number): Homography => [1, 0, 0, 0, 1, PAN_STEP * (from - to), 0, 0, 1];

describe("FillPool", () => {
  const search = { radius: 2, maxError: 12, restored: false, movedOnWanted: true };
  /** The search of frame `centre` of `window`, its steps those of the tilt. */
  const task = async (window: IndexedFrame[], centre: number): Promise<SearchTask> => {
    const { frame, mask } = window[centre] as IndexedFrame;
    const works = [await cropWork(frame, mask, { x: 40, y: 100, width: 240, height: 60 })];
    const steps = window
      .slice(0, -1)
      .map(({ index }): [number, Homography] => [index, panMotion(index, index + 1)]);
    const here = () =>
      searchWindow(
        works,
        windowSources(window, centre, (position) =>
          composeSteps(centre, position, (at) => panMotion(at, at + 1)),
        ),
        search,
      );
    return { centre, window, works, search, steps, here };
  };

  it("finds in a thread what the search finds here", async () => {
    const pool = new FillPool(1);
    try {
      const window = panFrames(5);
      const inThread = await task(window, 2);
      const found = await pool.job().search(inThread);
      const inHere = await task(window, 2);
      const expected = await inHere.here();
      expect(found.map((find) => find.unfilled)).toEqual(expected.map((find) => find.unfilled));
      expect(found[0]?.unfilled).toBe(0);
      expect(Buffer.from(inThread.works[0]?.fill.buffer as ArrayBuffer)).toEqual(
        Buffer.from(inHere.works[0]?.fill.buffer as ArrayBuffer),
      );
      expect(Buffer.from(inThread.works[0]?.group.buffer as ArrayBuffer)).toEqual(
        Buffer.from(inHere.works[0]?.group.buffer as ArrayBuffer),
      );
      const motions = (works: CropWork[]) =>
        works[0]?.groups.map(({ sources, pooled }) => ({
          pooled,
          motions: sources.map(({ source }) => source.motion),
        }));
      expect(motions(inThread.works)).toEqual(motions(inHere.works));
      expect(inThread.works[0]?.groups.length).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it("fails a search whose thread dies before answering with the thread's error, replaces the thread, and leaves none on close", async () => {
    const pool = new FillPool(1);
    const [first] = pool.threadIds();
    const window = panFrames(5);
    const crashing = await task(window, 2);
    // The thread is stopping when the search is sent to it.
    const stopped = pool.crash(first as number);
    await expect(pool.job().search(crashing)).rejects.toThrow(/fill thread stopped/);
    await stopped;
    expect(pool.threadIds()).toHaveLength(1);
    expect(pool.threadIds()).not.toContain(first);
    const found = await pool.job().search(await task(window, 2));
    expect(found[0]?.unfilled).toBe(0);
    await pool.close();
    expect(pool.threadIds()).toEqual([]);
  });

  it("fails a job's search at once when its signal aborts", async () => {
    const pool = new FillPool(1);
    try {
      const controller = new AbortController();
      const window = panFrames(5);
      const searching = pool.job(controller.signal).search(await task(window, 2));
      controller.abort();
      await expect(searching).rejects.toMatchObject({ name: "AbortError" });
      // The thread's answer to it is dropped, and it takes the next search.
      const found = await pool.job().search(await task(window, 2));
      expect(found[0]?.unfilled).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
