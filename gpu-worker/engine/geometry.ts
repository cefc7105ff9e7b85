/**
 * The engine's two rectangles, one per meaning. SizedRect is what is measured (a detector's box, a
 * crop): a corner and a size, in frame pixels, fractional where measured. EdgeRect is a set of whole
 * pixels to walk over: its edges, x0 and y0 inclusive, x1 and y1 exclusive.
 */
export interface SizedRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface EdgeRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The area two rectangles share, or undefined where they share none (touching edges do not). */
export function intersection(a: SizedRect, b: SizedRect): SizedRect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

/** Whether two rectangles share some area (touching edges do not). */
export function overlaps(a: SizedRect, b: SizedRect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
