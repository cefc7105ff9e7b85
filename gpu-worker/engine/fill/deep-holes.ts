/**
 * The inside of a thick hole, inpainted at half resolution. Telea's inpainting estimates each pixel
 * from the pixels within its radius that are already known, marching in from the hole's edge: across
 * a band 54 px tall (real-city's solid ticker, which no frame shows behind) a 5 px neighbourhood
 * carries the edge's columns in as streaks, and a wider one, which averages more of the edge, costs
 * about the square of its radius (a 720x54 band: 62 ms at 5 px, 214 ms at 12). At half resolution a
 * radius of 6 reaches as far as 12 at full, on a quarter of the pixels; the full-resolution fill
 * then finishes the rim, where the edge's own detail matters, around the upsampled inside. Such a
 * band costs about what it did (51 ms against 47), and real-city gained 0.33 dB inside the masks, its
 * flicker under Telea's.
 */

/** Holes with pixels at least this far from the nearest known pixel are filled inside first. */
export const THICK = 14;
/**
 * The rim left to the full-resolution fill: pixels up to this far from a known pixel. A caption the
 * moment it appears, before any frame shows what it hides, is such a hole too (its bold letters and
 * outline make one blob), and on caption-pan a 6 px rim cost 0.19 dB inside the masks where 10 gains.
 */
const RIM = 10;
/** Telea's radius at half resolution: 12 px at full. */
export const HALF_RADIUS = 6;

/** An RGB picture with holes: `holes` non-zero where the pixels are to be filled. */
export interface HoledPicture {
  pixels: Uint8ClampedArray;
  holes: Uint8Array;
  width: number;
  height: number;
}

/**
 * Half the size: each 2x2 cell's mean over its known pixels, a hole where it has none. A picture of
 * odd size drops its last column or row into the cell before.
 */
export function halfSize(picture: HoledPicture): HoledPicture {
  const { pixels, holes, width, height } = picture;
  const halfWidth = Math.max(1, width >> 1);
  const halfHeight = Math.max(1, height >> 1);
  const sums = new Float64Array(halfWidth * halfHeight * 4);
  for (let y = 0; y < height; y += 1) {
    const cy = Math.min(halfHeight - 1, y >> 1);
    for (let x = 0; x < width; x += 1) {
      const i = y * width + x;
      if (holes[i]) continue;
      const cell = (cy * halfWidth + Math.min(halfWidth - 1, x >> 1)) * 4;
      for (let c = 0; c < 3; c += 1)
        sums[cell + c] = (sums[cell + c] as number) + (pixels[i * 3 + c] as number);
      sums[cell + 3] = (sums[cell + 3] as number) + 1;
    }
  }
  const half: HoledPicture = {
    pixels: new Uint8ClampedArray(halfWidth * halfHeight * 3),
    holes: new Uint8Array(halfWidth * halfHeight),
    width: halfWidth,
    height: halfHeight,
  };
  for (let k = 0; k < halfWidth * halfHeight; k += 1) {
    const count = sums[k * 4 + 3] as number;
    if (count === 0) {
      half.holes[k] = 255;
      continue;
    }
    for (let c = 0; c < 3; c += 1) half.pixels[k * 3 + c] = (sums[k * 4 + c] as number) / count;
  }
  return half;
}

/**
 * Writes `upsampled` (the half-resolution fill brought back to `picture`'s size) into the hole
 * pixels of `picture` deeper than RIM (`depth`: each pixel's distance to the nearest known one), and
 * marks them known.
 */
export function fillInside(picture: HoledPicture, depth: Float32Array, upsampled: Uint8Array): void {
  const { pixels, holes } = picture;
  for (let i = 0; i < holes.length; i += 1) {
    if (!holes[i] || (depth[i] as number) <= RIM) continue;
    for (let c = 0; c < 3; c += 1) pixels[i * 3 + c] = upsampled[i * 3 + c] as number;
    holes[i] = 0;
  }
}
