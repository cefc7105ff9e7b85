import { describe, expect, it } from "vitest";
import { markTextLine } from "../../gpu-worker/engine/pipeline/masks";

/**
 * markTextLine grows the letters it cut by colour over their outline and shadow, and no further:
 * the picture around them is the frame's own and stays as it was.
 */
const WIDTH = 240;
const HEIGHT = 100;
/** The line's box, as a detector gives it: 44 px tall, so a fixed growth would be 5 px. */
const BOX = { x: 30, y: 28, width: 180, height: 44 };
/** Letter-like strokes: 4 px bars, 30 px tall, every 14 px. */
const onLetter = (x: number, y: number) => y >= 35 && y < 65 && x >= 40 && x < 200 && (x - 40) % 14 < 4;

/** Within `d` pixels (square) of a letter, and not on one. */
function near(x: number, y: number, d: number): boolean {
  for (let dy = -d; dy <= d; dy++) for (let dx = -d; dx <= d; dx++) if (onLetter(x + dx, y + dy)) return true;
  return false;
}

/** A fixed pseudo-random value in [0, 1) per pixel. */
const noise = (x: number, y: number) => ((((x * 73856093) ^ (y * 19349663)) >>> 0) % 1000) / 1000;

type Paint = (x: number, y: number) => [number, number, number];

function frame(paint: Paint) {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) data.set(paint(x, y), (y * WIDTH + x) * 3);
  return { width: WIDTH, height: HEIGHT, data };
}

/** Share of the pixels that `where` picks (inside the box and its growth room) that are marked. */
function markedShare(mask: Uint8Array, where: (x: number, y: number) => boolean): number {
  let picked = 0;
  let marked = 0;
  for (let y = BOX.y - 8; y < BOX.y + BOX.height + 8; y++) {
    for (let x = BOX.x - 8; x < BOX.x + BOX.width + 8; x++) {
      if (!where(x, y)) continue;
      picked += 1;
      if (mask[y * WIDTH + x] === 255) marked += 1;
    }
  }
  return marked / picked;
}

/** A busy picture: grey levels from 20 to 140, changing from pixel to pixel. */
const busy = (x: number, y: number): [number, number, number] => {
  const v = 20 + Math.round(120 * noise(x, y));
  return [v, v, v];
};

describe("the growth of a line's letters", () => {
  it("takes a thick dark outline that the colour cut left over a dark picture", () => {
    const brown = (x: number, y: number): [number, number, number] => {
      const v = Math.round(8 * noise(x, y));
      return [50 + v, 30 + v, 20 + v];
    };
    const outlined: Paint = (x, y) =>
      onLetter(x, y) ? [250, 250, 250] : near(x, y, 3) ? [5, 5, 5] : brown(x, y);
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(frame(outlined), BOX, mask);
    expect(markedShare(mask, onLetter)).toBeGreaterThan(0.95);
    expect(markedShare(mask, (x, y) => !onLetter(x, y) && near(x, y, 3))).toBeGreaterThan(0.95);
  });

  it("takes a black outline over a picture dark in places, a face beside a dark room", () => {
    // Half the picture around the line is the room, as dark as the outline's outer, anti-aliased
    // pixels: the background's darkest quarter is no lighter than the outline, and those pixels stayed.
    const faceAndRoom = (x: number, y: number): [number, number, number] => {
      const v = Math.round(10 * noise(x, y));
      return x < WIDTH / 2 ? [4 + v, 4 + v, 4 + v] : [200 + v, 150 + v, 120 + v];
    };
    const outlined: Paint = (x, y) =>
      onLetter(x, y) ? [250, 220, 40] : near(x, y, 3) ? [2, 2, 2] : faceAndRoom(x, y);
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(frame(outlined), BOX, mask);
    expect(markedShare(mask, (x, y) => !onLetter(x, y) && near(x, y, 3))).toBeGreaterThan(0.95);
  });

  it("takes a drop shadow over a busy picture", () => {
    const shadowed: Paint = (x, y) => {
      if (onLetter(x, y)) return [250, 250, 250];
      const under = busy(x, y);
      // The letters' shadow, 3 px down and right, darkens the picture to 40 %.
      return near(x - 2, y - 2, 1)
        ? (under.map((v) => Math.round(0.4 * v)) as [number, number, number])
        : under;
    };
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(frame(shadowed), BOX, mask);
    expect(markedShare(mask, (x, y) => !onLetter(x, y) && near(x - 2, y - 2, 1))).toBeGreaterThan(0.9);
  });

  it("leaves the busy picture around plain letters to the frame", () => {
    const plain: Paint = (x, y) => (onLetter(x, y) ? [250, 250, 250] : busy(x, y));
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(frame(plain), BOX, mask);
    expect(markedShare(mask, onLetter)).toBeGreaterThan(0.95);
    // Three pixels and more from the letters is picture (the growth takes one ring past the letters'
    // anti-aliased edge): a fixed growth of 5 px marked all of it.
    expect(markedShare(mask, (x, y) => !near(x, y, 2))).toBeLessThan(0.05);
  });
});
