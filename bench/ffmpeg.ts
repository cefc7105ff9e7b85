import { spawn } from "node:child_process";

export const FFMPEG = process.env.FFMPEG_PATH || "ffmpeg";
export const FFPROBE = process.env.FFPROBE_PATH || "ffprobe";

/** ffmpeg's last words are at the end of stderr; an error keeps this much of it. */
const STDERR_TAIL_CHARS = 2000;

/** Runs ffmpeg or ffprobe to the end and returns its stdout; rejects with the tail of its stderr. */
export function run(binary: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL_CHARS);
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${binary} exited with ${code}: ${stderr.trim()}`));
    });
  });
}

export function ffmpeg(args: string[]): Promise<string> {
  return run(FFMPEG, ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);
}

export interface StreamFacts {
  width: number;
  height: number;
  frames: number;
  hasAudio: boolean;
}

/** Size and frame count (packets counted, not the container's claim) of a file's first video stream. */
export async function probeStream(path: string): Promise<StreamFacts> {
  const json = await run(FFPROBE, [
    ...["-v", "error", "-count_packets", "-show_entries", "stream=codec_type,width,height,nb_read_packets"],
    ...["-of", "json", path],
  ]);
  const streams = (JSON.parse(json) as { streams: Array<Record<string, string | number>> }).streams;
  const video = streams.find((stream) => stream.codec_type === "video");
  if (!video) throw new Error(`${path} has no video stream`);
  return {
    width: Number(video.width),
    height: Number(video.height),
    frames: Number(video.nb_read_packets),
    hasAudio: streams.some((stream) => stream.codec_type === "audio"),
  };
}
