import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rgbFrames } from "../../bench/raw-frames";
import { cleanVideo, windowRadius } from "../../gpu-worker/engine/clean";
import type { SizedRect } from "../../gpu-worker/engine/geometry";
import { probeVideo } from "../../gpu-worker/engine/media/probe";
import { createOcrEngine, type OcrEngine, type RgbFrame } from "../../gpu-worker/engine/ocr/ocr";
import { analyseVideo } from "../../gpu-worker/engine/pipeline/analyse";
import { editDistance } from "../helpers/edit-distance";
import { ffmpegChildren } from "../helpers/ffmpeg-children";

const run = promisify(execFile);
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/** From Debian's fonts-dejavu-core, which ffmpeg's fontconfig dependency installs. */
const FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";
const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;
const SIZE = { width: WIDTH, height: HEIGHT };
/** Pixels around a caption's letters that still belong to its area (the engine grows its masks a little). */
const AREA_MARGIN = 16;

/**
 * A camera panning over a softened fractal: the background moves under the captions, as in most ads, so
 * what a caption hides on one frame shows on others.
 */
const FRACTAL =
  "mandelbrot=s=1280x720:start_x=-0.7436438870:start_y=0.1318259042:start_scale=0.03:end_pts=1" +
  ":maxiter=300:outer=normalized_iteration_count:inner=mincol,gblur=sigma=1,trim=end_frame=1";
/** The still picture repeated as a video of FPS frames a second. */
const LOOPED = `loop=loop=-1:size=1,settb=1/${FPS},setpts=N,fps=${FPS}`;
const PAN = `${FRACTAL},${LOOPED},crop=${WIDTH}:${HEIGHT}:x='60+t*110':y='200'`;

interface Caption {
  text: string;
  size: number;
  y: string;
  /** Drawn on a shaded, semi-transparent box, like a hook. */
  box?: boolean;
  /** The box's colour and opacity, where not black@0.5. */
  boxColour?: string;
}

const SALE: Caption = { text: "SALE 50% OFF", size: 40, y: "h-text_h-30" };
const WAIT: Caption = { text: "WAIT FOR IT", size: 34, y: "30", box: true };

/** The caption as drawtext; `outline` is the outline's colour (white makes the outline visible on black). */
function drawtext(caption: Caption, frames: [number, number], outline = "black"): string {
  const options = [
    `fontfile=${FONT_FILE}`,
    `text='${caption.text}'`,
    "expansion=none", // "%" is drawtext's escape character otherwise
    `fontsize=${caption.size}`,
    "fontcolor=white",
    "borderw=3",
    `bordercolor=${outline}`,
    ...(caption.box ? ["box=1", `boxcolor=${caption.boxColour ?? "black@0.5"}`, "boxborderw=10"] : []),
    "x=(w-text_w)/2",
    `y=${caption.y}`,
    `enable='between(n,${frames[0]},${frames[1]})'`,
  ];
  return `drawtext=${options.join(":")}`;
}

/** drawtext's options for white outlined text in the test font, placed at x, y (expressions). */
const whiteText = (text: string, size: number, outline: number, x: string, y: string) => [
  `fontfile=${FONT_FILE}`,
  `text='${text}'`,
  `fontsize=${size}`,
  "fontcolor=white",
  `borderw=${outline}`,
  `x=${x}`,
  `y=${y}`,
];

async function ffmpeg(args: string[]): Promise<Buffer> {
  const { stdout } = await run("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...args], {
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** A pan with captions on the given frames (none: the same pan bare), AAC audio, H.264 as ads arrive. */
async function makeClip(file: string, seconds: number, captions: Array<[Caption, [number, number]]>) {
  const overlays = captions.map(([caption, frames]) => drawtext(caption, frames));
  const video = [PAN, `trim=end_frame=${seconds * FPS}`, "format=yuv420p", ...overlays].join(",");
  await ffmpeg([
    ...["-f", "lavfi", "-i", video],
    ...["-f", "lavfi", "-t", String(seconds), "-i", "sine=frequency=440:sample_rate=48000"],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", "-c:a", "aac"],
    file,
  ]);
}

/** Where a caption lies: its letters, outline and box drawn alone in white on black, grown by the margin. */
const captionArea = (caption: Caption) =>
  drawnArea(`color=black:s=${WIDTH}x${HEIGHT},${drawtext(caption, [0, 0], "white")}`);

/** The box around what a lavfi graph draws in white on black (a WIDTH x HEIGHT frame), grown by the margin. */
async function drawnArea(graph: string): Promise<SizedRect> {
  const data = await ffmpeg([
    ...["-f", "lavfi", "-i", graph],
    ...["-frames:v", "1", "-pix_fmt", "gray", "-f", "rawvideo", "-"],
  ]);
  let [left, top, right, bottom] = [WIDTH, HEIGHT, -1, -1];
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      if (!data[y * WIDTH + x]) continue;
      [left, top, right, bottom] = [
        Math.min(left, x),
        Math.min(top, y),
        Math.max(right, x),
        Math.max(bottom, y),
      ];
    }
  }
  const x = Math.max(0, left - AREA_MARGIN);
  const y = Math.max(0, top - AREA_MARGIN);
  return {
    x,
    y,
    width: Math.min(WIDTH, right + AREA_MARGIN + 1) - x,
    height: Math.min(HEIGHT, bottom + AREA_MARGIN + 1) - y,
  };
}

const inside = (area: SizedRect, x: number, y: number) =>
  x >= area.x && x < area.x + area.width && y >= area.y && y < area.y + area.height;

const overlaps = (a: SizedRect, b: SizedRect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Sum of squared differences and sample count of two RGB frames, over the pixels `counts` takes. */
function squaredError(
  a: Uint8Array,
  b: Uint8Array,
  counts: (x: number, y: number) => boolean,
): { squared: number; samples: number } {
  let squared = 0;
  let samples = 0;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      if (!counts(x, y)) continue;
      for (let c = (y * WIDTH + x) * 3, end = c + 3; c < end; c++)
        squared += ((a[c] as number) - (b[c] as number)) ** 2;
      samples += 3;
    }
  }
  return { squared, samples };
}

const psnr = ({ squared, samples }: { squared: number; samples: number }) =>
  squared === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255 * samples) / squared);

/** Input and output decoded side by side, frame by frame. */
async function* framePairs(input: string, output: string): AsyncGenerator<[number, Uint8Array, Uint8Array]> {
  const outputFrames = rgbFrames(output, SIZE);
  let index = 0;
  try {
    for await (const before of rgbFrames(input, SIZE)) {
      const after = await outputFrames.next();
      if (after.done) throw new Error(`${output} ends at frame ${index}`);
      yield [index++, before, after.value];
    }
  } finally {
    // A consumer that stops early must not leave the output's decoder behind.
    await outputFrames.return(undefined);
  }
}

async function probe(file: string) {
  const { stdout } = await run("ffprobe", [
    ...["-v", "error", "-count_packets", "-of", "json", "-show_format"],
    ...["-show_entries", "stream=codec_type,codec_name,r_frame_rate,avg_frame_rate,nb_read_packets", file],
  ]);
  const report = JSON.parse(stdout) as {
    streams: Array<Record<string, string>>;
    format: { duration: string };
  };
  const video = report.streams.find((stream) => stream.codec_type === "video");
  const audio = report.streams.find((stream) => stream.codec_type === "audio");
  return { video, audio, duration: Number(report.format.duration) };
}

/** MD5 of the audio packets as stored: equal only when the audio was copied untouched. */
async function audioPacketsMd5(file: string): Promise<string> {
  return (await ffmpeg(["-i", file, "-map", "0:a", "-c", "copy", "-f", "md5", "-"])).toString().trim();
}

/** Lines read in an area of the frame (the detector's boxes that overlap it, recognised). */
async function linesIn(ocr: OcrEngine, frame: RgbFrame, area: SizedRect): Promise<string[]> {
  const [boxes = []] = await ocr.detect([frame]);
  const there = boxes.filter((box) => overlaps(box.box, area));
  return (await ocr.recognize(frame, there)).map((line) => line.text);
}

const normalise = (text: string) => text.toUpperCase().replace(/[^A-Z0-9%]/g, "");

let workDir: string;
let ocr: OcrEngine;
const file = (name: string) => path.join(workDir, name);

/** The caption is on frames 20 to 54 of 75 (0.8 s to 2.2 s of 3 s). */
const SALE_FRAMES: [number, number] = [20, 54];

beforeAll(async () => {
  if (!existsSync(FONT_FILE)) throw new Error(`${FONT_FILE} is missing: install Debian's fonts-dejavu-core`);
  workDir = await mkdtemp(path.join(tmpdir(), "clean-test-"));
  ocr = await createOcrEngine();
  await makeClip(file("caption.mp4"), 3, [[SALE, SALE_FRAMES]]);
  await makeClip(file("caption-free.mp4"), 3, []);
  await makeClip(file("two-captions.mp4"), 2, [
    [WAIT, [0, 49]],
    [SALE, [0, 49]],
  ]);
});

afterAll(async () => {
  await ocr?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const FRAME_BYTES = WIDTH * HEIGHT * 3;

/**
 * Bytes that the encoder of `output` (the ffmpeg reading our frames on its stdin) has read so far,
 * from its /proc/<pid>/io; synchronous, for a progress callback.
 */
function encoderBytesRead(output: string): number {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (!args.includes("pipe:0") || !args.some((arg) => arg.startsWith(output))) continue;
      return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${name}/io`, "utf8"))?.[1]);
    } catch {
      // The process ended between the listing and the reading.
    }
  }
  return Number.NaN;
}

describe("cleanVideo on a panning clip with a caption", () => {
  let summary: Awaited<ReturnType<typeof cleanVideo>>;
  let area: SizedRect;
  const cleaningReports: Array<{ fraction: number; framesRead: number }> = [];

  beforeAll(async () => {
    area = await captionArea(SALE);
    const output = file("caption-clean.mp4");
    summary = await cleanVideo(file("caption.mp4"), output, {
      ocr,
      onProgress: (stage, fraction) => {
        if (stage === "cleaning")
          cleaningReports.push({ fraction, framesRead: encoderBytesRead(output) / FRAME_BYTES });
      },
    });
  });

  it("counts the cleaning stage's progress by the frames written, not read", () => {
    // A caption frame is written only after its window's frames are read (20 here, and a few more):
    // progress by frames read said 100 % with the last 21 frames of this clip still to fill.
    expect(cleaningReports.at(-1)?.fraction).toBe(1);
    for (const { fraction, framesRead } of cleaningReports) {
      // The frame just written may still be in the pipe.
      expect(framesRead, `at ${fraction}`).toBeGreaterThanOrEqual(fraction * 75 - 1);
    }
  });

  it("erases the caption: the detector finds no text where the input had it", async () => {
    expect(summary.linesErased).toBeGreaterThanOrEqual(1);
    for await (const [index, before, after] of framePairs(file("caption.mp4"), file("caption-clean.mp4"))) {
      if (index < SALE_FRAMES[0] || index > SALE_FRAMES[1] || index % 5 !== 0) continue;
      const inputFrame = { ...SIZE, data: before };
      const [boxesBefore = []] = await ocr.detect([inputFrame]);
      expect(
        boxesBefore.some((box) => overlaps(box.box, area)),
        `frame ${index} of the input`,
      ).toBe(true);
      const [boxesAfter = []] = await ocr.detect([{ ...SIZE, data: after }]);
      expect(
        boxesAfter.filter((box) => overlaps(box.box, area)).map((box) => box.box),
        `frame ${index}`,
      ).toEqual([]);
    }
  });

  it("leaves the rest of the picture as it was on every frame, and frames without the caption near-identical", async () => {
    // Frame by frame: one badly changed frame must not average away over the other 74.
    for await (const [index, before, after] of framePairs(file("caption.mp4"), file("caption-clean.mp4"))) {
      const withCaption = index >= SALE_FRAMES[0] && index <= SALE_FRAMES[1];
      const counts = withCaption ? (x: number, y: number) => !inside(area, x, y) : () => true;
      expect(psnr(squaredError(before, after, counts)), `frame ${index}`).toBeGreaterThanOrEqual(40);
    }
  });

  it("fills the caption's area with what the same pan without the caption shows there, on every frame", async () => {
    let compared = 0;
    for await (const [index, bare, after] of framePairs(
      file("caption-free.mp4"),
      file("caption-clean.mp4"),
    )) {
      if (index < SALE_FRAMES[0] || index > SALE_FRAMES[1]) continue;
      const filled = psnr(squaredError(bare, after, (x, y) => inside(area, x, y)));
      // About 38 dB borrowed from neighbouring frames here; a spatial smear of the whole area is 21 dB.
      expect(filled, `frame ${index}`).toBeGreaterThanOrEqual(30);
      compared++;
    }
    expect(compared).toBe(SALE_FRAMES[1] - SALE_FRAMES[0] + 1);
  });

  it("keeps the frame count, frame rate, duration and the audio packets", async () => {
    const before = await probe(file("caption.mp4"));
    const after = await probe(file("caption-clean.mp4"));
    expect(summary.frames).toBe(75);
    expect(after.video?.nb_read_packets).toBe(before.video?.nb_read_packets);
    expect(after.video?.r_frame_rate).toBe(before.video?.r_frame_rate);
    expect(after.video?.avg_frame_rate).toBe(before.video?.avg_frame_rate);
    expect(Math.abs(after.duration - before.duration)).toBeLessThan(1 / FPS);
    expect(after.audio?.codec_name).toBe(before.audio?.codec_name);
    expect(await audioPacketsMd5(file("caption-clean.mp4"))).toBe(await audioPacketsMd5(file("caption.mp4")));
  });
});

describe("analyseVideo", () => {
  it("reads a caption that stays on screen once, not again on every sample that sees it", async () => {
    // The caption is on every frame of this clip, so no sample is read to find where it starts or ends.
    const isSale = (text: string) => editDistance(normalise(text), "SALE50%OFF") <= 2;
    let saleReads = 0;
    const counting: OcrEngine = {
      ...ocr,
      recognizeBoxes: async (items) => {
        const lines = await ocr.recognizeBoxes(items);
        saleReads += lines.filter(({ text }) => isSale(text)).length;
        return lines;
      },
    };
    const clip = file("two-captions.mp4");
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr: counting });
    const caption = analysis.tracks.find(({ text }) => isSale(text));
    expect(caption, JSON.stringify(analysis.tracks.map(({ text }) => text))).toBeDefined();
    expect(caption?.erase).toBe(true);
    expect(caption?.track.detections.length).toBeGreaterThanOrEqual(3);
    // Read on the first sample only: its box, then a strip past its ends (read-ends.ts).
    expect(saleReads).toBe(2);
  });
});

describe("analyseVideo on a sign filmed in the scene", () => {
  it("keeps a sign that pans with the background and erases the caption over the same shot", async () => {
    // The sign is drawn on the picture before the camera's crop, so it moves with the scene.
    const sign = whiteText("OPEN 24 HOURS", 36, 2, "320", "330").join(":");
    const filmed = PAN.replace(",crop=", `,drawtext=${sign},crop=`);
    const clip = file("scene-sign.mp4");
    await ffmpeg([
      ...[
        "-f",
        "lavfi",
        "-i",
        `${filmed},trim=end_frame=${2 * FPS},format=yuv420p,${drawtext(SALE, [0, 49])}`,
      ],
      ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", clip],
    ]);
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr });
    const texts = JSON.stringify(analysis.tracks.map(({ text, erase }) => ({ text, erase })));
    const signTrack = analysis.tracks.find(({ text }) => editDistance(normalise(text), "OPEN24HOURS") <= 2);
    const caption = analysis.tracks.find(({ text }) => editDistance(normalise(text), "SALE50%OFF") <= 2);
    expect(signTrack, texts).toBeDefined();
    expect(signTrack?.erase, texts).toBe(false);
    expect(caption?.erase, texts).toBe(true);
  });
});

/** A printed sign's plate in the still picture; `colour` fills it. */
const signPlate = (colour: string) => `drawbox=x=400:y=250:w=360:h=80:color=${colour}:t=fill`;
const SIGN = `${signPlate("0x203050")},drawtext=${whiteText("OPEN 24 HOURS", 36, 0, "415", "272").join(":")}`;
/** What a camera does to the picture it films: seen at an angle, lit unevenly, softened by the lens. */
const FILMED =
  "perspective=x0=0:y0=0:x1=1280:y1=40:x2=0:y2=720:x3=1280:y3=680:sense=destination," +
  "geq=lum='lum(X,Y)*(0.75+0.35*X/W)':cb='cb(X,Y)':cr='cr(X,Y)',gblur=sigma=1.3";
const STILL_CROP = `crop=${WIDTH}:${HEIGHT}:300:200`;
/** The caption is on frames 10 to 49 of the still shot's 50. */
const STILL_SALE_FRAMES: [number, number] = [10, 49];

/**
 * Two seconds of a still camera filming the picture (with the sign, or without), with sensor noise
 * that changes from frame to frame, and the given drawtext filters drawn over it after filming.
 */
async function makeStillClip(name: string, sign: boolean, overlays: string[]): Promise<string> {
  const filmed = [FRACTAL, ...(sign ? [SIGN] : []), FILMED, LOOPED, STILL_CROP, `trim=end_frame=${2 * FPS}`];
  const video = [...filmed, "noise=alls=10:allf=t+u", "format=yuv420p", ...overlays].join(",");
  await ffmpeg([
    ...["-f", "lavfi", "-i", video],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", file(name)],
  ]);
  return file(name);
}

/** No word of the SALE caption is read in `area` on any fifth frame of the output it is on. */
async function expectCaptionGone(input: string, output: string, area: SizedRect) {
  let read = 0;
  for await (const [index, before, after] of framePairs(input, output)) {
    if (index < STILL_SALE_FRAMES[0] || index % 5 !== 0) continue;
    const readIn = async (data: Uint8Array) =>
      normalise((await linesIn(ocr, { ...SIZE, data }, area)).join(""));
    expect(await readIn(before), `frame ${index} of the input`).toMatch(/SALE|OFF/);
    const left = await readIn(after);
    expect(left, `frame ${index} reads "${left}"`).not.toMatch(/SALE|50|OFF/);
    read++;
  }
  expect(read).toBe(8);
}

describe("cleanVideo on a still shot", () => {
  // The camera never moves, so motion cannot tell the sign from the caption: only how they look can.
  it("keeps a printed sign filmed in the scene on every frame and erases the caption drawn over it", async () => {
    const input = await makeStillClip("still-sign.mp4", true, [drawtext(SALE, STILL_SALE_FRAMES)]);
    const output = file("still-sign-clean.mp4");
    await cleanVideo(input, output, { ocr });
    // The plate drawn alone in white on black and filmed the same way: where the sign is on screen.
    const sign = await drawnArea(`color=black:s=1280x720,${signPlate("white")},${FILMED},${STILL_CROP}`);
    let frames = 0;
    for await (const [index, before, after] of framePairs(input, output)) {
      // Untouched, the sign differs from the input by the re-encode alone (about 45 dB); erased, by 20 dB.
      expect(
        psnr(squaredError(before, after, (x, y) => inside(sign, x, y))),
        `frame ${index}`,
      ).toBeGreaterThan(35);
      frames++;
    }
    expect(frames).toBe(2 * FPS);
    await expectCaptionGone(input, output, await captionArea(SALE));
  });

  it("erases a plain crisp caption with no plate over the same noisy scene", async () => {
    // "%" is drawtext's escape character without expansion=none.
    const plain = [...whiteText("SALE 50% OFF", 40, 0, "(w-text_w)/2", "h-text_h-30"), "expansion=none"];
    const caption = `drawtext=${[...plain, `enable='gte(n,${STILL_SALE_FRAMES[0]})'`].join(":")}`;
    const input = await makeStillClip("still-plain.mp4", false, [caption]);
    const output = file("still-plain-clean.mp4");
    const summary = await cleanVideo(input, output, { ocr });
    expect(summary.linesErased).toBeGreaterThanOrEqual(1);
    await expectCaptionGone(
      input,
      output,
      await drawnArea(`color=black:s=${WIDTH}x${HEIGHT},drawtext=${plain.join(":")}`),
    );
  });
});

/** The purple sign under the middle of the SALE caption, in the still shots below. */
const PURPLE_SIGN = { x: 270, y: 285, width: 100, height: 50 };

/**
 * A still shot of `frames` frames with the sign; from frame `cut` on (if given), another shot: blue
 * sky above the same picture, without the sign. Around the caption's letters the two shots look
 * alike but for the sign's stretch: only the cut tells that the purple is gone.
 */
function stillShots(frames: number, cut?: number): string {
  const sign = `drawbox=x=${PURPLE_SIGN.x}:y=${PURPLE_SIGN.y}:w=${PURPLE_SIGN.width}:h=${PURPLE_SIGN.height}:color=0x7020c0@1:t=fill`;
  const still = `${FRACTAL},${LOOPED},crop=${WIDTH}:${HEIGHT}:x=60:y=200,trim=end_frame=${frames},format=yuv420p`;
  if (cut === undefined) return `${still},${sign}`;
  const sky = `drawbox=x=0:y=0:w=${WIDTH}:h=240:color=0x3050a0@1:t=fill:enable='gte(n,${cut})'`;
  return `${still},${sky},${sign}:enable='lt(n,${cut})'`;
}

/** A lavfi graph encoded as the clips of these tests are (H.264, CRF 16), into the work folder. */
const encodeGraph = (graph: string, name: string) =>
  ffmpeg([
    ...["-f", "lavfi", "-i", graph],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", file(name)],
  ]);

describe("cleanVideo across a cut", () => {
  it("fills the caption after a cut from the new shot, with nothing of the shot before", async () => {
    // The caption stays on over the cut at frame 25 (stillShots).
    const cut = 25;
    const shots = stillShots(2 * FPS, cut);
    await encodeGraph(`${shots},${drawtext(SALE, [0, 2 * FPS - 1])}`, "cut.mp4");
    await encodeGraph(shots, "cut-free.mp4");
    await cleanVideo(file("cut.mp4"), file("cut-clean.mp4"), { ocr });
    const area = await captionArea(SALE);
    let compared = 0;
    for await (const [index, bare, after] of framePairs(file("cut-free.mp4"), file("cut-clean.mp4"))) {
      if (index < cut) continue;
      // With the purple carried over from the shot before, the first frame after the cut read 20 dB
      // here; filled from the new shot's own picture, 27.6 (and more on the frames after).
      const filled = psnr(squaredError(bare, after, (x, y) => inside(area, x, y)));
      expect(filled, `frame ${index}`).toBeGreaterThan(24);
      compared++;
    }
    expect(compared).toBe(2 * FPS - cut);
  });
});

/**
 * The PSNR inside the captions' area on each frame before `shown` - windowRadius, of the still shot
 * with the sign (stillShots, `seconds` long) cleaned of `captions`, which hide the sign until frame
 * `shown`: no frame of those frames' windows shows it.
 */
async function fillsBeforeShown(
  name: string,
  seconds: number,
  captions: Array<[Caption, [number, number]]>,
  shown: number,
): Promise<number[]> {
  const still = stillShots(seconds * FPS);
  await encodeGraph(
    [still, ...captions.map(([caption, frames]) => drawtext(caption, frames))].join(","),
    `${name}.mp4`,
  );
  await encodeGraph(still, `${name}-free.mp4`);
  await cleanVideo(file(`${name}.mp4`), file(`${name}-clean.mp4`), { ocr });
  const areas = await Promise.all(captions.map(([caption]) => captionArea(caption)));
  const filled: number[] = [];
  for await (const [index, bare, after] of framePairs(file(`${name}-free.mp4`), file(`${name}-clean.mp4`))) {
    if (index >= shown - windowRadius(WIDTH, HEIGHT)) break;
    filled.push(psnr(squaredError(bare, after, (x, y) => areas.some((area) => inside(area, x, y)))));
  }
  return filled;
}

describe("cleanVideo on lines that outlast the window", () => {
  it("fills a hook's first frames from the frame after it leaves, past their window", async () => {
    // A caption on from the first frame to frame 59: without the frame after it leaves, the first
    // frame read 15.5 dB (the sign inpainted away); lined up from it, 43.7, and 44 on the frames after.
    const filled = await fillsBeforeShown("hook", 3, [[SALE, [0, 59]]], 60);
    expect(filled).toHaveLength(60 - windowRadius(WIDTH, HEIGHT));
    for (const [index, dB] of filled.entries()) expect(dB, `frame ${index}`).toBeGreaterThan(30);
  });

  it("fills the first subtitle from the frame after the next one in its place leaves", async () => {
    // Two subtitles on solid plates, one after the other over the sign: the frame after the first
    // leaves shows the second's plate there; only the frame after the second leaves shows the sign.
    // With only the frame after the first, frames 0 to 49 read 18.0 dB (the sign inpainted away);
    // with the frame after the second too, 45.2 to 46.3.
    const plate = { box: true, boxColour: "0x202020@1" };
    // Of other lengths, so that they are read as two lines, not one whose words changed.
    const first: Caption = { ...SALE, ...plate, text: "50% OFF" };
    const next: Caption = { ...SALE, ...plate, text: "NEW IN STORE TODAY" };
    const filled = await fillsBeforeShown(
      "subtitles",
      5,
      [
        [first, [0, 49]],
        [next, [50, 99]],
      ],
      100,
    );
    expect(filled).toHaveLength(100 - windowRadius(WIDTH, HEIGHT));
    for (const [index, dB] of filled.entries()) expect(dB, `frame ${index}`).toBeGreaterThan(30);
  });
});

/**
 * How many of the frames before `cut` still show the sign's purple over it, of a clip whose caption
 * is on from the first frame to frame `leaves` - 1 over the still shots (stillShots) cut at `cut`.
 */
async function framesKeepingTheSign(name: string, cut: number, leaves: number): Promise<number> {
  const shots = stillShots(3 * FPS, cut);
  await encodeGraph(`${shots},${drawtext(SALE, [0, leaves - 1])}`, `${name}.mp4`);
  await cleanVideo(file(`${name}.mp4`), file(`${name}-clean.mp4`), { ocr });
  let purple = 0;
  for await (const [index, , after] of framePairs(file(`${name}.mp4`), file(`${name}-clean.mp4`))) {
    if (index >= cut) break;
    // Over the sign, the fill carries its purple (0x7020c0) in from between the letters, and its blue
    // stays above its green (a mean of 160, 91, 110 on the first frame); filled from the next shot's
    // orange fractal it would not (175, 114, 67).
    let [green, blue] = [0, 0];
    for (let y = PURPLE_SIGN.y; y < PURPLE_SIGN.y + PURPLE_SIGN.height; y++) {
      for (let x = PURPLE_SIGN.x; x < PURPLE_SIGN.x + PURPLE_SIGN.width; x++) {
        const at = (y * WIDTH + x) * 3;
        green += after[at + 1] as number;
        blue += after[at + 2] as number;
      }
    }
    if (blue > green) purple++;
  }
  return purple;
}

describe("cleanVideo on a hook and a cut", () => {
  // As above, but with a cut (stillShots): only the cut tells that the frame after the caption shows
  // another picture, and the frames of the first shot must not be filled from it.
  it("does not fill its first frames from the next shot when it leaves at the cut", async () => {
    expect(await framesKeepingTheSign("hook-cut", 60, 60)).toBe(60);
  });

  it("does not fill the frames before a cut it stays on over from the shot after", async () => {
    expect(await framesKeepingTheSign("hook-over-cut", 30, 60)).toBe(30);
  });
});

describe("analyseVideo on a line sliding in over the frame's edge", () => {
  it("starts erasing on the first frame a sliver of it shows, not when most of it is in", async () => {
    const slide = [
      ...whiteText("NEW DROP TODAY", 40, 3, "'-text_w+(t-0.4)*w*0.9'", "150"),
      "enable='gte(t,0.4)'",
    ].join(":");
    const clip = file("slide.mp4");
    await ffmpeg([
      ...["-f", "lavfi", "-i", `${PAN},trim=end_frame=${2 * FPS},format=yuv420p,drawtext=${slide}`],
      ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-pix_fmt", "yuv420p", clip],
    ]);
    // The truth: the line drawn alone on black, frame by frame.
    const alone = await ffmpeg([
      ...["-f", "lavfi", "-i", `color=black:s=${WIDTH}x${HEIGHT}:r=${FPS},drawtext=${slide}`],
      ...["-frames:v", "30", "-pix_fmt", "gray", "-f", "rawvideo", "-"],
    ]);
    const frameSize = WIDTH * HEIGHT;
    let firstShown = -1;
    for (let f = 0; f < 30 && firstShown < 0; f++) {
      if (alone.subarray(f * frameSize, (f + 1) * frameSize).some((value) => value > 40)) firstShown = f;
    }
    const analysis = await analyseVideo(clip, await probeVideo(clip), { ocr });
    const line = analysis.tracks.find(({ text }) => editDistance(normalise(text), "NEWDROPTODAY") <= 3);
    expect(line, JSON.stringify(analysis.tracks.map(({ text }) => text))).toBeDefined();
    expect(line?.erase).toBe(true);
    expect(line?.track.first).toBeLessThanOrEqual(firstShown);
    expect(line?.track.first).toBeGreaterThanOrEqual(firstShown - 1);
  });
});

describe("cleanVideo with texts", () => {
  it("erases only the named line: the top hook goes, the bottom caption still reads", async () => {
    await cleanVideo(file("two-captions.mp4"), file("two-captions-clean.mp4"), {
      texts: ["WAIT FOR IT"],
      ocr,
    });
    const top = await captionArea(WAIT);
    const bottom = await captionArea(SALE);
    for await (const [index, before, after] of framePairs(
      file("two-captions.mp4"),
      file("two-captions-clean.mp4"),
    )) {
      if (index % 10 !== 5) continue;
      const read = (data: Uint8Array, area: SizedRect) => linesIn(ocr, { ...SIZE, data }, area);
      expect(normalise((await read(before, top)).join("")), `frame ${index} of the input`).toBe("WAITFORIT");
      // The fractal beside the hook may yield a stray letter; no word of the hook may remain.
      const left = normalise((await read(after, top)).join(""));
      expect(left, `frame ${index} reads "${left}"`).not.toMatch(/WAIT|FOR/);
      const kept = normalise((await read(after, bottom)).join(""));
      expect(editDistance(kept, "SALE50%OFF"), `frame ${index} reads "${kept}"`).toBeLessThanOrEqual(2);
    }
  });
});

describe("cleanVideo on files it cannot clean", () => {
  const badInputs: Array<{
    name: string;
    file: string;
    codes: string[];
    make: (to: string) => Promise<unknown>;
  }> = [
    {
      name: "a text file",
      file: "not-a-video.mp4",
      codes: ["unsupported_format"],
      make: (to) => writeFile(to, "this is a text file, not a video\n".repeat(20)),
    },
    {
      name: "a truncated MP4",
      file: "truncated.mp4",
      codes: ["unreadable_video"],
      make: async (to) => {
        const whole = await readFile(file("caption.mp4"));
        await writeFile(to, whole.subarray(0, whole.length >> 1));
      },
    },
    {
      name: "an audio-only file",
      file: "audio-only.mp4",
      codes: ["unsupported_format"],
      make: (to) => ffmpeg(["-f", "lavfi", "-t", "1", "-i", "sine=frequency=440", "-c:a", "aac", to]),
    },
    {
      // ffmpeg writes no video track at all for a stream that never got a frame.
      name: "a video without frames",
      file: "zero-frames.mp4",
      codes: ["unreadable_video", "unsupported_format"],
      make: (to) =>
        ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "0", "-c:v", "libx264", to]),
    },
  ];

  it.each(badInputs)(
    "refuses $name with a clear error code and leaves no output and no ffmpeg",
    async (bad) => {
      await bad.make(file(bad.file));
      const output = file(`clean-${bad.file}`);
      const error = await cleanVideo(file(bad.file), output, { ocr }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(bad.codes).toContain((error as { code?: string }).code);
      expect(await outputsOf(output)).toEqual([]);
      expect(await ffmpegChildren()).toEqual([]);
    },
  );
});

describe("cleanVideo canceled", () => {
  it.each(["reading_text", "cleaning"])(
    "while %s: rejects with AbortError at once and leaves no output and no ffmpeg",
    async (stage) => {
      const controller = new AbortController();
      const output = file(`canceled-${stage}.mp4`);
      const cleaning = cleanVideo(file("caption.mp4"), output, {
        ocr,
        signal: controller.signal,
        onProgress: (at) => {
          if (at === stage) controller.abort();
        },
      });
      await expect(cleaning).rejects.toMatchObject({ name: "AbortError" });
      expect(await outputsOf(output)).toEqual([]);
      expect(await ffmpegChildren()).toEqual([]);
    },
  );
});

/** Files in the work folder named after `output`: the output itself or its partial file. */
async function outputsOf(output: string): Promise<string[]> {
  return (await readdir(workDir)).filter((name) => name.startsWith(path.basename(output)));
}

describe("npm run clean --json", () => {
  /** The command's exit code and output: a failing run is answered, not thrown, and its code kept. */
  const clean = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    run("npm", ["run", "-s", "clean", "--", ...args, "--json"], { cwd: REPO_ROOT }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it("prints one JSON line with the summary", async () => {
    await makeClip(file("short.mp4"), 1, [[SALE, [0, 24]]]);
    const { code, stdout } = await clean(file("short.mp4"), "-o", file("short-clean.mp4"));
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ output: file("short-clean.mp4"), frames: 25 });
  });

  it("prints one JSON line with the error code when the input is no video", async () => {
    await writeFile(file("notes.mp4"), "not a video\n".repeat(20));
    const { code, stdout } = await clean(file("notes.mp4"), "-o", file("notes-clean.mp4"));
    expect(code).toBe(1);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ error: { code: "unsupported_format" } });
  });

  it("prints its usage for --help, and usage with exit code 2 (no stack trace) for an unknown option", async () => {
    const help = await run("npm", ["run", "-s", "clean", "--", "--help"], { cwd: REPO_ROOT });
    expect(help.stdout).toMatch(/^usage: clean INPUT -o OUTPUT/);
    const wrong = await clean("--bogus", "x.mp4");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Unknown option '--bogus'[\s\S]*usage: clean/);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("the cleaning window", () => {
  it("reaches ±20 frames at 720p and fewer on larger frames, its frames and masks within 256 MB", () => {
    const budget = 256 * 1024 * 1024;
    const sizes = [
      [1280, 720, 20],
      [720, 1280, 20],
      [1920, 1080, 16],
      [3840, 2160, 4],
      [7680, 4320, 2],
    ] as const;
    for (const [width, height, radius] of sizes) {
      expect(windowRadius(width, height)).toBe(radius);
      // Past the minimum of ±2, the frames both sides (RGB and a mask byte each) fit the budget.
      if (radius > 2) expect(2 * radius * width * height * 4).toBeLessThanOrEqual(budget);
    }
  });
});
