/** An RGB24 frame: width*height*3 bytes, row-major, no padding. */
export interface RgbFrame {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * In a frame's mask, a pixel masked as margin only: around letters whose outline and shadow end
 * short of the usual growth (pipeline/glyph-growth). The fill fills it like any masked pixel (its
 * sources are checked on the ring past it, away from the text's soft edge) but writes it back as the
 * frame had it: the picture there is the frame's own. Text pixels are 255.
 */
export const MARGIN_PIXEL = 128;

/**
 * A frame with its text mask: width*height bytes, 255 where text must be erased, MARGIN_PIXEL where
 * the fill fills but writes back the frame's own picture, 0 elsewhere.
 */
export interface MaskedFrame {
  frame: RgbFrame;
  mask: Uint8Array;
  /**
   * Masked pixels whose value in `frame` already estimates the picture behind the text (seen
   * through a see-through box): used where no other frame shows the picture, before inpainting.
   * RESTORED_HEAVY (pipeline/see-through.ts) where the box was a heavy plate, RESTORED elsewhere.
   */
  behind?: Uint8Array;
  /**
   * With `behind`: the mask less the pixels whose picture was restored there, so that other frames
   * may borrow the restored picture (a ticker's letters move along its band: where they are now,
   * a neighbour shows the band's restored picture).
   */
  textOnly?: Uint8Array;
}

export interface FillOptions {
  /** How many frames on each side of the centre are used as sources (the caller keeps the window). */
  windowRadius?: number;
  /** Pixels of context kept around each masked region's bounding box when cropping. */
  margin?: number;
}

/** A row-major 3x3 homography mapping pixel (x, y) of one frame to the matching point of another. */
export type Homography = readonly [number, number, number, number, number, number, number, number, number];

/**
 * A homography from its nine values, always in an array of doubles. V8 keeps arrays of small
 * integers (the identity, a whole-pixel shift) and of doubles apart, and the sampling loops,
 * compiled for one kind, were thrown away and compiled again each time the other came.
 */
export function homography(values: ArrayLike<number>): Homography {
  const h = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
  for (let k = 0; k < 9; k += 1) h[k] = values[k] as number;
  return h as unknown as Homography;
}

export const IDENTITY: Homography = homography([1, 0, 0, 0, 1, 0, 0, 0, 1]);
