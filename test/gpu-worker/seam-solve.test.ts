import { describe, expect, it } from "vitest";
import { fuseSeams } from "../../gpu-worker/engine/fill/blend";
import { type CropWork, Source } from "../../gpu-worker/engine/fill/crop";
import type { GroupShows } from "../../gpu-worker/engine/fill/temporal";

/** The picture behind the band: a gentle ramp in both directions, so the fill has gradients to keep. */
const picture = (x: number, y: number, channel: number) => 60 + Math.floor(x / 8) + y + channel * 20;

/**
 * A crop 440x80 with a band 400x40 masked in its middle, filled (Source.neighbours) from a frame
 * whose exposure was `drift` levels lower than this one's. The ring says how far only at the
 * band's two ends: along its top and bottom the borrowed frames show an outline the mask missed
 * (an offset above `maxOffset`, so the ring says nothing there), as around a ticker's band.
 */
function driftedBand(drift: number): {
  work: CropWork;
  ring: GroupShows;
  band: (x: number, y: number) => boolean;
} {
  const width = 440;
  const height = 80;
  const band = (x: number, y: number) => x >= 20 && x < 420 && y >= 20 && y < 60;
  const frame = { width, height, data: new Uint8Array(width * height * 3) };
  const masked = new Uint8Array(width * height);
  const source = new Uint8Array(width * height);
  const fill = new Float32Array(width * height * 3);
  const shown = new Float32Array(width * height * 3).fill(Number.NaN);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = y * width + x;
      const inBand = band(x, y);
      masked[i] = inBand ? 1 : 0;
      if (inBand) source[i] = Source.neighbours;
      const outline = !inBand && x >= 20 && x < 420;
      for (let c = 0; c < 3; c += 1) {
        const value = picture(x, y, c);
        frame.data[i * 3 + c] = inBand ? 255 : value;
        if (inBand) fill[i * 3 + c] = value - drift;
        else shown[i * 3 + c] = outline ? value - 120 : value - drift;
      }
    }
  }
  const maskedPixels = Uint32Array.from(Array.from(masked).flatMap((m, i) => (m ? [i] : [])));
  const work: CropWork = {
    rect: { x: 0, y: 0, width, height },
    frame,
    masked,
    margin: new Uint8Array(width * height),
    maskedPixels,
    inside: new Float32Array(width * height),
    outside: new Float32Array(width * height),
    source,
    fill,
    // One group: the whole band was borrowed from the same frames.
    groups: [],
    group: Uint16Array.from(source, (kind) => (kind === Source.neighbours ? 1 : 0)),
    movedSince: new Uint8Array(width * height),
  };
  const ring: GroupShows = (_, j) =>
    Number.isNaN(shown[j * 3]) ? undefined : shown.subarray(j * 3, j * 3 + 3);
  return { work, ring, band };
}

describe("seam blend on a wide hole", () => {
  it("takes a drift measured only at a 400 px band's ends out all across it", () => {
    const { work, ring, band } = driftedBand(30);
    fuseSeams(work, ring, 40);
    const { width, height } = work.rect;
    let worst = 0;
    let worstRing = 0;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const i = y * width + x;
        if (!band(x, y)) {
          // Only masked pixels change.
          expect(work.fill[i * 3]).toBe(0);
          continue;
        }
        for (let c = 0; c < 3; c += 1) {
          worst = Math.max(worst, Math.abs((work.fill[i * 3 + c] as number) - picture(x, y, c)));
          // The step against the frame at the band's left and right edges.
          if (x === 20 || x === 419) {
            const outside = x === 20 ? x - 1 : x + 1;
            const step =
              (work.fill[i * 3 + c] as number) - (work.frame.data[(y * width + outside) * 3 + c] as number);
            worstRing = Math.max(worstRing, Math.abs(step - (picture(x, y, c) - picture(outside, y, c))));
          }
        }
      }
    }
    console.info(
      `wide band: largest error ${worst.toFixed(2)} levels, step at the ring ${worstRing.toFixed(2)}`,
    );
    expect(worstRing).toBeLessThan(1);
    expect(worst).toBeLessThan(1);
  });

  it("leaves a band whose borrowed pixels match the frame as it was", () => {
    const { work, ring } = driftedBand(0);
    const before = work.fill.slice();
    fuseSeams(work, ring, 40);
    expect(work.fill).toEqual(before);
  });

  it("takes out the light step of a patch borrowed from another frame inside the hole, and keeps an edge along its seam", () => {
    // A hook's box 200x40, borrowed from near frames that match the frame (group 1), but for its
    // letters, here one block 100x16, which only a frame far on showed, 20 levels darker (group 2).
    // The picture has a 40-level step along part of the block's top, which must stay.
    const width = 240;
    const height = 80;
    const hole = (x: number, y: number) => x >= 20 && x < 220 && y >= 20 && y < 60;
    const letters = (x: number, y: number) => x >= 70 && x < 170 && y >= 32 && y < 48;
    const edgeRow = 32;
    const edge = (x: number, y: number) => (x >= 80 && x < 110 && y >= edgeRow ? 40 : 0);
    const scene = (x: number, y: number, c: number) => picture(x, y, c) + edge(x, y);
    const frame = { width, height, data: new Uint8Array(width * height * 3) };
    const masked = new Uint8Array(width * height);
    const source = new Uint8Array(width * height);
    const group = new Uint16Array(width * height);
    const fill = new Float32Array(width * height * 3);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const i = y * width + x;
        const inHole = hole(x, y);
        masked[i] = inHole ? 1 : 0;
        source[i] = inHole ? Source.neighbours : Source.none;
        group[i] = inHole ? (letters(x, y) ? 2 : 1) : 0;
        for (let c = 0; c < 3; c += 1) {
          frame.data[i * 3 + c] = inHole ? 255 : scene(x, y, c);
          if (inHole) fill[i * 3 + c] = scene(x, y, c) - (letters(x, y) ? 20 : 0);
        }
      }
    }
    const work: CropWork = {
      rect: { x: 0, y: 0, width, height },
      frame,
      masked,
      margin: new Uint8Array(width * height),
      maskedPixels: Uint32Array.from(Array.from(masked).flatMap((m, i) => (m ? [i] : []))),
      inside: new Float32Array(width * height),
      outside: new Float32Array(width * height),
      source,
      fill,
      groups: [],
      group,
      movedSince: new Uint8Array(width * height),
    };
    // The near frames show the ring as the frame has it; the far one shows none of it.
    const shows: GroupShows = (g, j) =>
      g === 1 ? Float32Array.from([0, 1, 2], (c) => scene(j % width, Math.floor(j / width), c)) : undefined;
    fuseSeams(work, shows, 40);
    let worst = 0;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        if (!hole(x, y)) continue;
        const i = y * width + x;
        for (let c = 0; c < 3; c += 1)
          worst = Math.max(worst, Math.abs((work.fill[i * 3 + c] as number) - scene(x, y, c)));
      }
    }
    const at = (x: number, y: number) => work.fill[(y * width + x) * 3] as number;
    const keptEdge = Math.min(...[85, 95, 105].map((x) => at(x, edgeRow) - at(x, edgeRow - 1) - 1));
    console.info(
      `darker patch: largest error ${worst.toFixed(2)} levels, edge along its seam ${keptEdge.toFixed(1)} of 40`,
    );
    expect(worst).toBeLessThan(3);
    expect(keptEdge).toBeGreaterThan(37);
  });
});
