import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARGIN_PIXEL } from "../../gpu-worker/engine/fill/types";
import { probeVideo } from "../../gpu-worker/engine/media/probe";
import { rectBox } from "../../gpu-worker/engine/ocr/geometry";
import { createOcrEngine, type OcrEngine, type TextLine } from "../../gpu-worker/engine/ocr/ocr";
import { analyseVideo } from "../../gpu-worker/engine/pipeline/analyse";
import { cutOffEnds } from "../../gpu-worker/engine/pipeline/line-ends";
import { markTextLine } from "../../gpu-worker/engine/pipeline/masks";
import { NO_REACH, reachOf, stripOf } from "../../gpu-worker/engine/pipeline/read-ends";
import type { WindowFrame } from "../../gpu-worker/engine/pipeline/read-windows";
import { screenFixedLines } from "../../gpu-worker/engine/pipeline/screen-fixed";
import { editDistance } from "../helpers/edit-distance";
import { fixtureFrame } from "../helpers/pictures";

const run = promisify(execFile);

/**
 * The top-right corner of a street shot (OpenCV's vtest.avi, from Debian's opencv-doc) at 768x576,
 * with the bench's "@citynews" handle over it: white at 60 % across a brick wall, a red door, a pole
 * and a white van. At the reading pass's 640 px its letters are 11 px tall and the detector finds
 * nothing there; enlarged twice it reads "itynews".
 */
const HANDLE_CORNER = path.resolve(import.meta.dirname, "../fixtures/handle-corner.png");

/**
 * The same street's top-right corner further into the shot, with a handle "@streetstyle" (white at
 * 60 %) from x 565 to 730 of the frame: its "@stre" over a beige brick wall, the rest over a red door.
 * The detector finds "etstyle" over the door alone, at 1x, 2x and 3x; over the wall its probability
 * map is empty.
 */
const HANDLE_OVER_WALL = path.resolve(import.meta.dirname, "../fixtures/handle-over-wall.png");

describe("a small see-through handle in a corner", () => {
  let dir: string;
  let ocr: OcrEngine;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "small-text-"));
    ocr = await createOcrEngine();
  }, 60_000);
  afterAll(async () => {
    await ocr?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The tracks of a clip showing `corner` in its place on a plain 768x576 frame, two seconds at 10 fps. */
  async function tracksOf(corner: string) {
    const clip = path.join(dir, `${path.basename(corner, ".png")}.mp4`);
    await run("ffmpeg", [
      ...["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x8a7a60:s=768x576:r=10,trim=end_frame=20"],
      ...["-i", corner, "-filter_complex", "[0:v][1:v]overlay=512:0,format=yuv420p"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", clip],
    ]);
    return (await analyseVideo(clip, await probeVideo(clip), { ocr })).tracks;
  }

  it("is found and erased, though the detector misses it at the size the reading pass reads", async () => {
    const tracks = await tracksOf(HANDLE_CORNER);
    const texts = tracks.map(({ text, erase }) => `${text}:${erase}`);
    const handle = tracks.find(({ text }) => editDistance(text.toLowerCase(), "itynews") <= 2);
    expect(handle, JSON.stringify(texts)).toBeDefined();
    expect(handle?.erase).toBe(true);
    // In the corner, where the handle is.
    const box = handle?.track.detections[0]?.box;
    expect(box && box.x >= 512 && box.y + box.height <= 96).toBe(true);
  }, 120_000);

  it("is erased whole where the detector finds only its end: the letters read past the box count", async () => {
    const tracks = await tracksOf(HANDLE_OVER_WALL);
    const texts = tracks.map(
      ({ text, erase, track }) => `${text}:${erase}:${JSON.stringify(track.detections[0]?.box)}`,
    );
    const handle = tracks.find(({ text }) => text.toLowerCase().includes("style") || text.includes("stvle"));
    expect(handle, JSON.stringify(texts)).toBeDefined();
    expect(handle?.erase).toBe(true);
    // Every sighting's box starts at the "@" (x 565), not at the door (x 640), and ends past "style".
    for (const { box } of handle?.track.detections ?? []) {
      expect(box.x, JSON.stringify(texts)).toBeLessThanOrEqual(566);
      expect(box.x, JSON.stringify(texts)).toBeGreaterThan(545);
      expect(box.x + box.width).toBeGreaterThanOrEqual(726);
    }
  }, 120_000);
});

/**
 * The bottom-left corner of a night city shot (cityCC0.mpg, the bench's city footage) at 720x404: a
 * striped tower, 240x200, with no overlay. The camera tilting over it and a see-through handle drawn
 * on top make a corner where the detector, frame by frame, finds a few letters at most.
 */
const TOWER_STRIPES = path.resolve(import.meta.dirname, "../fixtures/tilt-under-handle.png");

describe("a see-through handle the camera moves the scene under", () => {
  let dir: string;
  let ocr: OcrEngine;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "screen-fixed-"));
    ocr = await createOcrEngine();
  }, 60_000);
  afterAll(async () => {
    await ocr?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The tracks of `seconds` at 10 fps of a 720x404 night sky with the tower in its bottom-left
   * corner, the camera tilting up 24 px a second over it for four seconds and then 6, and
   * "@skyline" over the tower in white at 60 % with a faint shadow (the bench's handle style) when
   * `handle` is set.
   */
  async function clipOf(name: string, handle: boolean, seconds: number): Promise<string> {
    const clip = path.join(dir, `${name}.mp4`);
    const drawn = handle
      ? ",drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:text='@skyline'" +
        ":fontsize=16:x=36:y=364:fontcolor=white:alpha=0.6:shadowx=1:shadowy=1:shadowcolor=black@0.4"
      : "";
    const sky = `color=c=0x3a3450:s=720x404:r=10,trim=duration=${seconds}`;
    await run("ffmpeg", [
      ...["-v", "error", "-y", "-f", "lavfi", "-i", sky],
      ...["-loop", "1", "-framerate", "10", "-i", TOWER_STRIPES, "-filter_complex"],
      `[1:v]crop=240:90:0:'110-min(t,4)*24-max(0,t-4)*6'[tower];[0:v][tower]overlay=0:314:shortest=1${drawn},format=yuv420p`,
      ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", clip],
    ]);
    return clip;
  }

  async function tracksOf(name: string, handle: boolean, seconds = 4) {
    const clip = await clipOf(name, handle, seconds);
    return (await analyseVideo(clip, await probeVideo(clip), { ocr })).tracks;
  }

  /**
   * The handle clip's frames as the reading pass keeps a window of them, two a second, each with the
   * camera's motion from the one before (the scene carried 12 px up) and the lines `linesOn` says the
   * detector read on it.
   */
  async function windowOf(linesOn: (read: number) => TextLine[]): Promise<WindowFrame[]> {
    const clip = await clipOf("handle-window", true, 4);
    const { stdout } = await run(
      "ffmpeg",
      [
        "-v",
        "error",
        "-i",
        clip,
        "-vf",
        "select=not(mod(n\\,5))",
        "-fps_mode",
        "passthrough",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-",
      ],
      { encoding: "buffer", maxBuffer: 1 << 26 },
    );
    const bytes = 720 * 404 * 3;
    return Array.from({ length: stdout.length / bytes }, (_, read) => ({
      index: read * 5,
      frame: {
        width: 720,
        height: 404,
        data: new Uint8Array(stdout.subarray(read * bytes, (read + 1) * bytes)),
      },
      lines: linesOn(read),
      motion: read === 0 ? undefined : [1, 0, 0, 0, 1, -12, 0, 0, 1],
    }));
  }

  /** A line the detector read in the handle's place. */
  const readInPlace = (text: string, confidence: number): TextLine => ({
    ...rectBox({ x: 35, y: 363, width: 78, height: 19 }, 0.9),
    text,
    confidence,
    glyphs: [],
  });

  it("is found on the mean of the frames read, where the moving scene blurs away, and erased throughout", async () => {
    const tracks = await tracksOf("handle", true);
    const texts = tracks.map(({ text, track }) => `${text}:${track.first}-${track.last}`);
    const handle = tracks.find(({ text }) => editDistance(text.toLowerCase(), "@skyline") <= 2);
    expect(handle, JSON.stringify(texts)).toBeDefined();
    expect(handle?.erase).toBe(true);
    expect([handle?.track.first, handle?.track.last]).toEqual([0, 39]);
    const box = handle?.track.detections[0]?.box;
    expect(box && box.x < 40 && box.x + box.width > 110 && box.y > 340, JSON.stringify(box)).toBe(true);
  }, 120_000);

  it("stays erased to the last frame after the camera slows, where the mean of the last frames is sharp all over", async () => {
    const tracks = await tracksOf("handle-then-still", true, 6);
    const texts = tracks.map(({ text, track }) => `${text}:${track.first}-${track.last}`);
    const handle = tracks.find(({ text }) => editDistance(text.toLowerCase(), "@skyline") <= 2);
    expect(handle?.erase, JSON.stringify(texts)).toBe(true);
    expect([handle?.track.first, handle?.track.last], JSON.stringify(texts)).toEqual([0, 59]);
  }, 120_000);

  it("is found on the mean where a few frames caught it in pieces, and not where a frame surely read other words there", async () => {
    const options = { minBoxScore: 0.6, minReadConfidence: 0.5 };
    // Read unsurely in pieces on two of eight frames: the mean's line goes on the others.
    const pieces = await windowOf((read) => (read === 2 || read === 5 ? [readInPlace("skyli", 0.7)] : []));
    const { found } = await screenFixedLines(ocr, pieces, options, []);
    const texts = found.map(({ index, line }) => `${index}:${line.text}`);
    expect(found.length, JSON.stringify(texts)).toBeGreaterThanOrEqual(5);
    expect(
      found.every(({ line }) => editDistance(line.text.toLowerCase(), "@skyline") <= 2),
      JSON.stringify(texts),
    ).toBe(true);
    // A frame that surely read other words in that place: the mean holds lines shown one after
    // another there over each other (words one by one), and is no line of its own.
    const otherWords = await windowOf((read) => (read === 2 ? [readInPlace("SUNSET", 0.99)] : []));
    expect((await screenFixedLines(ocr, otherWords, options, [])).found).toEqual([]);
  }, 120_000);

  it("leaves nothing to erase when the scene moves with no handle over it", async () => {
    expect(await tracksOf("no-handle", false)).toEqual([]);
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

describe("a line whose detector box cut off its first letters", () => {
  /** The handle corner as RGB: "@citynews" from x 88 to 224, rows 28 to 48. */
  const corner = () => fixtureFrame(HANDLE_CORNER, 256, 96);
  /** The box the detector gives the handle, read "itynews": it starts after "@c". */
  const ITYNEWS = { x: 129, y: 29, width: 97, height: 19 };
  /** Where "@c" is drawn (over a sign's edge, a pole and a red door). */
  const AT_C = { x0: 90, x1: 127, y0: 30, y1: 48 };
  /** Where "itynews" is drawn. */
  const ITYNEWS_LETTERS = { x0: 130, x1: 224, y0: 30, y1: 48 };

  const markedIn = (mask: Uint8Array, width: number, area: typeof AT_C) => {
    let marked = 0;
    for (let y = area.y0; y < area.y1; y++)
      for (let x = area.x0; x < area.x1; x++) marked += mask[y * width + x] === 255 ? 1 : 0;
    return marked / ((area.x1 - area.x0) * (area.y1 - area.y0));
  };

  /** Share of the pixels of `area` brighter (luma) than `luma` that are marked. */
  const markedBrighterThan = (
    image: { width: number; data: Uint8Array },
    mask: Uint8Array,
    area: typeof AT_C,
    luma: number,
  ) => {
    let bright = 0;
    let marked = 0;
    for (let y = area.y0; y < area.y1; y++) {
      for (let x = area.x0; x < area.x1; x++) {
        const i = (y * image.width + x) * 3;
        const value =
          0.299 * (image.data[i] ?? 0) + 0.587 * (image.data[i + 1] ?? 0) + 0.114 * (image.data[i + 2] ?? 0);
        if (value <= luma) continue;
        bright += 1;
        marked += mask[y * image.width + x] === 255 ? 1 : 0;
      }
    }
    return marked / Math.max(1, bright);
  };

  it("is followed over the faint letters before it, and no further", () => {
    const image = corner();
    const ends = (cutOffEnds(image, ITYNEWS) ?? []).map(({ rect }) => rect);
    // "@" starts at 85 (its shadow a little before): one stretch, from there to the box.
    expect(ends).toHaveLength(1);
    expect(ends[0]?.x).toBeGreaterThanOrEqual(78);
    expect(ends[0]?.x).toBeLessThanOrEqual(90);
    expect((ends[0]?.x ?? 0) + (ends[0]?.width ?? 0)).toBe(ITYNEWS.x);
    const mask = new Uint8Array(image.width * image.height);
    markTextLine(image, ITYNEWS, mask);
    // Without the ends followed, none of "@c" was marked; the rest of the line is marked as before:
    // its letters, which fill most of their box, the gaps between them less.
    expect(markedIn(mask, image.width, AT_C)).toBeGreaterThan(0.3);
    expect(markedIn(mask, image.width, ITYNEWS_LETTERS)).toBeGreaterThan(0.6);
    expect(markedIn(mask, image.width, { x0: 0, x1: 76, y0: 20, y1: 60 })).toBe(0);
    // The white sign behind "@" is brighter than any of the line's letters: its strokes are not
    // theirs (all of it was marked, and the fill smudged it, while the ends took every stroke).
    expect(markedBrighterThan(image, mask, AT_C, 240)).toBeLessThan(0.25);
  });

  it("is not followed along the picture's own edges", () => {
    // Letters, then a pole and window frames beside them that run above and below the line's band.
    const width = 200;
    const height = 60;
    const data = new Uint8Array(width * height * 3).fill(120);
    const set = (x: number, y: number, v: number) =>
      data.fill(v, (y * width + x) * 3, (y * width + x) * 3 + 3);
    for (let y = 24; y < 38; y++) for (let x = 100; x < 180; x++) if ((x - 100) % 8 < 3) set(x, y, 230);
    for (let y = 0; y < height; y++) for (const x of [60, 61, 75, 76, 88, 89]) set(x, y, 230);
    const box = { x: 100, y: 22, width: 80, height: 18 };
    expect(cutOffEnds({ width, height, data }, box)).toEqual([]);
  });

  it("grows a line whose ends carry nothing more no further there than anywhere else", () => {
    // Plain letters (bars) right up to both ends of their box, over a plain picture.
    const width = 200;
    const height = 70;
    const data = new Uint8Array(width * height * 3).fill(90);
    const rows = { from: 20, to: 44 };
    for (let y = rows.from; y < rows.to; y++)
      for (let x = 40; x < 160; x++)
        if ((x - 40) % 8 < 3 || x === 159) data.fill(235, (y * width + x) * 3, (y * width + x) * 3 + 3);
    const mask = new Uint8Array(width * height);
    // 30 px tall: the growth may reach 4 px, and the plain letters need 2 (their soft edge and one more).
    markTextLine({ width, height, data }, { x: 40, y: 17, width: 120, height: 30 }, mask);
    const textIn = (from: number, to: number) => {
      let text = 0;
      for (let y = rows.from; y < rows.to; y++)
        for (let x = from; x < to; x++) text += mask[y * width + x] === 255 ? 1 : 0;
      return text;
    };
    expect(textIn(160, 162)).toBe(2 * (rows.to - rows.from));
    // Past that, only margin (written back as it was), as beside every other letter: before the
    // ends were looked past, the full 4 px were text there.
    expect(textIn(162, 170)).toBe(0);
    expect(mask[30 * width + 162]).toBe(MARGIN_PIXEL);
  });
});

describe("reading past a line's ends", () => {
  /** A line as the reader gives it: `letters` at frame x positions on `strip`, with their probabilities. */
  const readOn = (strip: { x: number; width: number }, letters: Array<[number, number]>): TextLine => ({
    ...rectBox({ x: strip.x, y: 0, width: strip.width, height: 20 }, 1),
    text: "x".repeat(letters.length),
    confidence: 0.9,
    glyphs: letters.map(([x, probability]) => ({ along: (x - strip.x) / strip.width, probability })),
  });
  const lineOf = (box: { x: number; y: number; width: number; height: number }, letters: number) => ({
    ...rectBox(box, 0.9),
    text: "x".repeat(letters),
    confidence: 0.95,
    glyphs: [],
  });

  it("takes the letters the detector missed before the box, read surely though one between was not", () => {
    // "@streetstyle" over a wall and a door (the fixture above, at full size): the detector's box
    // holds "etstyle"; the strip past it reads "@stneetstvle".
    const box = { x: 641, y: 30, width: 86, height: 17 };
    const strip = stripOf(box, 768);
    const read = readOn(strip, [
      [575, 1],
      [592, 0.98],
      [605, 1],
      [622, 0.35],
      [628, 0.86],
      [645, 0.99],
      [658, 0.99],
      [672, 0.99],
      [685, 0.99],
      [698, 0.51],
      [708, 0.99],
      [718, 0.99],
    ]);
    const reach = reachOf({ ...lineOf(box, 7), glyphs: read.glyphs.slice(5) }, strip, read);
    // The "@" is drawn from x 565: the box now starts before it, and not far into the wall.
    expect(box.x - reach.left).toBeLessThanOrEqual(566);
    expect(box.x - reach.left).toBeGreaterThan(550);
    expect(reach.right).toBe(0);
  });

  it("takes nothing where the picture beside a caption reads as unsure letters with a sure one among them", () => {
    // "BOOK NOW" between towers (real-city): "WVLBOOKNOW OEHEET" on the strip.
    const box = { x: 234, y: 239, width: 175, height: 32 };
    const strip = stripOf(box, 720);
    const read = readOn(strip, [
      [98, 0.89],
      [151, 0.65],
      [205, 0.58],
      [242, 0.96],
      [263, 0.97],
      [290, 0.97],
      [311, 0.99],
      [338, 0.99],
      [364, 0.97],
      [391, 0.96],
      [412, 0.46],
      [444, 0.61],
      [476, 0.43],
      [514, 0.52],
      [540, 0.34],
      [556, 0.25],
      [567, 0.82],
    ]);
    expect(reachOf({ ...lineOf(box, 7), glyphs: read.glyphs.slice(3, 10) }, strip, read)).toEqual(NO_REACH);
  });
});
