import { afterEach, describe, expect, it } from "vitest";
import {
  chooseVideoEncoder,
  parseEncoderRequest,
  selectVideoEncoder,
  videoCodecArgs,
} from "../../gpu-worker/engine/media/video-encoder";

/** The lines that matter of `ffmpeg -hide_banner -encoders`, as Debian's ffmpeg prints them. */
const WITH_NVENC = [
  "Encoders:",
  " V..... = Video",
  " ------",
  " V....D libx264              libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 (codec h264)",
  " V....D h264_nvenc           NVIDIA NVENC H.264 encoder (codec h264)",
  " V....D hevc_nvenc           NVIDIA NVENC hevc encoder (codec hevc)",
].join("\n");
const WITHOUT_NVENC = WITH_NVENC.split("\n")
  .filter((line) => !line.includes("h264_nvenc"))
  .join("\n");
/** What the choice calls to read ffmpeg's list, answering `text`. */
const listing = (text: string) => () => Promise.resolve(text);

describe("choosing the H.264 encoder", () => {
  it("picks NVENC only when ffmpeg lists it and CUDA is usable", async () => {
    expect((await chooseVideoEncoder(listing(WITH_NVENC), true)).encoder).toBe("h264_nvenc");
    expect(await chooseVideoEncoder(listing(WITH_NVENC), false)).toEqual({
      encoder: "libx264",
      reason: "no usable CUDA device",
    });
    expect(await chooseVideoEncoder(listing(WITHOUT_NVENC), true)).toEqual({
      encoder: "libx264",
      reason: "ffmpeg has no h264_nvenc encoder",
    });
  });

  it("follows GPU_WORKER_ENCODER, refusing NVENC when ffmpeg lacks it", async () => {
    expect((await chooseVideoEncoder(listing(WITH_NVENC), true, "libx264")).encoder).toBe("libx264");
    expect((await chooseVideoEncoder(listing(WITH_NVENC), false, "h264_nvenc")).encoder).toBe("h264_nvenc");
    await expect(chooseVideoEncoder(listing(WITHOUT_NVENC), true, "h264_nvenc")).rejects.toThrow(
      /no h264_nvenc/,
    );
    expect(parseEncoderRequest(undefined)).toBe("auto");
    expect(parseEncoderRequest("")).toBe("auto");
    expect(parseEncoderRequest("h264_nvenc")).toBe("h264_nvenc");
    expect(() => parseEncoderRequest("nvenc")).toThrow(/GPU_WORKER_ENCODER/);
  });

  it("gives each encoder its constant-quality arguments", () => {
    expect(videoCodecArgs("libx264", { crf: 16, preset: "veryfast" })).toEqual([
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "16",
      "-profile:v",
      "high",
      "-pix_fmt",
      "yuv420p",
    ]);
    const nvenc = videoCodecArgs("h264_nvenc", { crf: 16, preset: "veryfast" });
    expect(nvenc.join(" ")).toBe(
      "-c:v h264_nvenc -preset p5 -tune hq -rc vbr -cq 16 -b:v 0 -profile:v high -pix_fmt yuv420p",
    );
  });
});

describe("the encoder this machine gets", () => {
  const saved = process.env.GPU_WORKER_ENCODER;
  afterEach(() => {
    if (saved === undefined) delete process.env.GPU_WORKER_ENCODER;
    else process.env.GPU_WORKER_ENCODER = saved;
  });

  it("is libx264 without CUDA, whatever ffmpeg lists, and starts no ffmpeg to ask", async () => {
    delete process.env.GPU_WORKER_ENCODER;
    // An ffmpeg that cannot start: asking it would fail the choice.
    const ffmpegPath = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = "/nonexistent/ffmpeg";
    try {
      expect(await selectVideoEncoder(false)).toEqual({
        encoder: "libx264",
        reason: "no usable CUDA device",
      });
    } finally {
      if (ffmpegPath === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = ffmpegPath;
    }
    process.env.GPU_WORKER_ENCODER = "libx264";
    expect(await selectVideoEncoder(true)).toEqual({
      encoder: "libx264",
      reason: "GPU_WORKER_ENCODER=libx264",
    });
  });
});
