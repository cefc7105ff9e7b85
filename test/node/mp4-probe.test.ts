import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bytesReader,
  ProbeError,
  type ProbeFailure,
  type ProbeLimits,
  probeMp4,
  type RangeReader,
} from "../../edge/media/mp4-probe";

const run = promisify(execFile);

const LAVFI_VIDEO = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25"];
const LAVFI_AUDIO = ["-f", "lavfi", "-i", "sine=frequency=440"];
const H264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

let workDir: string;
const clips = {
  moovAtEnd: "",
  moovAtStart: "",
  quickTime: "",
  portrait: "",
  silent: "",
  rotated: "",
  large: "",
  fragmented: "",
  audioOnly: "",
};

async function ffmpeg(args: string[], fileName: string): Promise<string> {
  const output = path.join(workDir, fileName);
  await run("ffmpeg", ["-v", "error", "-y", ...args, output]);
  return output;
}

/** ffmpeg 6 added -display_rotation (counter-clockwise degrees); ffmpeg 5 turns the rotate tag into one. */
async function rotateQuarterTurnClockwise(source: string, fileName: string): Promise<string> {
  const { stdout } = await run("ffmpeg", ["-version"]);
  const major = Number(/ffmpeg version (\d+)\./.exec(stdout)?.[1] ?? Number.POSITIVE_INFINITY);
  const rotation =
    major >= 6 ? ["-display_rotation", "-90", "-i", source] : ["-i", source, "-metadata:s:v:0", "rotate=270"];
  return ffmpeg([...rotation, "-c", "copy"], fileName);
}

interface FfprobeReport {
  format: { duration: string };
  streams: Array<{ codec_type: string; side_data_list?: Array<{ rotation?: number }> }>;
}

async function ffprobe(file: string): Promise<FfprobeReport> {
  const { stdout } = await run("ffprobe", [
    ...["-v", "error", "-of", "json"],
    ...["-show_entries", "format=duration:stream=codec_type:stream_side_data=rotation", file],
  ]);
  return JSON.parse(stdout) as FfprobeReport;
}

async function probeFile(file: string) {
  return probeMp4(bytesReader(await readFile(file)));
}

/** moov before mdat or after it, judged from where the two type codes first appear. */
async function moovComesFirst(file: string): Promise<boolean> {
  const bytes = await readFile(file);
  return bytes.indexOf("moov") < bytes.indexOf("mdat");
}

async function refusal(
  bytes: Uint8Array,
  reason: ProbeFailure,
  limits?: Partial<ProbeLimits>,
): Promise<ProbeError> {
  const error: unknown = await probeMp4(bytesReader(bytes), limits).then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ProbeError);
  expect((error as ProbeError).reason).toBe(reason);
  return error as ProbeError;
}

function countingReader(inner: RangeReader): { reader: RangeReader; reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = [];
  const reader: RangeReader = {
    size: inner.size,
    read: async (offset, length) => {
      const bytes = await inner.read(offset, length);
      reads.push([offset, bytes.length]);
      return bytes;
    },
  };
  return { reader, reads };
}

// Builders for hand-made files.

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function u16(value: number): Uint8Array {
  return new Uint8Array([value >>> 8, value & 0xff]);
}

function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value >>> 0);
  return bytes;
}

function u64(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value);
  return bytes;
}

function ascii(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function zeros(length: number): Uint8Array {
  return new Uint8Array(length);
}

/** A box whose size field says `size`, whatever its payload really is. */
function boxWithSize(size: number, type: string, ...payload: Uint8Array[]): Uint8Array {
  return concat(u32(size), ascii(type), ...payload);
}

function box(type: string, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(...payload);
  return boxWithSize(8 + body.length, type, body);
}

function fullBox(type: string, version: number, ...payload: Uint8Array[]): Uint8Array {
  return box(type, new Uint8Array([version, 0, 0, 0]), ...payload);
}

const ftyp = box("ftyp", ascii("isom"), u32(512), ascii("isomiso2avc1mp41"));

function mvhd(timescale: number, duration: number): Uint8Array {
  return fullBox("mvhd", 0, zeros(8), u32(timescale), u32(duration), zeros(80));
}

function mvhdV1(timescale: number, duration: bigint): Uint8Array {
  return fullBox("mvhd", 1, zeros(16), u32(timescale), u64(duration), zeros(80));
}

/** a, b, c, d of the tkhd matrix, as plain numbers. */
type Matrix = [number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1];

function fixed16(value: number): Uint8Array {
  return u32(value * 0x1_0000);
}

/** The 3x3 matrix: a, b, u, c, d, v, x, y, w; u, v and w are 2.30 fixed point. */
function matrixBytes([a, b, c, d]: Matrix): Uint8Array {
  return concat(fixed16(a), fixed16(b), zeros(4), fixed16(c), fixed16(d), zeros(12), u32(0x4000_0000));
}

function tkhd(width: number, height: number, matrix: Matrix = IDENTITY): Uint8Array {
  return fullBox("tkhd", 0, zeros(20), zeros(16), matrixBytes(matrix), fixed16(width), fixed16(height));
}

function tkhdV1(width: number, height: number, matrix: Matrix): Uint8Array {
  return fullBox("tkhd", 1, zeros(32), zeros(16), matrixBytes(matrix), fixed16(width), fixed16(height));
}

function mdhd(timescale: number, duration: number): Uint8Array {
  return fullBox("mdhd", 0, zeros(8), u32(timescale), u32(duration), zeros(4));
}

function hdlr(handler: string): Uint8Array {
  return fullBox("hdlr", 0, zeros(4), ascii(handler), zeros(13));
}

function stsd(codec: string, codedWidth = 0, codedHeight = 0): Uint8Array {
  const visualEntry = box(codec, zeros(6), u16(1), zeros(16), u16(codedWidth), u16(codedHeight), zeros(50));
  return fullBox("stsd", 0, u32(1), visualEntry);
}

interface TrackOptions {
  handler?: string;
  header?: Uint8Array;
  timescale?: number;
  duration?: number;
  sampleDescription?: Uint8Array;
}

function trak({
  handler = "vide",
  header = tkhd(320, 240),
  timescale = 1000,
  duration = 0,
  sampleDescription = stsd("avc1"),
}: TrackOptions = {}): Uint8Array {
  const stbl = box("stbl", sampleDescription);
  return box("trak", header, box("mdia", mdhd(timescale, duration), hdlr(handler), box("minf", stbl)));
}

function movie(...moovChildren: Uint8Array[]): Uint8Array {
  return concat(ftyp, box("moov", ...moovChildren), box("mdat", zeros(32)));
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "mp4-probe-"));
  const twoSecondsWithAudio = [...LAVFI_VIDEO, ...LAVFI_AUDIO, "-t", "2", ...H264, "-c:a", "aac"];
  const oneSecond = (size: string) => [
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=${size}:rate=25`,
    "-t",
    "1",
    ...H264,
  ];
  [
    clips.moovAtEnd,
    clips.moovAtStart,
    clips.quickTime,
    clips.portrait,
    clips.silent,
    clips.large,
    clips.audioOnly,
  ] = await Promise.all([
    ffmpeg(twoSecondsWithAudio, "moov-at-end.mp4"),
    ffmpeg([...twoSecondsWithAudio, "-movflags", "+faststart"], "moov-at-start.mp4"),
    ffmpeg([...twoSecondsWithAudio, "-f", "mov"], "clip.mov"),
    ffmpeg(oneSecond("180x320"), "portrait.mp4"),
    ffmpeg(oneSecond("320x240"), "silent.mp4"),
    ffmpeg(
      ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "5", ...H264, "-b:v", "4M"],
      "large.mp4",
    ),
    ffmpeg([...LAVFI_AUDIO, "-t", "1", "-vn", "-c:a", "aac"], "audio-only.mp4"),
  ]);
  [clips.rotated, clips.fragmented] = await Promise.all([
    rotateQuarterTurnClockwise(clips.silent, "rotated.mp4"),
    ffmpeg(["-i", clips.moovAtEnd, "-c", "copy", "-movflags", "frag_keyframe"], "fragmented.mp4"),
  ]);
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("probeMp4 on files ffmpeg wrote", () => {
  it("reads a file whose moov sits after mdat", async () => {
    expect(await moovComesFirst(clips.moovAtEnd)).toBe(false);
    const info = await probeFile(clips.moovAtEnd);
    const report = await ffprobe(clips.moovAtEnd);
    expect(Math.abs(info.durationSeconds - Number(report.format.duration))).toBeLessThan(0.05);
    expect(info).toMatchObject({
      width: 320,
      height: 240,
      rotation: 0,
      hasAudio: true,
      videoCodec: "avc1",
      majorBrand: "isom",
    });
  });

  it("reads the same values when moov comes first (faststart)", async () => {
    expect(await moovComesFirst(clips.moovAtStart)).toBe(true);
    const [start, end] = await Promise.all([probeFile(clips.moovAtStart), probeFile(clips.moovAtEnd)]);
    const report = await ffprobe(clips.moovAtStart);
    expect(Math.abs(start.durationSeconds - Number(report.format.duration))).toBeLessThan(0.05);
    expect(start).toEqual(end);
  });

  it("reads a QuickTime .mov", async () => {
    const info = await probeFile(clips.quickTime);
    const report = await ffprobe(clips.quickTime);
    expect(Math.abs(info.durationSeconds - Number(report.format.duration))).toBeLessThan(0.05);
    expect(info).toMatchObject({ width: 320, height: 240, hasAudio: true, videoCodec: "avc1" });
    expect(info.majorBrand).toBe("qt  ");
  });

  it("reads a 9:16 clip without audio", async () => {
    const portrait = await probeFile(clips.portrait);
    expect(portrait).toMatchObject({ width: 180, height: 320, rotation: 0, hasAudio: false });
    expect(portrait.durationSeconds).toBeCloseTo(1, 1);
    expect((await probeFile(clips.silent)).hasAudio).toBe(false);
  });

  it("reports a clockwise quarter turn and swaps width and height", async () => {
    const info = await probeFile(clips.rotated);
    const sideData = (await ffprobe(clips.rotated)).streams[0]?.side_data_list ?? [];
    // ffprobe reports the display matrix counter-clockwise.
    const clockwise = (360 - (sideData[0]?.rotation ?? 0)) % 360;
    expect(clockwise).toBe(90);
    expect(info).toMatchObject({ rotation: 90, width: 240, height: 320 });
  });

  it("takes a fragmented file's duration from mvex/mehd", async () => {
    const info = await probeFile(clips.fragmented);
    const report = await ffprobe(clips.fragmented);
    expect(Math.abs(info.durationSeconds - Number(report.format.duration))).toBeLessThan(0.05);
    expect(info).toMatchObject({ width: 320, height: 240, hasAudio: true });
  });

  it("reads a small part of a large file whose moov is at the end", async () => {
    const bytes = await readFile(clips.large);
    expect(bytes.length).toBeGreaterThan(1024 * 1024);
    expect(await moovComesFirst(clips.large)).toBe(false);
    const { reader, reads } = countingReader(bytesReader(bytes));
    const info = await probeMp4(reader);
    expect(info).toMatchObject({ width: 640, height: 360, hasAudio: false });
    const bytesRead = reads.reduce((total, [, length]) => total + length, 0);
    expect(bytesRead).toBeLessThan(bytes.length * 0.1);
    expect(reads.length).toBeLessThanOrEqual(3);
  });

  it("refuses a file with audio only as unsupported", async () => {
    const error = await refusal(await readFile(clips.audioOnly), "unsupported_format");
    expect(error.message).toBe("The file has no video track.");
  });

  it("refuses a moov larger than maxMoovBytes", async () => {
    await refusal(await readFile(clips.moovAtStart), "unreadable_video", { maxMoovBytes: 1024 });
  });
});

describe("probeMp4 on hand-made files", () => {
  it("reads a minimal movie, v1 headers and a 180 degree matrix", async () => {
    const bytes = movie(mvhdV1(600, 3000n), trak({ header: tkhdV1(640, 360, [-1, 0, 0, -1]) }));
    expect(await probeMp4(bytesReader(bytes))).toEqual({
      durationSeconds: 5,
      width: 640,
      height: 360,
      codedWidth: 640,
      codedHeight: 360,
      rotation: 180,
      hasAudio: false,
      videoCodec: "avc1",
      majorBrand: "isom",
    });
  });

  it("reads the 270 degree matrix and swaps the size", async () => {
    const bytes = movie(mvhd(1000, 2000), trak({ header: tkhd(640, 360, [0, -1, 1, 0]) }));
    expect(await probeMp4(bytesReader(bytes))).toMatchObject({ rotation: 270, width: 360, height: 640 });
  });

  it("falls back to the longest track when the movie duration is zero", async () => {
    const audio = trak({ handler: "soun", timescale: 48_000, duration: 48_000 * 7 });
    const bytes = movie(mvhd(1000, 0), trak({ timescale: 25, duration: 150 }), audio);
    expect(await probeMp4(bytesReader(bytes))).toMatchObject({ durationSeconds: 7, hasAudio: true });
  });

  it("prefers mehd, in the movie timescale, for fragmented files", async () => {
    const mvex = box("mvex", fullBox("mehd", 1, u64(9000n)));
    const bytes = movie(mvhd(1000, 0), trak(), mvex);
    expect((await probeMp4(bytesReader(bytes))).durationSeconds).toBe(9);
  });

  it("falls back to the sample entry's coded size when tkhd has none", async () => {
    const bytes = movie(
      mvhd(1000, 1000),
      trak({ header: tkhd(0, 0), sampleDescription: stsd("hvc1", 1280, 720) }),
    );
    expect(await probeMp4(bytesReader(bytes))).toMatchObject({
      width: 1280,
      height: 720,
      videoCodec: "hvc1",
    });
  });

  it("has no major brand without ftyp (old QuickTime)", async () => {
    const bytes = concat(box("wide"), box("mdat", zeros(16)), box("moov", mvhd(600, 600), trak()));
    expect((await probeMp4(bytesReader(bytes))).majorBrand).toBeNull();
  });

  it("refuses files that are not ISO BMFF as unsupported", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...zeros(25)]);
    const webm = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, ...zeros(24)]);
    for (const bytes of [ascii("Hello, this is a text file.\n"), png, webm, ascii("hi")]) {
      const error = await refusal(bytes, "unsupported_format");
      expect(error.message).toBe("The file is not an MP4 or MOV video.");
    }
  });

  it("refuses an empty file", async () => {
    await refusal(new Uint8Array(0), "unreadable_video");
  });

  it("refuses a file that ends before moov", async () => {
    const error = await refusal(ftyp, "unreadable_video");
    expect(error.message).toBe("The file ends before its metadata (moov); the upload may be incomplete.");
    await refusal(concat(ftyp, boxWithSize(1_000_000, "mdat", zeros(64))), "unreadable_video");
  });

  it("refuses a box smaller than its header", async () => {
    const error = await refusal(concat(boxWithSize(3, "ftyp", zeros(8)), box("moov")), "unreadable_video");
    expect(error.message).toMatch(/invalid size/);
  });

  it("refuses a size-0 box followed by garbage", async () => {
    const garbage = Uint8Array.from({ length: 256 }, (_, index) => (index * 37) & 0xff);
    await refusal(concat(ftyp, boxWithSize(0, "free"), garbage), "unreadable_video");
    const trakToEnd = concat(boxWithSize(0, "trak"), new Uint8Array(64).fill(0xab));
    await refusal(movie(mvhd(1000, 1000), trakToEnd), "unreadable_video");
  });

  it("refuses a 64-bit largesize beyond what a number holds exactly", async () => {
    const largesize = boxWithSize(1, "mdat", u64(2n ** 62n), zeros(64));
    const error = await refusal(concat(ftyp, largesize), "unreadable_video");
    expect(error.message).toMatch(/invalid size/);
  });

  it("refuses a moov child larger than moov, and a moov claiming to contain itself", async () => {
    await refusal(movie(mvhd(1000, 1000), boxWithSize(4096, "trak", zeros(32))), "unreadable_video");
    const selfSize = 8 + 8 + 16;
    const moovInMoov = boxWithSize(selfSize, "moov", boxWithSize(selfSize, "moov", zeros(16)));
    await refusal(concat(ftyp, moovInMoov), "unreadable_video");
  });

  it("refuses nesting deeper than maxDepth", async () => {
    let nested = trak();
    for (let level = 1; level < 20; level += 1) nested = box("trak", nested);
    const error = await refusal(movie(mvhd(1000, 1000), nested), "unreadable_video");
    expect(error.message).toMatch(/nested too deeply/);
  });

  it("refuses a moov with more boxes than maxBoxes", async () => {
    const childCount = 200_000;
    const children = new Uint8Array(childCount * 8);
    const view = new DataView(children.buffer);
    for (let index = 0; index < childCount; index += 1) {
      view.setUint32(index * 8, 8);
      children.set(ascii("free"), index * 8 + 4);
    }
    const error = await refusal(movie(mvhd(1000, 1000), trak(), children), "unreadable_video");
    expect(error.message).toMatch(/too many entries/);
  });

  it("refuses a movie whose only duration sits behind an mdhd timescale of 0", async () => {
    const error = await refusal(
      movie(mvhd(1000, 0), trak({ timescale: 0, duration: 5000 })),
      "unreadable_video",
    );
    expect(error.message).toBe("The video's duration could not be determined.");
  });

  it("refuses a video track with no size anywhere", async () => {
    await refusal(movie(mvhd(1000, 1000), trak({ header: tkhd(0, 240) })), "unreadable_video");
  });

  it("bytesReader serves a range, shorter only at the end", async () => {
    const reader = bytesReader(new Uint8Array([1, 2, 3, 4, 5]));
    expect(reader.size).toBe(5);
    expect([...(await reader.read(1, 2))]).toEqual([2, 3]);
    expect([...(await reader.read(3, 10))]).toEqual([4, 5]);
  });
});
