import { describe, expect, it } from "vitest";
import { type BoxSightings, sightBoxEdges, sightedBox } from "../../gpu-worker/engine/pipeline/box-sightings";
import { newLineLook } from "../../gpu-worker/engine/pipeline/caption-box";
import { markTextLine } from "../../gpu-worker/engine/pipeline/masks";

const WIDTH = 320;
const HEIGHT = 180;
/** A see-through black box (half the picture shows through) and the text box a detector gives in it. */
const BOX = { x0: 60, y0: 50, x1: 260, y1: 100 };
const TEXT_BOX = { x: 80, y: 60, width: 160, height: 30 };

type Image = { width: number; height: number; data: Uint8Array };

/** Columns of the picture that are black (hair, a dark coat, a dark room), from and to. */
type DarkSpan = [number, number];

/** Mid-grey texture, black across the `dark` spans; white letters, and the box under them. */
function hookFrame(dark: DarkSpan[], withBox = true): Image {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const black = dark.some(([from, to]) => x >= from && x < to);
      const picture = black ? 6 : 100 + 10 * ((x * 7 + y * 13) % 5);
      const inBox = withBox && x >= BOX.x0 && x < BOX.x1 && y >= BOX.y0 && y < BOX.y1;
      const letter = y >= 66 && y < 84 && x >= 84 && x < 236 && x % 10 < 6;
      const value = letter ? 255 : inBox ? Math.round(picture * 0.5) : picture;
      data.fill(value, (y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3);
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** Pixels of the box left unmarked, over the whole box or only where it changes the picture it lies on. */
function boxPixelsMissed(mask: Uint8Array, shown?: Image): number {
  let missed = 0;
  for (let y = BOX.y0; y < BOX.y1; y++) {
    for (let x = BOX.x0; x < BOX.x1; x++) {
      const darkened = !shown || (shown.data[(y * WIDTH + x) * 3] as number) > 6;
      if (darkened && !mask[y * WIDTH + x]) missed++;
    }
  }
  return missed;
}

const sampled = (image: Image) => ({ box: TEXT_BOX, edges: sightBoxEdges(image, TEXT_BOX, 1) });

describe("a caption's box told from the samples of its line together", () => {
  it("marks a see-through box whole from the line's first frame, though no frame shows all four of its edges", () => {
    // First the picture is black under the box's left half (no left edge, and only part of the top
    // and bottom show); later the black has moved under its right end (no right edge).
    const first = hookFrame([[0, 170]]);
    const later = hookFrame([[200, WIDTH]]);
    const alone = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(first, TEXT_BOX, alone, newLineLook());
    const box = (BOX.x1 - BOX.x0) * (BOX.y1 - BOX.y0);
    // Alone, the first frame shows no box: only the letters are marked, and the box stays on screen.
    expect(boxPixelsMissed(alone)).toBeGreaterThan(box / 2);

    const sighted = sightedBox([sampled(first), sampled(later)]);
    expect(sighted).toBeDefined();
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(first, TEXT_BOX, mask, newLineLook(sighted));
    expect(boxPixelsMissed(mask)).toBe(0);
    // The box and a few pixels for chroma bleed, nothing far beyond it.
    expect(mask[(BOX.y0 - 8) * WIDTH + 160]).toBe(0);
    expect(mask[75 * WIDTH + BOX.x0 - 8]).toBe(0);
    expect(mask[75 * WIDTH + BOX.x1 + 8]).toBe(0);
  });

  it("makes no box of letters over texture, nor of one straight edge in the scene near them", () => {
    let seed = 5;
    const textured = (): Image => {
      const image = hookFrame([], false);
      for (let i = 0; i < image.data.length; i += 3) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const value = image.data[i] as number;
        if (value === 255) continue;
        image.data.fill(40 + Math.floor((seed / 2147483648) * 160), i, i + 3);
      }
      return image;
    };
    const samples = [textured(), textured(), textured(), textured()].map(sampled);
    expect(sightedBox(samples)).toBeUndefined();

    // A shelf's edge above the caption on every sample: one edge, not a box.
    const shelf = (): Image => {
      const image = textured();
      for (let y = 0; y < 45; y++) image.data.fill(230, y * WIDTH * 3, (y + 1) * WIDTH * 3);
      return image;
    };
    const withShelf = [shelf(), shelf(), shelf()].map(sampled);
    expect(withShelf.every(({ edges }) => edges.top !== undefined)).toBe(true);
    expect(sightedBox(withShelf)).toBeUndefined();
  });

  it("needs an edge seen in one place on two samples, or clearly on one", () => {
    const edge = (at: number, strength: number) => ({ at, strength, boxBrighter: false });
    const sides = (left: ReturnType<typeof edge>): BoxSightings => ({
      top: edge(50, 0.9),
      bottom: edge(100, 0.9),
      left,
      right: edge(260, 0.9),
    });
    const faint = (at: number) => ({ box: TEXT_BOX, edges: sides(edge(at, 0.4)) });
    expect(sightedBox([faint(60), faint(90)])).toBeUndefined();
    expect(sightedBox([faint(60), faint(61)])?.box.x0).toBe(58);
  });

  it("takes no side whose sightings mostly lie elsewhere: the scene's edges beside a line without a box", () => {
    // As on ho5-tree-hook's handle over leaves: its right side sighted on every sample, in one place
    // on four of nine and in five other places on the rest.
    const edge = (at: number, strength = 0.6) => ({ at, strength, boxBrighter: false });
    const sample = (right: number) => ({
      box: TEXT_BOX,
      edges: { top: edge(50, 0.3), bottom: edge(100, 0.3), left: edge(60), right: edge(right) },
    });
    const scattered = [260, 260, 260, 260, 254, 305, 248, 294, 294].map(sample);
    expect(sightedBox(scattered)).toBeUndefined();
    // The same place on five of nine holds, as a box's edge over a busy picture does.
    const mostly = [260, 260, 260, 260, 261, 305, 248, 294, 294].map(sample);
    expect(sightedBox(mostly)?.box.x1).toBe(263);
  });

  it("marks a see-through box whose sides no sample shows, at the padding its top and bottom give the text", () => {
    // A dark room under both ends of the box on every sample: its top and bottom step only over the
    // face between, and it has no side to find.
    const underEnds = (left: number, right: number): DarkSpan[] => [
      [0, left],
      [right, WIDTH],
    ];
    const frames = [hookFrame(underEnds(110, 210)), hookFrame(underEnds(120, 200))];
    const alone = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(frames[0] as Image, TEXT_BOX, alone, newLineLook());
    expect(boxPixelsMissed(alone, frames[0])).toBeGreaterThan(1000);

    const sighted = sightedBox(frames.map(sampled));
    expect(sighted).toBeDefined();
    for (const frame of frames) {
      const mask = new Uint8Array(WIDTH * HEIGHT);
      markTextLine(frame, TEXT_BOX, mask, newLineLook(sighted));
      expect(boxPixelsMissed(mask, frame)).toBe(0);
      expect(mask[75 * WIDTH + BOX.x0 - 8]).toBe(0);
      expect(mask[75 * WIDTH + BOX.x1 + 8]).toBe(0);
    }
  });

  it("takes a side that no sample sighted (a dark plate over a picture as dark) as the mirror of the other", () => {
    const edge = (at: number) => ({ at, strength: 0.9, boxBrighter: false });
    // The text from 80 to 240 across, 60 to 90 down; the plate 20 px past it left and 10 above and below.
    const unsightedRight = { box: TEXT_BOX, edges: { top: edge(50), bottom: edge(100), left: edge(60) } };
    expect(sightedBox([unsightedRight, unsightedRight])?.box).toEqual({ x0: 57, y0: 47, x1: 263, y1: 103 });
    // Edges the scene gives a word (a face above it, a chin just below): its top and bottom do not pad
    // it alike, and no side is made up.
    const scene = { box: TEXT_BOX, edges: { top: edge(17), bottom: edge(92), left: edge(60) } };
    expect(sightedBox([scene, scene])).toBeUndefined();
    // Two sides unsighted, not left and right: no box.
    const twoUnsighted = { box: TEXT_BOX, edges: { top: edge(50), left: edge(60) } };
    expect(sightedBox([twoUnsighted, twoUnsighted])).toBeUndefined();
    // Left and right unsighted: only where top and bottom pad the text alike.
    const noSides = (bottom: number) => ({ box: TEXT_BOX, edges: { top: edge(50), bottom: edge(bottom) } });
    expect(sightedBox([noSides(100), noSides(100)])?.box).toEqual({ x0: 67, y0: 47, x1: 253, y1: 103 });
    expect(sightedBox([noSides(120), noSides(120)])).toBeUndefined();
  });
});
