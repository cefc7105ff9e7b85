import type { AffineMap } from "./frame-sampler";
import { distance } from "./geometry";
import type { Point, TextBox } from "./types";

/** PP-OCRv4 rec reads strips 48 pixels high. */
export const RECOGNITION_HEIGHT = 48;

/** How to sample one box into a horizontal strip RECOGNITION_HEIGHT high and width wide. */
export interface TextCrop {
  map: AffineMap;
  width: number;
}

/**
 * The box's rectangle, rotated upright and scaled to the strip height with its aspect ratio kept. Boxes at
 * least 1.5 times taller than wide are read as vertical text turned a quarter anticlockwise, as PaddleOCR
 * does.
 */
export function textCrop(box: TextBox, maxWidth: number): TextCrop {
  const [topLeft, topRight, bottomRight, bottomLeft] = box.points as [Point, Point, Point, Point];
  const width = Math.max(distance(topLeft, topRight), distance(bottomLeft, bottomRight));
  const height = Math.max(distance(topLeft, bottomLeft), distance(topRight, bottomRight));
  const vertical = height >= 1.5 * width;
  const [origin, alongEnd, acrossEnd] = vertical
    ? [topRight, bottomRight, topLeft]
    : [topLeft, topRight, bottomLeft];
  const [length, thickness] = vertical ? [height, width] : [width, height];
  const stripWidth = Math.min(
    maxWidth,
    Math.max(1, Math.round((RECOGNITION_HEIGHT * length) / Math.max(thickness, 1))),
  );
  return {
    width: stripWidth,
    map: {
      origin,
      xStep: [(alongEnd[0] - origin[0]) / stripWidth, (alongEnd[1] - origin[1]) / stripWidth],
      yStep: [
        (acrossEnd[0] - origin[0]) / RECOGNITION_HEIGHT,
        (acrossEnd[1] - origin[1]) / RECOGNITION_HEIGHT,
      ],
    },
  };
}
