import { spawn } from "node:child_process";
import { once } from "node:events";
import { rgbToYuvFilter } from "../gpu-worker/engine/media/colour";
import { DEFAULT_CRF, DEFAULT_PRESET } from "../gpu-worker/engine/media/frames";
import { videoCodecArgs } from "../gpu-worker/engine/media/video-encoder";
import { FFMPEG } from "./ffmpeg";
import type { FrameSize } from "./raw-frames";

/** The baselines' outputs are encoded as the engine encodes its own, so only the cleaning differs. */
export const OUTPUT_ENCODING = [
  ...videoCodecArgs("libx264", { crf: DEFAULT_CRF, preset: DEFAULT_PRESET }),
  ...["-c:a", "copy", "-movflags", "+faststart"],
];

export interface RawEncoder {
  /** Waits while the pipe is full, so frames never pile up in memory. */
  write(frame: Uint8Array): Promise<void>;
  finish(): Promise<void>;
}

/**
 * Encodes RGB24 frames at a constant rate to an MP4 that takes its audio from `audioFrom`, converted
 * back to YCbCr the way the engine converts (untagged BT.601 input), so unchanged pixels survive alike.
 */
export function rawEncoder(output: string, shot: FrameSize & { fps: number }, audioFrom: string): RawEncoder {
  const child = spawn(
    FFMPEG,
    [
      ...["-hide_banner", "-nostdin", "-v", "error", "-y"],
      ...[
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
        "-s",
        `${shot.width}x${shot.height}`,
        "-framerate",
        String(shot.fps),
      ],
      ...["-i", "pipe:0", "-i", audioFrom, "-map", "0:v", "-map", "1:a?", "-vf", rgbToYuvFilter({})],
      ...[...OUTPUT_ENCODING, output],
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`encoding ${output} failed (${code}): ${stderr.trim()}`)),
    );
  });
  exited.catch(() => undefined); // surfaces through write() or finish()
  return {
    async write(frame) {
      if (!child.stdin.write(frame)) await Promise.race([once(child.stdin, "drain"), exited]);
    },
    async finish() {
      child.stdin.end();
      await exited;
    },
  };
}
