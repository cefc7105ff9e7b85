import { execFileSync } from "node:child_process";
import type { RgbFrame } from "../../gpu-worker/engine/fill/types";

/** A picture file (a test fixture) decoded to RGB, `width` × `height` as the file is. */
export function fixtureFrame(file: string, width: number, height: number): RgbFrame {
  const data = execFileSync(
    "ffmpeg",
    ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
    {
      maxBuffer: 1 << 26,
    },
  );
  return { width, height, data: new Uint8Array(data) };
}

/** A grey RGB frame whose pixel (x, y) is `value(x, y)` on all three channels. */
export function greyPicture(
  width: number,
  height: number,
  value: (x: number, y: number) => number,
): RgbFrame {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) data.fill(value(x, y), (y * width + x) * 3, (y * width + x) * 3 + 3);
  }
  return { width, height, data };
}

/** A text mask of `width` × `height`: 255 inside `box`, 0 elsewhere. */
export function boxMask(
  width: number,
  height: number,
  box: { x: number; y: number; width: number; height: number },
): Uint8Array {
  const mask = new Uint8Array(width * height);
  for (let y = box.y; y < box.y + box.height; y += 1)
    mask.fill(255, y * width + box.x, y * width + box.x + box.width);
  return mask;
}
