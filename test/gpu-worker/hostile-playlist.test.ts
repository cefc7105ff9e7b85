// An HLS playlist uploaded as input.mp4 that lists a file on the worker's disk by absolute path:
// ffmpeg guessing the format from the content would read it as HLS and open that file. Every
// ffmpeg and ffprobe run over a customer's file forces the MP4/MOV demuxer and the file protocol.
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFrames } from "../../gpu-worker/engine/media/decoder";
import { MediaError, probeVideo } from "../../gpu-worker/engine/media/probe";
import { ffmpegChildren } from "../helpers/ffmpeg-children";

let workDir: string;
let segment: string;
let playlist: string;
let realClip: string;

/** The segment's access time, set to the epoch: with relatime, any read of it moves this forward. */
const UNREAD = new Date(1000);

async function segmentAccessed(): Promise<boolean> {
  return (await stat(segment)).atimeMs !== UNREAD.getTime();
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "adclean-playlist-"));
  segment = path.join(workDir, "secret-segment.ts");
  realClip = path.join(workDir, "real.mp4");
  const ffmpeg = (args: string[]) => promisify(execFile)("ffmpeg", ["-v", "error", "-y", ...args]);
  const source = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "1", "-c:v", "libx264"];
  await ffmpeg([...source, "-f", "mpegts", segment]);
  await ffmpeg([...source, "-pix_fmt", "yuv420p", realClip]);
  playlist = path.join(workDir, "input.mp4");
  await writeFile(
    playlist,
    ["#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXTINF:1.0,", segment, "#EXT-X-ENDLIST", ""].join("\n"),
  );
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("an HLS playlist named input.mp4", () => {
  it("is refused by the probe, and the file it lists is never opened", async () => {
    await utimes(segment, UNREAD, new Date());
    const probing = probeVideo(playlist);
    await expect(probing).rejects.toBeInstanceOf(MediaError);
    await expect(probing).rejects.toMatchObject({ code: "unsupported_format" });
    expect(await segmentAccessed()).toBe(false);
    expect(await ffmpegChildren()).toEqual([]);
  });

  it("is refused by the decoder too, even handed a probe of a real clip", async () => {
    await utimes(segment, UNREAD, new Date());
    const probe = await probeVideo(realClip);
    const frames: number[] = [];
    const decoding = (async () => {
      for await (const frame of decodeFrames(playlist, probe)) frames.push(frame.index);
    })();
    await expect(decoding).rejects.toBeInstanceOf(MediaError);
    expect(frames).toEqual([]);
    expect(await segmentAccessed()).toBe(false);
  });
});
