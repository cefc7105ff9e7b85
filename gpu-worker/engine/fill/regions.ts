import type { SizedRect } from "../geometry";
import { loadOpenCv, release } from "./opencv";

/**
 * The crops the fill works on: each connected part of the mask, grown by `margin` and clipped to the
 * frame, with crops that touch merged, so every masked pixel lies in exactly one crop at native resolution.
 */
export async function fillRegions(mask: Uint8Array, width: number, height: number, margin: number) {
  const bounds = maskExtent(mask, width, height);
  if (!bounds) return [];
  const { cv } = await loadOpenCv();
  // Labelled within the mask's bounding box only: text covers a small part of the frame.
  const maskMat = new cv.Mat(bounds.height, bounds.width, cv.CV_8UC1);
  const labels = new cv.Mat();
  const stats = new cv.Mat();
  const centroids = new cv.Mat();
  try {
    for (let y = 0; y < bounds.height; y += 1) {
      const start = (bounds.y + y) * width + bounds.x;
      maskMat.data.set(mask.subarray(start, start + bounds.width), y * bounds.width);
    }
    const count = cv.connectedComponentsWithStats(maskMat, labels, stats, centroids, 8, cv.CV_32S);
    const grown: SizedRect[] = [];
    // Label 0 is the unmasked background.
    for (let label = 1; label < count; label += 1) {
      const [left = 0, top = 0, w = 0, h = 0] = stats.data32S.subarray(label * 5, label * 5 + 4);
      grown.push(
        clip(grow({ x: bounds.x + left, y: bounds.y + top, width: w, height: h }, margin), width, height),
      );
    }
    return mergeTouching(grown);
  } finally {
    release(maskMat, labels, stats, centroids);
  }
}

/** The frame pixel (row-major index in a frame `frameWidth` wide) at index `i` of a crop over `rect`. */
export function framePixel(rect: SizedRect, frameWidth: number, i: number): number {
  return (rect.y + Math.floor(i / rect.width)) * frameWidth + rect.x + (i % rect.width);
}

/** The smallest rectangle holding every set pixel of the mask; null when none is set. */
export function maskExtent(mask: Uint8Array, width: number, height: number): SizedRect | null {
  const first = firstSet(mask, 1);
  if (first < 0) return null;
  const top = Math.floor(first / width);
  const bottom = Math.min(height - 1, Math.floor(firstSet(mask, -1) / width));
  let left = width;
  let right = -1;
  for (let y = top; y <= bottom; y += 1) {
    const row = y * width;
    for (let x = 0; x < left; x += 1) if (mask[row + x]) left = x;
    for (let x = width - 1; x > right; x -= 1) if (mask[row + x]) right = x;
  }
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

/**
 * The index of the first set byte (`direction` 1) or the last (-1), -1 when none is: text covers a
 * small part of the frame, so the rows before it are skipped four bytes at a time where the mask is
 * aligned for it.
 */
function firstSet(mask: Uint8Array, direction: 1 | -1): number {
  const aligned = mask.byteOffset % 4 === 0 && mask.length % 4 === 0;
  const words = aligned ? new Uint32Array(mask.buffer, mask.byteOffset, mask.length / 4) : undefined;
  let at = direction === 1 ? 0 : mask.length - 1;
  if (words) {
    let word = direction === 1 ? 0 : words.length - 1;
    while (word >= 0 && word < words.length && words[word] === 0) word += direction;
    at = direction === 1 ? word * 4 : word * 4 + 3;
  }
  for (; at >= 0 && at < mask.length; at += direction) if (mask[at]) return at;
  return -1;
}

export function grow(rect: SizedRect, by: number): SizedRect {
  return { x: rect.x - by, y: rect.y - by, width: rect.width + 2 * by, height: rect.height + 2 * by };
}

export function clip(rect: SizedRect, width: number, height: number): SizedRect {
  const x = Math.max(0, rect.x);
  const y = Math.max(0, rect.y);
  return {
    x,
    y,
    width: Math.min(width, rect.x + rect.width) - x,
    height: Math.min(height, rect.y + rect.height) - y,
  };
}

/** The rectangle rounded outwards to whole pixels, inside a frame of this size. */
export function wholePixels(rect: SizedRect, width: number, height: number): SizedRect {
  const x = Math.max(0, Math.floor(rect.x));
  const y = Math.max(0, Math.floor(rect.y));
  return {
    x,
    y,
    width: Math.min(width, Math.ceil(rect.x + rect.width)) - x,
    height: Math.min(height, Math.ceil(rect.y + rect.height)) - y,
  };
}

export function union(a: SizedRect, b: SizedRect): SizedRect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  const right = Math.max(a.x + a.width, b.x + b.width);
  const bottom = Math.max(a.y + a.height, b.y + b.height);
  return { x, y, width: right - x, height: bottom - y };
}

function touches(a: SizedRect, b: SizedRect): boolean {
  return a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height;
}

function mergeTouching(rects: SizedRect[]): SizedRect[] {
  const merged = [...rects];
  for (let i = 0; i < merged.length; i += 1) {
    for (let j = i + 1; j < merged.length; j += 1) {
      const a = merged[i] as SizedRect;
      const b = merged[j] as SizedRect;
      if (!touches(a, b)) continue;
      merged[i] = union(a, b);
      merged.splice(j, 1);
      // The grown rectangle may now touch ones already passed over.
      j = i;
    }
  }
  return merged;
}

/** Whether two rectangles are the same (b may be missing: then not). */
export function sameRect(a: SizedRect, b: SizedRect | undefined): boolean {
  return b !== undefined && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}
