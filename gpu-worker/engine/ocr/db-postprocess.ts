import { convexHull, minAreaRect, orderCorners, rectSides, unclipRect } from "./geometry";
import type { Point } from "./types";

/** PaddleOCR's defaults for PP-OCRv4 det (det_db_thresh, det_db_box_thresh, det_db_unclip_ratio). */
export interface DbOptions {
  /** A map pixel is text when its probability exceeds this. */
  threshold: number;
  /** A region is kept when its mean probability reaches this. */
  boxThreshold: number;
  unclipRatio: number;
  /** Regions with a shorter side (in map pixels) are noise. */
  minSide: number;
  maxCandidates: number;
}

export const DEFAULT_DB_OPTIONS: DbOptions = {
  threshold: 0.3,
  boxThreshold: 0.6,
  unclipRatio: 1.5,
  minSide: 3,
  maxCandidates: 1000,
};

export interface ProbabilityMap {
  width: number;
  height: number;
  data: Float32Array;
}

/** A text region in probability-map coordinates: ordered corners and mean probability. */
export interface MapBox {
  points: Point[];
  score: number;
}

interface Region {
  outline: Point[];
  score: number;
}

/** DB postprocessing: threshold, 8-connected regions, min-area boxes, score filter, unclip. */
export function boxesFromProbabilityMap(
  map: ProbabilityMap,
  options: DbOptions = DEFAULT_DB_OPTIONS,
): MapBox[] {
  const boxes: MapBox[] = [];
  for (const region of findRegions(map, options.threshold, options.maxCandidates)) {
    const box = orderCorners(minAreaRect(convexHull(region.outline)));
    if (shortSide(box) < options.minSide || region.score < options.boxThreshold) continue;
    const expanded = orderCorners(unclipRect(box, options.unclipRatio));
    if (shortSide(expanded) < options.minSide + 2) continue;
    boxes.push({ points: expanded, score: region.score });
  }
  return boxes.sort((a, b) => topLeftOrder(a.points, b.points));
}

function shortSide(corners: Point[]): number {
  const { width, height } = rectSides(corners);
  return Math.min(width, height);
}

/** Reading order: by top edge, left to right when tops are within a few pixels. */
function topLeftOrder(a: Point[], b: Point[]): number {
  const [aTop, bTop] = [a[0] as Point, b[0] as Point];
  return Math.abs(aTop[1] - bTop[1]) < 10 ? aTop[0] - bTop[0] : aTop[1] - bTop[1];
}

/**
 * Connected regions of pixels above the threshold. Each region's outline is the corners of its leftmost and
 * rightmost pixel in every row: enough for the convex hull, without tracing contours.
 */
function findRegions(map: ProbabilityMap, threshold: number, maxRegions: number): Region[] {
  const { width, height, data } = map;
  const visited = new Uint8Array(width * height);
  const rowStart = new Int32Array(height).fill(width);
  const rowEnd = new Int32Array(height).fill(-1);
  const stack: number[] = [];
  const regions: Region[] = [];
  for (let seed = 0; seed < data.length && regions.length < maxRegions; seed++) {
    if (visited[seed] || (data[seed] ?? 0) <= threshold) continue;
    visited[seed] = 1;
    stack.push(seed);
    let [top, bottom, sum, count] = [height, -1, 0, 0];
    while (stack.length > 0) {
      const index = stack.pop() as number;
      const x = index % width;
      const y = (index - x) / width;
      sum += data[index] ?? 0;
      count++;
      top = Math.min(top, y);
      bottom = Math.max(bottom, y);
      rowStart[y] = Math.min(rowStart[y] ?? width, x);
      rowEnd[y] = Math.max(rowEnd[y] ?? -1, x);
      for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1); ny++) {
        for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
          const neighbour = ny * width + nx;
          if (visited[neighbour] || (data[neighbour] ?? 0) <= threshold) continue;
          visited[neighbour] = 1;
          stack.push(neighbour);
        }
      }
    }
    regions.push({ outline: takeRowExtents(rowStart, rowEnd, top, bottom, width), score: sum / count });
  }
  return regions;
}

/** The pixel-corner outline of rows top..bottom, resetting the row extents for the next region. */
function takeRowExtents(
  rowStart: Int32Array,
  rowEnd: Int32Array,
  top: number,
  bottom: number,
  width: number,
) {
  const outline: Point[] = [];
  for (let y = top; y <= bottom; y++) {
    const start = rowStart[y] ?? width;
    const end = rowEnd[y] ?? -1;
    if (start <= end) outline.push([start, y], [end + 1, y], [start, y + 1], [end + 1, y + 1]);
    rowStart[y] = width;
    rowEnd[y] = -1;
  }
  return outline;
}
