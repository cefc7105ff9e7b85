import type { Region } from "../types";
import { UsageError } from "./exit-codes";

/**
 * `--region x,y,width,height[,start[,end]]`: an area to erase whole, in fractions of the frame
 * (0 to 1), from `start` to `end` seconds (default the whole video). The API checks the values.
 */
export function parseRegion(text: string): Region {
  const numbers = text.split(",").map((part) => Number(part.trim()));
  if (numbers.length < 4 || numbers.length > 6 || numbers.some((n) => !Number.isFinite(n))) {
    throw new UsageError(`--region takes x,y,width,height[,start,end] (fractions, seconds), not "${text}"`);
  }
  const [x, y, width, height, start, end] = numbers as [number, number, number, number, number?, number?];
  return {
    x,
    y,
    width,
    height,
    ...(start === undefined ? {} : { start_seconds: start }),
    ...(end === undefined ? {} : { end_seconds: end }),
  };
}
