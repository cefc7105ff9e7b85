import { execFile } from "node:child_process";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanVideo } from "../../gpu-worker/engine/clean";
import { videoTrack } from "../../gpu-worker/engine/media/mp4-boxes";
import { setTrackTiming } from "../../gpu-worker/engine/media/mp4-duration";
import { editMoov } from "../../gpu-worker/engine/media/mp4-moov";
import { createOcrEngine, type OcrEngine } from "../../gpu-worker/engine/ocr/ocr";
import { audioMd5, BT709, transcode } from "../helpers/media";

/**
 * What players and ad platforms read off a cleaned video's clock must be the input's: every frame's
 * timestamp and duration (so the last frame keeps its own), frame rate, frame count, duration, time
 * base, the audio packets, and the rotation and colour tags beside them.
 */

const run = promisify(execFile);

/**
 * Portrait 720p, as the ads that showed the fault: a frame this large is more than half of what ffmpeg
 * reads of a stream before guessing its rate, and without a rate it gave the last frame one tick.
 */
const SIZE = "720x1280";
/** How ads arrive: H.264 with B-frames (so decode order differs from display order). */
const H264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p"];
const TONE = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"];
const AAC = ["-c:a", "aac", "-shortest"];

/** A picture without writing on it (testsrc2 draws numbers the text reader would spend time on). */
const picture = (rate: string, seconds: number, size = SIZE) =>
  `smptehdbars=s=${size}:rate=${rate}:duration=${seconds}`;

interface Clip {
  name: string;
  container: "mp4" | "mov";
  /** ffmpeg arguments that make the clip, but for the output file. */
  args: string[];
  /** What is done to the file ffmpeg made. */
  afterwards?: (file: string) => Promise<void>;
}

/** Constant rate: `rate` as ffmpeg writes it (30000/1001 is NTSC's 29.97). */
function constantRate(rate: string, container: "mp4" | "mov", audio: boolean): Clip {
  return {
    name: `${rate} fps ${container.toUpperCase()} ${audio ? "with" : "without"} audio`,
    container,
    args: ["-f", "lavfi", "-i", picture(rate, 1), ...(audio ? [...TONE, ...H264, ...AAC] : H264)],
  };
}

/** Three runs at 25, 10 and 29.97 fps in one 1/90000 clock, as a phone's variable-rate video has. */
const VARIABLE_MP4: Clip = {
  name: "variable rate (runs at 25, 10, 29.97 fps) MP4 with audio",
  container: "mp4",
  args: [
    ...[
      "-f",
      "lavfi",
      "-i",
      [
        `${picture("25", 0.4)},settb=1/90000[a]`,
        `${picture("10", 0.6)},settb=1/90000[b]`,
        `${picture("30000/1001", 0.5)},settb=1/90000[c]`,
        "[a][b][c]concat=n=3",
      ].join(";"),
    ],
    ...TONE,
    ...["-fps_mode", "passthrough", "-enc_time_base:v", "1/90000", ...H264, ...AAC],
  ],
};

/**
 * Frame durations cycling 50, 50 and 20 ms on QuickTime's 1/600 clock, without B-frames (as phones
 * record), and the tags to keep.
 */
const VARIABLE_MOV_TAGGED: Clip = {
  name: "variable rate (50, 50, 20 ms) MOV without B-frames, rotated, BT.709 tags, with audio",
  container: "mov",
  args: [
    ...["-f", "lavfi", "-i", `${picture("25", 1)},settb=1/600,setpts='N*24+6*mod(N\\,3)'`],
    ...TONE,
    ...["-fps_mode", "passthrough", "-enc_time_base:v", "1/600", "-video_track_timescale", "600"],
    ...[...H264, "-bf", "0", ...BT709, ...AAC],
  ],
  // ffmpeg 5 writes a rotate tag's display matrix only when it copies a stream.
  afterwards: (file) => copyStreams(file, ["-metadata:s:v:0", "rotate=90", "-video_track_timescale", "600"]),
};

/**
 * An end card held for three frames' time, as ads often end: ffmpeg's guess for the last frame (one
 * frame at the rate it reads off the first frames, which a small picture lets it) is wrong here.
 */
const HELD_END: Clip = {
  name: "25 fps MP4 whose last frame is held three frames' time, 320x180, with audio",
  container: "mp4",
  args: ["-f", "lavfi", "-i", picture("25", 1, "320x180"), ...TONE, ...H264, ...AAC],
  // Written with the engine's own MP4 editing: the check on the made clip below shows it took.
  afterwards: (file) =>
    editMoov(file, (moov) =>
      setTrackTiming(moov, videoTrack(moov), { shown: 27 * 512, lastFrame: 3 * 512 }, { num: 1, den: 12800 }),
    ),
};

const CLIPS: Clip[] = [
  ...["20", "25", "30000/1001"].flatMap((rate) => [
    constantRate(rate, "mp4", true),
    constantRate(rate, "mov", false),
  ]),
  VARIABLE_MP4,
  VARIABLE_MOV_TAGGED,
  HELD_END,
];

interface ClockReport {
  video: Record<string, unknown>;
  /** Every frame's pts and duration in the time base, in display order. */
  frames: Array<{ pts: number; duration: number }>;
  audio: { packets: string; md5: string } | null;
}

interface FfprobeStream {
  codec_type: string;
  [field: string]: unknown;
}

async function ffprobe<T>(file: string, args: string[]): Promise<T> {
  const { stdout } = await run("ffprobe", ["-v", "error", "-of", "json", ...args, file], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}

/** The video stream's clock and tags, its frames' timing, and the audio's packets. */
async function clockOf(file: string): Promise<ClockReport> {
  const fields = [
    ...["time_base", "r_frame_rate", "avg_frame_rate", "start_pts", "duration_ts", "nb_frames"],
    ...["nb_read_frames", "color_primaries", "color_transfer", "color_space", "color_range"],
  ];
  const { streams } = await ffprobe<{ streams: FfprobeStream[] }>(file, [
    ...["-count_frames", "-show_entries", `stream=codec_type,${fields.join(",")}:stream_side_data`],
  ]);
  const video = streams.find((stream) => stream.codec_type === "video");
  if (!video) throw new Error(`${file} has no video`);
  const { frames } = await ffprobe<{ frames: Array<{ pts: number }> }>(file, [
    ...["-select_streams", "v:0", "-show_entries", "frame=pts"],
  ]);
  const pts = frames.map((frame) => frame.pts).sort((a, b) => a - b);
  // A frame lasts until the next one shows; the last one until the stream ends.
  const end = Number(video.start_pts) + Number(video.duration_ts);
  const hasAudio = streams.some((stream) => stream.codec_type === "audio");
  return {
    video: Object.fromEntries(["side_data_list", ...fields].map((field) => [field, video[field]])),
    frames: pts.map((value, index) => ({ pts: value, duration: (pts[index + 1] ?? end) - value })),
    audio: hasAudio ? await audioOf(file) : null,
  };
}

async function audioOf(file: string): Promise<{ packets: string; md5: string }> {
  const { packets } = await ffprobe<{ packets: Array<Record<string, number>> }>(file, [
    ...["-select_streams", "a:0", "-show_entries", "packet=pts,dts,duration,size"],
  ]);
  return {
    packets: packets.map((p) => `${p.pts},${p.dts},${p.duration},${p.size}`).join(" "),
    md5: await audioMd5(file),
  };
}

let workDir: string;
const inputs = new Map<Clip, string>();

async function make(clip: Clip, index: number): Promise<void> {
  const file = path.join(workDir, `clip-${index}.${clip.container}`);
  await run("ffmpeg", ["-hide_banner", "-v", "error", "-y", ...clip.args, file]);
  await clip.afterwards?.(file);
  inputs.set(clip, file);
}

/** Copies the file's streams over it with `options`. */
async function copyStreams(file: string, options: string[]): Promise<void> {
  const copy = `${file}.copy${path.extname(file)}`;
  await run("ffmpeg", ["-v", "error", "-y", "-i", file, "-c", "copy", ...options, copy]);
  await rename(copy, file);
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "adclean-timestamps-"));
  for (const [index, clip] of CLIPS.entries()) await make(clip, index);
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("decode and encode keep the input's clock", () => {
  it.each(CLIPS.map((clip) => [clip.name, clip] as const))("%s", async (_name, clip) => {
    const input = inputs.get(clip) as string;
    const output = `${input}-out.mp4`;
    await transcode(input, output);
    const [before, after] = await Promise.all([clockOf(input), clockOf(output)]);
    expect(after.frames.length).toBeGreaterThan(10);
    expect(after).toEqual(before);
  });

  it("the test clips have what they are named for", async () => {
    const tagged = await clockOf(inputs.get(VARIABLE_MOV_TAGGED) as string);
    expect(tagged.video).toMatchObject({ time_base: "1/600", color_space: "bt709" });
    expect(JSON.stringify(tagged.video.side_data_list)).toContain('"rotation":90');
    expect(new Set(tagged.frames.slice(0, -1).map((frame) => frame.duration))).toEqual(new Set([30, 12]));
    const variable = await clockOf(inputs.get(VARIABLE_MP4) as string);
    expect(variable.video.time_base).toBe("1/90000");
    expect(new Set(variable.frames.slice(0, -1).map((frame) => frame.duration))).toEqual(
      new Set([3600, 9000, 3003]),
    );
    const held = await clockOf(inputs.get(HELD_END) as string);
    expect(held.frames.map((frame) => frame.duration)).toEqual([...Array(24).fill(512), 3 * 512]);
    expect(held.video).toMatchObject({ duration_ts: 27 * 512, nb_read_frames: "25" });
    const ntsc = await clockOf(inputs.get(CLIPS[4] as Clip) as string);
    expect(ntsc.video).toMatchObject({ r_frame_rate: "30000/1001", nb_read_frames: "30" });
  });
});

describe("cleanVideo keeps the input's clock", () => {
  let ocr: OcrEngine;
  beforeAll(async () => {
    ocr = await createOcrEngine();
  });
  afterAll(async () => {
    await ocr?.close();
  });

  it("on a 20 fps MP4 with audio", async () => {
    const input = inputs.get(CLIPS[0] as Clip) as string;
    const output = path.join(workDir, "clean.mp4");
    await cleanVideo(input, output, { ocr });
    expect(await clockOf(output)).toEqual(await clockOf(input));
  });
});
