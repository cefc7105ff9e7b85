import type { Point, RgbFrame } from "./types";

/**
 * Maps output pixel space onto the frame: output (u, v) lands at origin + u * xStep + v * yStep, all in
 * continuous pixel coordinates (pixel i spans [i, i + 1)). A resize is an axis-aligned map, a text crop a
 * rotated one.
 */
export interface AffineMap {
  origin: Point;
  xStep: Point;
  yStep: Point;
}

/**
 * Per-channel (value / 255 - mean) / std, in the model's B, G, R input order: PaddleOCR trains on images
 * read by OpenCV, which are BGR.
 */
export interface Normalisation {
  mean: [number, number, number];
  std: [number, number, number];
}

export interface PlanarTarget {
  data: Float32Array;
  /** Index of the first blue value; green and red planes follow, planeSize apart. */
  offset: number;
  planeSize: number;
  rowStride: number;
}

const MAX_SUPERSAMPLING = 4;

/**
 * Writes a width x height image sampled from the frame through the map, normalised, as planar BGR floats.
 * Shrinking by 1.5 times or more averages several bilinear samples per output pixel, so that thin glyph
 * strokes do not alias away.
 */
export function samplePlanarBgr(
  frame: RgbFrame,
  map: AffineMap,
  width: number,
  height: number,
  normalisation: Normalisation,
  target: PlanarTarget,
): void {
  if (isIdentity(map)) {
    copyPlanarBgr(frame, width, height, normalisation, target);
    return;
  }
  const samples = supersampling(map);
  const weight = 1 / (samples * samples);
  const { mean, std } = normalisation;
  const blueScale = weight / (255 * std[0]);
  const greenScale = weight / (255 * std[1]);
  const redScale = weight / (255 * std[2]);
  const rgb: [number, number, number] = [0, 0, 0];
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      let red = 0;
      let green = 0;
      let blue = 0;
      for (let j = 0; j < samples; j++) {
        for (let i = 0; i < samples; i++) {
          const du = u + (i + 0.5) / samples;
          const dv = v + (j + 0.5) / samples;
          const x = map.origin[0] + du * map.xStep[0] + dv * map.yStep[0];
          const y = map.origin[1] + du * map.xStep[1] + dv * map.yStep[1];
          bilinear(frame, x, y, rgb);
          red += rgb[0];
          green += rgb[1];
          blue += rgb[2];
        }
      }
      const index = target.offset + v * target.rowStride + u;
      target.data[index] = blue * blueScale - mean[0] / std[0];
      target.data[index + target.planeSize] = green * greenScale - mean[1] / std[1];
      target.data[index + 2 * target.planeSize] = red * redScale - mean[2] / std[2];
    }
  }
}

function isIdentity({ origin, xStep, yStep }: AffineMap): boolean {
  return (
    origin[0] === 0 && origin[1] === 0 && xStep[0] === 1 && xStep[1] === 0 && yStep[0] === 0 && yStep[1] === 1
  );
}

/**
 * samplePlanarBgr through the identity map (the detector's input for any frame it does not shrink,
 * every crop and most whole frames): each sample lands on a pixel's centre, where the bilinear
 * weights are 1 and 0, so the frame's values are read as they are, the same numbers three times
 * faster than through the sampler.
 */
function copyPlanarBgr(
  frame: RgbFrame,
  width: number,
  height: number,
  { mean, std }: Normalisation,
  target: PlanarTarget,
): void {
  const blueScale = 1 / (255 * std[0]);
  const greenScale = 1 / (255 * std[1]);
  const redScale = 1 / (255 * std[2]);
  const [blueShift, greenShift, redShift] = [mean[0] / std[0], mean[1] / std[1], mean[2] / std[2]];
  const { data } = frame;
  for (let v = 0; v < height; v++) {
    // Past the frame's edge the sampler repeats its last row and column.
    const row = Math.min(v, frame.height - 1) * frame.width;
    for (let u = 0; u < width; u++) {
      const at = (row + Math.min(u, frame.width - 1)) * 3;
      const index = target.offset + v * target.rowStride + u;
      target.data[index] = (data[at + 2] as number) * blueScale - blueShift;
      target.data[index + target.planeSize] = (data[at + 1] as number) * greenScale - greenShift;
      target.data[index + 2 * target.planeSize] = (data[at] as number) * redScale - redShift;
    }
  }
}

function supersampling(map: AffineMap): number {
  const shrink = Math.max(Math.hypot(...map.xStep), Math.hypot(...map.yStep));
  return Math.min(MAX_SUPERSAMPLING, Math.max(1, Math.round(shrink)));
}

/** The frame's colour at a continuous point (pixel centres at i + 0.5), edges repeated outwards. */
function bilinear(frame: RgbFrame, x: number, y: number, out: [number, number, number]): void {
  const { width, height, data } = frame;
  const fx = Math.min(Math.max(x - 0.5, 0), width - 1);
  const fy = Math.min(Math.max(y - 0.5, 0), height - 1);
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = Math.min(x0 + 1, width - 1);
  const y1 = Math.min(y0 + 1, height - 1);
  const ax = fx - x0;
  const ay = fy - y0;
  const topLeft = (y0 * width + x0) * 3;
  const topRight = (y0 * width + x1) * 3;
  const bottomLeft = (y1 * width + x0) * 3;
  const bottomRight = (y1 * width + x1) * 3;
  for (let channel = 0; channel < 3; channel++) {
    const top = (data[topLeft + channel] ?? 0) * (1 - ax) + (data[topRight + channel] ?? 0) * ax;
    const bottom = (data[bottomLeft + channel] ?? 0) * (1 - ax) + (data[bottomRight + channel] ?? 0) * ax;
    out[channel] = top * (1 - ay) + bottom * ay;
  }
}
