import { loadOpenCv, release } from "./opencv";
import type { Rect } from "./types";

/**
 * The crops the fill works on: each connected part of the mask, grown by `margin` and clipped to the
 * frame, with crops that touch merged, so every masked pixel lies in exactly one crop at native resolution.
 */
export async function fillRegions(mask: Uint8Array, width: number, height: number, margin: number) {
  const { cv } = await loadOpenCv();
  const maskMat = new cv.Mat(height, width, cv.CV_8UC1);
  const labels = new cv.Mat();
  const stats = new cv.Mat();
  const centroids = new cv.Mat();
  try {
    maskMat.data.set(mask);
    const count = cv.connectedComponentsWithStats(maskMat, labels, stats, centroids, 8, cv.CV_32S);
    const grown: Rect[] = [];
    // Label 0 is the unmasked background.
    for (let label = 1; label < count; label += 1) {
      const [left = 0, top = 0, w = 0, h = 0] = stats.data32S.subarray(label * 5, label * 5 + 4);
      grown.push(
        clip(
          { x: left - margin, y: top - margin, width: w + 2 * margin, height: h + 2 * margin },
          width,
          height,
        ),
      );
    }
    return mergeTouching(grown);
  } finally {
    release(maskMat, labels, stats, centroids);
  }
}

export function clip(rect: Rect, width: number, height: number): Rect {
  const x = Math.max(0, rect.x);
  const y = Math.max(0, rect.y);
  return {
    x,
    y,
    width: Math.min(width, rect.x + rect.width) - x,
    height: Math.min(height, rect.y + rect.height) - y,
  };
}

export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  const right = Math.max(a.x + a.width, b.x + b.width);
  const bottom = Math.max(a.y + a.height, b.y + b.height);
  return { x, y, width: right - x, height: bottom - y };
}

function touches(a: Rect, b: Rect): boolean {
  return a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height;
}

function mergeTouching(rects: Rect[]): Rect[] {
  const merged = [...rects];
  for (let i = 0; i < merged.length; i += 1) {
    for (let j = i + 1; j < merged.length; j += 1) {
      const a = merged[i] as Rect;
      const b = merged[j] as Rect;
      if (!touches(a, b)) continue;
      merged[i] = union(a, b);
      merged.splice(j, 1);
      // The grown rectangle may now touch ones already passed over.
      j = i;
    }
  }
  return merged;
}
