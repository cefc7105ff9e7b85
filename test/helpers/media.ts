import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { decodeFrames, type Frame, openEncoder } from "../../gpu-worker/engine/media/frames";
import { probeVideo, type VideoProbe } from "../../gpu-worker/engine/media/probe";

const run = promisify(execFile);

/** Decodes, lets `change` edit each frame in place, and encodes: the engine's pipeline without the models. */
export async function transcode(
  input: string,
  output: string,
  options: { change?: (frame: Frame, probe: VideoProbe) => void; signal?: AbortSignal; preset?: string } = {},
): Promise<VideoProbe> {
  const probe = await probeVideo(input);
  const sink = openEncoder(input, output, probe, { signal: options.signal, preset: options.preset });
  try {
    for await (const frame of decodeFrames(input, probe, { signal: options.signal })) {
      options.change?.(frame, probe);
      await sink.write(frame);
    }
  } catch (error) {
    await sink.abort();
    throw error;
  }
  await sink.finish();
  return probe;
}

/** ffmpeg's MD5 of a file's audio packets, copied as they are: "MD5=<32 hex digits>". */
export async function audioMd5(file: string): Promise<string> {
  const { stdout } = await run("ffmpeg", [
    "-v",
    "error",
    "-i",
    file,
    "-map",
    "0:a",
    "-c",
    "copy",
    "-f",
    "md5",
    "-",
  ]);
  return stdout.trim();
}

/** ffmpeg output options that tag a video BT.709, limited range. */
export const BT709 = [
  ...["-color_primaries", "bt709", "-color_trc", "bt709"],
  ...["-colorspace", "bt709", "-color_range", "tv"],
];
