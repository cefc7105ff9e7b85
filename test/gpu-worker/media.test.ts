import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BufferPool } from "../../gpu-worker/engine/media/buffer-pool";
import { decodeFramesAt } from "../../gpu-worker/engine/media/decoder";
import { decodeFrames, type Frame } from "../../gpu-worker/engine/media/frames";
import { MediaError, probeVideo, type VideoProbe } from "../../gpu-worker/engine/media/probe";
import { ffmpegChildren } from "../helpers/ffmpeg-children";
import { audioMd5, BT709, transcode } from "../helpers/media";

const run = promisify(execFile);

const SMALL_VIDEO = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25"];
/** Fidelity is measured at 640x360: at 320x240 the test pattern is denser in detail than real footage. */
const VIDEO_640 = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25"];
const TONE = ["-f", "lavfi", "-i", "sine=frequency=440"];
const FAST_H264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
/** The region the "cleaning" test paints black, on macroblock boundaries. */
const RECT = { left: 192, top: 128, right: 416, bottom: 288 };

let workDir: string;
const clips = {
  cfr: "",
  vfr: "",
  lateVideo: "",
  tagged: "",
  long: "",
  text: "",
  textAsMp4: "",
  truncated: "",
  audioOnly: "",
};

async function ffmpeg(args: string[], fileName: string): Promise<string> {
  const output = path.join(workDir, fileName);
  await run("ffmpeg", ["-v", "error", "-y", ...args, output]);
  return output;
}

async function ffprobe<T>(file: string, args: string[]): Promise<T> {
  const { stdout } = await run("ffprobe", ["-v", "error", "-of", "json", ...args, file], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}

interface StreamReport {
  streams: Array<{
    codec_type: string;
    codec_name: string;
    profile?: string;
    pix_fmt?: string;
    width?: number;
    height?: number;
    avg_frame_rate: string;
    time_base: string;
    nb_read_frames?: string;
    color_primaries?: string;
    color_transfer?: string;
    color_space?: string;
    color_range?: string;
    side_data_list?: Array<{ rotation?: number }>;
  }>;
  format: { duration: string };
}

function streamsOf(file: string): Promise<StreamReport> {
  return ffprobe<StreamReport>(file, ["-count_frames", "-show_streams", "-show_format"]);
}

function videoOf(report: StreamReport) {
  const video = report.streams.find((stream) => stream.codec_type === "video");
  if (!video) throw new Error("no video stream");
  return video;
}

async function framePtsSeconds(file: string): Promise<number[]> {
  const report = await ffprobe<{ frames: Array<{ pts_time: string }> }>(file, [
    ...["-select_streams", "v:0", "-show_entries", "frame=pts_time"],
  ]);
  return report.frames.map((frame) => Number(frame.pts_time));
}

/** The types of the top-level boxes of an MP4, in file order. */
async function topLevelBoxes(file: string): Promise<string[]> {
  const bytes = await readFile(file);
  const types: string[] = [];
  for (let offset = 0; offset + 8 <= bytes.length; ) {
    types.push(bytes.toString("latin1", offset + 4, offset + 8));
    const size = bytes.readUInt32BE(offset);
    offset += size === 1 ? Number(bytes.readBigUInt64BE(offset + 8)) : size;
  }
  return types;
}

/** Both files' frames side by side, decoded in lockstep (a few frames in memory at a time). */
async function* framePairs(first: string, second: string): AsyncGenerator<[Frame, Frame, VideoProbe]> {
  const [firstProbe, secondProbe] = await Promise.all([probeVideo(first), probeVideo(second)]);
  const firstFrames = decodeFrames(first, firstProbe);
  const secondFrames = decodeFrames(second, secondProbe);
  try {
    for (;;) {
      const [a, b] = await Promise.all([firstFrames.next(), secondFrames.next()]);
      expect(a.done).toBe(b.done);
      if (a.done || b.done) return;
      yield [a.value, b.value, firstProbe];
    }
  } finally {
    await Promise.all([firstFrames.return(undefined), secondFrames.return(undefined)]);
  }
}

/** PSNR in dB over the pixels `counts` selects (all by default). */
function psnr(
  a: Uint8Array,
  b: Uint8Array,
  width: number,
  counts = (_x: number, _y: number) => true,
): number {
  let squaredError = 0;
  let samples = 0;
  for (let pixel = 0; pixel < a.length / 3; pixel++) {
    if (!counts(pixel % width, Math.floor(pixel / width))) continue;
    for (let channel = pixel * 3; channel < pixel * 3 + 3; channel++) {
      squaredError += ((a[channel] as number) - (b[channel] as number)) ** 2;
    }
    samples += 3;
  }
  return squaredError === 0
    ? Number.POSITIVE_INFINITY
    : 10 * Math.log10((255 * 255 * samples) / squaredError);
}

function insideRect(x: number, y: number): boolean {
  return x >= RECT.left && x < RECT.right && y >= RECT.top && y < RECT.bottom;
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "adclean-media-"));
  const moovAtEnd = await ffmpeg(
    [...SMALL_VIDEO, ...TONE, "-t", "2", ...FAST_H264, "-c:a", "aac"],
    "end.mp4",
  );
  const truncated = path.join(workDir, "truncated.mp4");
  await writeFile(truncated, await readFile(moovAtEnd));
  await truncate(truncated, Math.floor((await stat(moovAtEnd)).size / 2));
  clips.truncated = truncated;
  clips.text = path.join(workDir, "notes.txt");
  clips.textAsMp4 = path.join(workDir, "notes.mp4");
  await writeFile(clips.text, "These are notes, not a video.\n".repeat(20));
  await writeFile(clips.textAsMp4, "These are notes, not a video.\n".repeat(20));

  [clips.cfr, clips.vfr, clips.lateVideo, clips.tagged, clips.long, clips.audioOnly] = await Promise.all([
    ffmpeg([...VIDEO_640, ...TONE, "-t", "3", ...FAST_H264, "-c:a", "aac"], "cfr.mp4"),
    // Frame durations cycle through 50, 50 and 20 ms.
    ffmpeg(
      [
        ...[...SMALL_VIDEO, "-t", "3"],
        ...["-vf", "settb=1/1000,setpts='(N*40+10*mod(N\\,3))/1000/TB'"],
        ...["-fps_mode", "passthrough", "-enc_time_base", "1/1000", ...FAST_H264],
      ],
      "vfr.mp4",
    ),
    // The video starts 0.5 s after the audio.
    ffmpeg([...SMALL_VIDEO, "-t", "2", ...FAST_H264], "video.mp4").then((video) =>
      ffmpeg(
        [...["-itsoffset", "0.5", "-i", video], ...TONE, "-t", "3", "-c:v", "copy", "-c:a", "aac"],
        "late.mp4",
      ),
    ),
    ffmpeg([...SMALL_VIDEO, ...TONE, "-t", "2", ...FAST_H264, ...BT709, "-c:a", "aac"], "colour.mp4").then(
      // ffmpeg 5 sets a display matrix from the rotate tag when it copies the stream.
      (colour) => ffmpeg(["-i", colour, "-c", "copy", "-metadata:s:v:0", "rotate=90"], "tagged.mp4"),
    ),
    ffmpeg(
      ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", ...TONE, "-t", "60", ...FAST_H264],
      "long.mp4",
    ),
    ffmpeg([...TONE, "-t", "1", "-c:a", "aac"], "audio-only.mp4"),
  ]);
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("decode and encode unchanged", () => {
  let output: string;
  beforeAll(async () => {
    output = path.join(workDir, "cfr-out.mp4");
    await transcode(clips.cfr, output);
  });

  it("keeps frame count, duration, fps and size", async () => {
    const [before, after] = await Promise.all([streamsOf(clips.cfr), streamsOf(output)]);
    expect(videoOf(after).nb_read_frames).toBe(videoOf(before).nb_read_frames);
    expect(videoOf(after).nb_read_frames).toBe("75");
    expect(Math.abs(Number(after.format.duration) - Number(before.format.duration))).toBeLessThanOrEqual(
      1 / 25,
    );
    expect(videoOf(after)).toMatchObject({
      avg_frame_rate: videoOf(before).avg_frame_rate,
      width: 640,
      height: 360,
    });
  });

  it("copies the audio packets bit for bit", async () => {
    const [before, after] = await Promise.all([audioMd5(clips.cfr), audioMd5(output)]);
    expect(after).toMatch(/^MD5=[0-9a-f]{32}$/);
    expect(after).toBe(before);
  });

  it("writes H.264 High, yuv420p, with moov before mdat", async () => {
    expect(videoOf(await streamsOf(output))).toMatchObject({
      codec_name: "h264",
      profile: "High",
      pix_fmt: "yuv420p",
    });
    const boxes = await topLevelBoxes(output);
    expect(boxes.indexOf("moov")).toBeGreaterThanOrEqual(0);
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
  });

  it("gives back frames within 40 dB PSNR of the input's", async () => {
    let frames = 0;
    for await (const [before, after, probe] of framePairs(clips.cfr, output)) {
      expect(after.ptsSeconds).toBeCloseTo(before.ptsSeconds, 3);
      expect(psnr(before.data, after.data, probe.width)).toBeGreaterThanOrEqual(40);
      frames++;
    }
    expect(frames).toBe(75);
  });
});

describe("decode and encode with a change", () => {
  it("changes the painted rectangle and keeps the rest within 40 dB PSNR", async () => {
    const output = path.join(workDir, "rect-out.mp4");
    await transcode(clips.cfr, output, {
      change: (frame, probe) => {
        for (let y = RECT.top; y < RECT.bottom; y++) {
          frame.data.fill(0, (y * probe.width + RECT.left) * 3, (y * probe.width + RECT.right) * 3);
        }
      },
    });
    for await (const [before, after, probe] of framePairs(clips.cfr, output)) {
      expect(psnr(before.data, after.data, probe.width, (x, y) => !insideRect(x, y))).toBeGreaterThanOrEqual(
        40,
      );
      const black = new Uint8Array(after.data.length);
      expect(psnr(black, after.data, probe.width, insideRect)).toBeGreaterThanOrEqual(30);
      expect(psnr(before.data, after.data, probe.width, insideRect)).toBeLessThan(15);
    }
  });
});

describe("timestamps", () => {
  it("keeps every frame's timestamp at a variable frame rate", async () => {
    const before = await framePtsSeconds(clips.vfr);
    const durations = new Set(
      before.slice(1).map((pts, index) => Math.round((pts - (before[index] ?? 0)) * 1000)),
    );
    expect(durations.size).toBeGreaterThan(1);

    const output = path.join(workDir, "vfr-out.mp4");
    const probe = await transcode(clips.vfr, output);
    expect(probe.variableFrameRate).toBe(true);
    const after = await framePtsSeconds(output);
    expect(after).toHaveLength(before.length);
    after.forEach((pts, index) => {
      expect(Math.abs(pts - (before[index] ?? Number.NaN))).toBeLessThan(0.001);
    });
  });

  it("decodes frames alone after a seek, as the whole decode gives them, and nothing between frames", async () => {
    for (const file of [clips.vfr, clips.lateVideo] as string[]) {
      const probe = await probeVideo(file);
      const all: Frame[] = [];
      for await (const frame of decodeFrames(file, probe)) all.push(frame);
      for (const index of [2, 37, all.length - 1]) {
        const pair = [all[index - 1], all[index]] as Frame[];
        const times = pair.map((frame) => frame.ptsSeconds);
        // Half the shortest gap around them: the frame before them lies past the tolerance.
        const gap = Math.min(
          ...[index - 1, index].map(
            (at) => (all[at] as Frame).ptsSeconds - (all[at - 1] as Frame).ptsSeconds,
          ),
        );
        const alone = await decodeFramesAt(file, probe, times, gap / 2);
        const name = `${path.basename(file)} frames ${index - 1} and ${index}`;
        expect(
          alone?.map((data, k) => Buffer.compare(data, (pair[k] as Frame).data)),
          name,
        ).toEqual([0, 0]);
        expect(await decodeFramesAt(file, probe, [(times[1] as number) - gap / 2], gap / 8)).toBeUndefined();
      }
    }
    expect(await ffmpegChildren()).toEqual([]);
  });

  it("counts the frames of the first video stream only, in a file with two", async () => {
    const second = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2"];
    const file = await ffmpeg(
      [...SMALL_VIDEO, ...second, "-map", "0:v", "-map", "1:v", "-t", "1", ...FAST_H264],
      "two-videos.mp4",
    );
    const probe = await probeVideo(file);
    expect({ stream: probe.streamIndex, width: probe.width, frames: probe.frameCount }).toEqual({
      stream: 0,
      width: 320,
      frames: 25,
    });
  });

  it("does not report a constant frame rate as variable", async () => {
    expect((await probeVideo(clips.cfr)).variableFrameRate).toBe(false);
  });

  it("keeps where the video starts relative to the audio", async () => {
    const output = path.join(workDir, "late-out.mp4");
    await transcode(clips.lateVideo, output);
    const startTimes = async (file: string) =>
      (
        await ffprobe<{ streams: Array<{ codec_type: string; start_time: string }> }>(file, ["-show_streams"])
      ).streams
        .map((stream) => `${stream.codec_type} ${stream.start_time}`)
        .sort();
    expect(await startTimes(output)).toEqual(["audio 0.000000", "video 0.500000"]);
    expect((await framePtsSeconds(output))[0]).toBe(0.5);
  });
});

describe("metadata", () => {
  it("keeps rotation and colour tags", async () => {
    const output = path.join(workDir, "tagged-out.mp4");
    const probe = await transcode(clips.tagged, output);
    // rotate=90 on ffmpeg 5 is a counter-clockwise quarter turn: three quarters clockwise.
    expect(probe).toMatchObject({ rotation: 270, width: 320, height: 240 });
    expect(probe.color).toEqual({ primaries: "bt709", transfer: "bt709", space: "bt709", range: "tv" });

    const [before, after] = await Promise.all([streamsOf(clips.tagged), streamsOf(output)]);
    expect(videoOf(after).side_data_list?.[0]?.rotation).toBe(90);
    const tags = ({
      color_primaries,
      color_transfer,
      color_space,
      color_range,
    }: ReturnType<typeof videoOf>) => ({
      color_primaries,
      color_transfer,
      color_space,
      color_range,
    });
    expect(tags(videoOf(after))).toEqual(tags(videoOf(before)));
    expect(videoOf(after).time_base).toBe(videoOf(before).time_base);
  });
});

describe("resources", () => {
  it("keeps memory flat over a 60 s video", async () => {
    const output = path.join(workDir, "long-out.mp4");
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 25);
    try {
      await transcode(clips.long, output);
    } finally {
      clearInterval(sampler);
    }
    // 1800 frames of 691 kB: holding them would take 1.2 GB.
    expect(peak - baseline).toBeLessThan(150 * 1024 * 1024);
    expect(videoOf(await streamsOf(output)).nb_read_frames).toBe("1800");
  });

  it("rejects an abort with AbortError, stops ffmpeg and leaves no file", async () => {
    const output = path.join(workDir, "aborted.mp4");
    const controller = new AbortController();
    const aborting = transcode(clips.long, output, {
      signal: controller.signal,
      change: (frame) => {
        if (frame.index === 30) controller.abort();
      },
    });
    await expect(aborting).rejects.toMatchObject({ name: "AbortError" });
    expect(await ffmpegChildren()).toEqual([]);
    expect(existsSync(output)).toBe(false);
    expect(existsSync(`${output}.partial`)).toBe(false);
  });

  it("decodes into a pool's buffers: a consumer that gives each frame back needs only two", async () => {
    const probe = await probeVideo(clips.long);
    const pool = new BufferPool(probe.width * probe.height * 3);
    const frames = [];
    for await (const frame of decodeFrames(clips.long, probe, { pool })) {
      if (frame.index >= 50) break;
      frames.push(frame.index);
      pool.give(frame.data);
    }
    expect(frames).toHaveLength(50);
    // One frame held by the consumer while the next is read into the other.
    expect(pool.allocated).toBeLessThanOrEqual(2);
  });

  it("stops the decoder when the consumer stops early", async () => {
    const probe = await probeVideo(clips.long);
    for await (const frame of decodeFrames(clips.long, probe)) {
      if (frame.index === 5) break;
    }
    expect(await ffmpegChildren()).toEqual([]);
  });

  it("reports an ffmpeg failure as a MediaError with ffmpeg's words", async () => {
    const output = path.join(workDir, "failed.mp4");
    const failing = transcode(clips.cfr, output, { preset: "no-such-preset" });
    await expect(failing).rejects.toBeInstanceOf(MediaError);
    await expect(failing).rejects.toMatchObject({
      code: "ffmpeg_failed",
      stderr: expect.stringMatching(/preset/i),
    });
    expect(existsSync(output)).toBe(false);
    expect(existsSync(`${output}.partial`)).toBe(false);
  });
});

describe("probe of files that are no usable video", () => {
  it.each([
    ["a text file", () => clips.text, "unsupported_format"],
    ["a text file named .mp4", () => clips.textAsMp4, "unsupported_format"],
    ["the first half of an MP4 whose moov is at the end", () => clips.truncated, "unreadable_video"],
    ["an MP4 with audio only", () => clips.audioOnly, "unsupported_format"],
  ])("refuses %s", async (_name, file, code) => {
    const probing = probeVideo(file());
    await expect(probing).rejects.toBeInstanceOf(MediaError);
    await expect(probing).rejects.toMatchObject({ code });
  });

  it("reports a playable video", async () => {
    expect(await probeVideo(clips.cfr)).toMatchObject({
      width: 640,
      height: 360,
      rotation: 0,
      frameCount: 75,
      avgFps: 25,
      timeBase: "1/12800",
      pixFmt: "yuv420p",
      codec: "h264",
      hasAudio: true,
      variableFrameRate: false,
    });
  });
});
