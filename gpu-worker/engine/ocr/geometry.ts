import type { SizedRect } from "../geometry";
import type { Point, TextBox } from "./types";

/** Convex hull by Andrew's monotone chain; collinear points are dropped. */
export function convexHull(points: Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (sorted.length < 3) return sorted;
  const lower = halfHull(sorted);
  const upper = halfHull(sorted.reverse());
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

function halfHull(sorted: Point[]): Point[] {
  const hull: Point[] = [];
  for (const point of sorted) {
    while (hull.length >= 2 && cross(hull.at(-2) as Point, hull.at(-1) as Point, point) <= 0) hull.pop();
    hull.push(point);
  }
  return hull;
}

function cross(o: Point, a: Point, b: Point): number {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/** The smallest-area rectangle around a convex hull (rotating calipers: one side lies on a hull edge). */
export function minAreaRect(hull: Point[]): Point[] {
  let best: Point[] = [];
  let bestArea = Number.POSITIVE_INFINITY;
  for (let i = 0; i < hull.length; i++) {
    const from = hull[i] as Point;
    const to = hull[(i + 1) % hull.length] as Point;
    const length = Math.hypot(to[0] - from[0], to[1] - from[1]);
    if (length === 0) continue;
    const u: Point = [(to[0] - from[0]) / length, (to[1] - from[1]) / length];
    const v: Point = [-u[1], u[0]];
    const along = hull.map((p) => p[0] * u[0] + p[1] * u[1]);
    const across = hull.map((p) => p[0] * v[0] + p[1] * v[1]);
    const [minU, maxU, minV, maxV] = [
      Math.min(...along),
      Math.max(...along),
      Math.min(...across),
      Math.max(...across),
    ];
    const area = (maxU - minU) * (maxV - minV);
    if (area < bestArea) {
      bestArea = area;
      const corner = (a: number, b: number): Point => [a * u[0] + b * v[0], a * u[1] + b * v[1]];
      best = [corner(minU, minV), corner(maxU, minV), corner(maxU, maxV), corner(minU, maxV)];
    }
  }
  return best;
}

/** A rectangle's corners as top-left, top-right, bottom-right, bottom-left (clockwise on screen, y down). */
export function orderCorners(corners: Point[]): Point[] {
  const [a, b, c, d] = [...corners].sort((p, q) => p[0] - q[0]) as [Point, Point, Point, Point];
  const [topLeft, bottomLeft] = a[1] <= b[1] ? [a, b] : [b, a];
  const [topRight, bottomRight] = c[1] <= d[1] ? [c, d] : [d, c];
  return [topLeft, topRight, bottomRight, bottomLeft];
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(b[0] - a[0], b[1] - a[1]);
}

/** Width (top side) and height (left side) of ordered corners. */
export function rectSides(corners: Point[]): { width: number; height: number } {
  const [topLeft, topRight, , bottomLeft] = corners as [Point, Point, Point, Point];
  return { width: distance(topLeft, topRight), height: distance(topLeft, bottomLeft) };
}

/**
 * DB's unclip: the model predicts text regions shrunk by area * (1 - r²) / perimeter, so each side moves
 * out by area * ratio / perimeter. For a rectangle, the offset polygon's min-area box is the rectangle grown
 * by that much on every side.
 */
export function unclipRect(corners: Point[], ratio: number): Point[] {
  const { width, height } = rectSides(corners);
  const [topLeft, topRight, bottomRight, bottomLeft] = corners as [Point, Point, Point, Point];
  const offset = (width * height * ratio) / (2 * (width + height));
  const u: Point = unit(topLeft, topRight, [1, 0]);
  const v: Point = unit(topLeft, bottomLeft, [-u[1], u[0]]);
  const move = (p: Point, su: number, sv: number): Point => [
    p[0] + offset * (su * u[0] + sv * v[0]),
    p[1] + offset * (su * u[1] + sv * v[1]),
  ];
  return [move(topLeft, -1, -1), move(topRight, 1, -1), move(bottomRight, 1, 1), move(bottomLeft, -1, 1)];
}

function unit(from: Point, to: Point, fallback: Point): Point {
  const length = distance(from, to);
  return length === 0 ? fallback : [(to[0] - from[0]) / length, (to[1] - from[1]) / length];
}

/** An axis-aligned rectangle as the detector gives a box: corners clockwise from the top left. */
export function rectBox(rect: SizedRect, score: number): TextBox {
  const { x, y, width, height } = rect;
  const points: Point[] = [
    [x, y],
    [x + width, y],
    [x + width, y + height],
    [x, y + height],
  ];
  return { points, box: rect, score };
}

/** Integer rectangle covering the points. */
export function boundingRect(points: Point[]): SizedRect {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.floor(Math.min(...xs));
  const y = Math.floor(Math.min(...ys));
  return { x, y, width: Math.ceil(Math.max(...xs)) - x, height: Math.ceil(Math.max(...ys)) - y };
}
