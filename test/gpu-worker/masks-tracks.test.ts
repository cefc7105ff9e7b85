import path from "node:path";
import { describe, expect, it } from "vitest";
import { newLineLook } from "../../gpu-worker/engine/pipeline/caption-box";
import { extendToSlivers } from "../../gpu-worker/engine/pipeline/edge-entry";
import { markTextLine } from "../../gpu-worker/engine/pipeline/masks";
import {
  estimateSeeThrough,
  RESTORED_HEAVY,
  type SeeThrough,
  seeThroughBox,
} from "../../gpu-worker/engine/pipeline/see-through";
import { buildTracks, type Detection, type Track } from "../../gpu-worker/engine/pipeline/tracks";
import { fixtureFrame } from "../helpers/pictures";

const WIDTH = 320;
const HEIGHT = 180;
/** A hook over a building's windows, from a held-out clip of vtest.avi (frame 10, x 180 to 700). */
const HOOK_OVER_BUILDING = path.resolve(import.meta.dirname, "../fixtures/hook-over-building.png");
/**
 * A hook drawn small on a 9:16 frame (Megamind.avi, a held-out clip), 200x100 from the frame's top:
 * "WAIT FOR IT" on a black box at 50 % over a forehead, the box from x 40 to 156 and y 37 to 58,
 * padding its words by two or three pixels.
 */
const SMALL_PADDING_HOOK = path.resolve(import.meta.dirname, "../fixtures/hook-small-padding.png");
const BLUE_BAND = path.resolve(import.meta.dirname, "../fixtures/blue-band-over-jacket.png");
const PLATE_DARK_SIDE = path.resolve(import.meta.dirname, "../fixtures/subtitle-plate-dark-side.png");
/**
 * real-words-windows' frame 52, x 40 to 240 and y 330 to 450: "UP" in yellow with a dark outline
 * from x 89 to 136 and y 52 to 83 of the crop, over a tower's rows of lit windows (city.mp4).
 */
const WORD_OVER_STRIPES = path.resolve(import.meta.dirname, "../fixtures/word-over-stripes.png");
/** See the describe block "a lower third's plate at 92 %". */
const LOWER_THIRD = path.resolve(import.meta.dirname, "../fixtures/lower-third-heavy.png");
const LOWER_THIRD_BEHIND = path.resolve(import.meta.dirname, "../fixtures/lower-third-heavy-behind.png");
const RED: [number, number, number] = [210, 40, 40];
/** The price tag's box, and the text box a detector gives inside it. */
const TAG = { x0: 100, y0: 60, x1: 220, y1: 110 };
const TEXT_BOX = { x: 110, y: 68, width: 100, height: 34 };

type Paint = (x: number, y: number) => [number, number, number];

/** A frame painted by `background`, with a solid red tag holding white letter-like bars, `dx` to the right. */
function tagFrame(background: Paint, dx = 0): { width: number; height: number; data: Uint8Array } {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const onTag = x >= TAG.x0 + dx && x < TAG.x1 + dx && y >= TAG.y0 && y < TAG.y1;
      const onLetter = onTag && y >= 74 && y < 96 && x >= 114 + dx && x < 206 + dx && (x - dx) % 10 < 6;
      data.set(onLetter ? [255, 255, 255] : onTag ? RED : background(x, y), (y * WIDTH + x) * 3);
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

/** Bright yellow on the left, dark blue on the right: the tag's edges step both ways in brightness. */
const splitBackground: Paint = (x) => (x < 160 ? [235, 205, 60] : [20, 25, 90]);

function tagPixelsMissed(mask: Uint8Array): number {
  let missed = 0;
  for (let y = TAG.y0; y < TAG.y1; y++) {
    for (let x = TAG.x0; x < TAG.x1; x++) if (!mask[y * WIDTH + x]) missed++;
  }
  return missed;
}

/**
 * Marks the line at `box` on a crop of real footage, and gives the share of the mask set between
 * columns x0 and x1 over `rows` (first, last + 1).
 */
function markedOnCrop(
  file: string,
  width: number,
  height: number,
  box: { x: number; y: number; width: number; height: number },
  [top, bottom]: [number, number],
): (x0: number, x1: number) => number {
  const { data } = fixtureFrame(file, width, height);
  const mask = new Uint8Array(width * height);
  markTextLine({ width, height, data }, box, mask);
  return (x0, x1) => {
    let count = 0;
    for (let y = top; y < bottom; y++) for (let x = x0; x < x1; x++) if (mask[y * width + x]) count++;
    return count / ((x1 - x0) * (bottom - top));
  };
}

describe("markTextLine on a caption's own box", () => {
  it("marks the whole solid tag, even where the background behind it is lighter on one side and darker on the other", () => {
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(tagFrame(splitBackground), TEXT_BOX, mask);
    expect(tagPixelsMissed(mask)).toBe(0);
    // The box, a few pixels for chroma bleed, and nothing far beyond it.
    expect(mask[40 * WIDTH + 160]).toBe(0);
    expect(mask[85 * WIDTH + 60]).toBe(0);
  });

  it("keeps the tag found on earlier frames of the line on a frame where one of its edges cannot be seen", () => {
    const look = newLineLook();
    for (let frame = 0; frame < 2; frame++) {
      markTextLine(tagFrame(splitBackground), TEXT_BOX, new Uint8Array(WIDTH * HEIGHT), look);
    }
    // Mottled red from the tag to the frame's right edge: that edge vanishes, and alone the frame
    // shows no box.
    const mottled = (x: number, y: number) => ((x * 7919 + y * 104729) % 61) - 30;
    const hidden = tagFrame((x, y) =>
      x >= TAG.x1 && y >= TAG.y0 - 10 && y < TAG.y1 + 10
        ? (RED.map((c) => c + mottled(x, y)) as [number, number, number])
        : splitBackground(x, y),
    );
    const alone = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(hidden, TEXT_BOX, alone);
    expect(tagPixelsMissed(alone)).toBeGreaterThan(0);
    const remembered = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(hidden, TEXT_BOX, remembered, look);
    expect(tagPixelsMissed(remembered)).toBe(0);
  });

  it("still finds the tag after its first frames showed none, once the shot changes", () => {
    const look = newLineLook();
    // The first shot is as red as the tag: only the letters show.
    const redShot = tagFrame(() => RED);
    for (let frame = 0; frame < 15; frame++) {
      markTextLine(redShot, TEXT_BOX, new Uint8Array(WIDTH * HEIGHT), look);
    }
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(tagFrame(splitBackground), TEXT_BOX, mask, look);
    expect(tagPixelsMissed(mask)).toBe(0);
  });

  it("keeps the tag in place when a later reading of the line takes in one more word, and moves it when the line slides", () => {
    const look = newLineLook();
    // The first frames read only the left part of the words (the detector split the line).
    const leftWords = { ...TEXT_BOX, width: 60 };
    for (let frame = 0; frame < 2; frame++) {
      markTextLine(tagFrame(splitBackground), leftWords, new Uint8Array(WIDTH * HEIGHT), look);
    }
    // Then the whole line is read: its box grows to the right, the words did not move.
    const whole = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(tagFrame(splitBackground), TEXT_BOX, whole, look);
    expect(tagPixelsMissed(whole)).toBe(0);
    // The same line 30 pixels to the right: the remembered tag goes with it.
    const slid = tagFrame(splitBackground, 30);
    const moved = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(slid, { ...TEXT_BOX, x: TEXT_BOX.x + 30 }, moved, look);
    expect(moved[85 * WIDTH + TAG.x1 + 20]).toBe(255);
    expect(moved[85 * WIDTH + TAG.x0 + 5]).toBe(0);
  });

  it("marks a box whose edges the detector's box takes in, as it does where the box pads its words little", () => {
    const width = 200;
    const height = 100;
    const { data } = fixtureFrame(SMALL_PADDING_HOOK, width, height);
    const mask = new Uint8Array(width * height);
    // The detector's box on that frame: its last row lies a row past the box's.
    markTextLine({ width, height, data }, { x: 41, y: 38, width: 115, height: 21 }, mask);
    let boxMarked = 0;
    for (let y = 37; y < 59; y++) for (let x = 40; x < 156; x++) boxMarked += mask[y * width + x] ? 1 : 0;
    expect(boxMarked / (116 * 22)).toBeGreaterThan(0.99);
    // The forehead below it stays.
    for (let y = 66; y < height; y++) for (let x = 0; x < width; x++) expect(mask[y * width + x]).toBe(0);
  });

  /** Rows and columns (first, last + 1) of the box (`whole`) and of the picture beside it (`beside`). */
  type Area = Record<"rows" | "whole" | "beside", [number, number]>;
  /**
   * Lines on their box in crops of real footage: the box is marked whole and the picture beside it
   * is left as it is.
   */
  const boxesOnFootage = [
    {
      // A crop of vtest.avi (x 180 to 700, the top 130 rows) with a hook on a black box at 50 % from
      // x 49 to 359 and y 31 to 89 of the crop, over a building whose corner 90 px past the box's
      // end steps more evenly down the box's rows than the box's own side does (the box was taken
      // to x 461, the building's windows filled).
      name: "ends a see-through box where its top and bottom stop, not at the building's corner past it",
      crop: { file: HOOK_OVER_BUILDING, width: 520, height: 130 },
      text: { x: 64.8, y: 39.6, width: 275.9, height: 39.6 },
      area: { rows: [34, 86], whole: [52, 356], beside: [372, 470] } as Area,
    },
    {
      // A crop of real-subtitles' frame 50 (x 80 to 660, y 390 to 500): "NEW IN STORE TODAY" on a
      // near-black plate at 85 % from x 42 to 518 and y 32 to 83 of the crop; the plate's right end
      // lies over a dark jacket, and its side steps on half its rows there (the plate was left
      // whole, its letters alone marked).
      name: "marks a subtitle's plate whole where its one side lies over a picture as dark as the plate",
      crop: { file: PLATE_DARK_SIDE, width: 580, height: 110 },
      text: { x: 80, y: 45, width: 401, height: 30 },
      area: { rows: [34, 82], whole: [44, 516], beside: [526, 580] } as Area,
    },
  ];
  it.each(boxesOnFootage)("$name", ({ crop, text, area: { rows, whole, beside } }) => {
    const marked = markedOnCrop(crop.file, crop.width, crop.height, text, rows);
    expect(marked(...whole)).toBeGreaterThan(0.99);
    expect(marked(...beside)).toBe(0);
  });

  it("takes no box around a word over a tower's lit windows, whose rows and columns step like a box's edges", () => {
    // The word's letters and their outline, grown as letters are, and nothing a box would add: the
    // windows' edges were taken for a box from x 25 to 152 of this crop, filled whole.
    const marked = markedOnCrop(
      WORD_OVER_STRIPES,
      200,
      120,
      { x: 89, y: 52, width: 47, height: 31 },
      [45, 99],
    );
    expect(marked(89, 136)).toBeGreaterThan(0.5);
    expect(marked(0, 80)).toBe(0);
  });
});

describe("buildTracks", () => {
  const hook = { x: 386, y: 50, width: 512, height: 52 };
  const read = (frame: number, box: Detection["box"], text: string): Detection => ({
    frame,
    box,
    text,
    confidence: text ? 0.95 : 0.3,
  });

  it("does not carry a line on to an unread box elsewhere once the line has gone", () => {
    const tracks = buildTracks([
      { frame: 0, detections: [read(0, hook, "WAIT FOR THE END")] },
      { frame: 13, detections: [read(13, hook, "WAIT FOR THE END")] },
      { frame: 26, detections: [read(26, { x: 762, y: 22, width: 54, height: 32 }, "")] },
    ]);
    expect(tracks.map((track) => [track.first, track.last])).toEqual([
      [0, 13],
      [26, 26],
    ]);
  });

  it("starts a new line where a longer subtitle takes a short one's place, and keeps a line read in part", () => {
    const short = { x: 217, y: 296, width: 208, height: 40 };
    const long = { x: 70, y: 300, width: 500, height: 34 };
    const tracks = buildTracks([
      { frame: 48, detections: [read(48, short, "50% OFF")] },
      { frame: 50, detections: [read(50, long, "NEW IN STORE TODAY")] },
    ]);
    expect(tracks.map((track) => [track.first, track.last])).toEqual([
      [48, 48],
      [50, 50],
    ]);
    // A longer subtitle on the same plate, its box holding the short one's (they overlap by 0.8).
    const replaced = buildTracks([
      { frame: 29, detections: [read(29, { x: 251, y: 472, width: 266, height: 36 }, "COME SEE US")] },
      { frame: 32, detections: [read(32, { x: 202, y: 473, width: 366, height: 32 }, "OPEN SEVEN DAYS")] },
    ]);
    expect(replaced.map((track) => [track.first, track.last])).toEqual([
      [29, 29],
      [32, 32],
    ]);
    // The same place read in part, then whole (a line sliding in over the frame's edge): one line.
    const partly = buildTracks([
      { frame: 0, detections: [read(0, { ...long, width: 200 }, "STORE TODAY")] },
      { frame: 2, detections: [read(2, long, "NEW IN STORE TODAY")] },
    ]);
    expect(partly).toHaveLength(1);
  });

  it("still follows a line that slides, read on both samples", () => {
    const tracks = buildTracks([
      { frame: 0, detections: [read(0, hook, "NEW DROP TODAY")] },
      { frame: 4, detections: [read(4, { ...hook, x: hook.x + 120 }, "NEW DROP TODAY")] },
    ]);
    expect(tracks).toHaveLength(1);
  });
});

describe("a line sliding in or out over the frame's side", () => {
  const at = (frame: number, box: Detection["box"]): Detection => ({
    frame,
    box,
    text: "HAPPENS",
    confidence: 0.99,
  });
  /** The first frame of a 720-wide frame's track refined to frame 6, read on frames 8 and 11 in these spans of x. */
  const startOf = (on8: [number, number], on11: [number, number]): number => {
    const box = ([x0, x1]: [number, number]) => ({ x: x0, y: 230, width: x1 - x0, height: 40 });
    const track: Track = { id: 0, detections: [at(8, box(on8)), at(11, box(on11))], first: 6, last: 90 };
    extendToSlivers(track, 720, 95);
    return track.first;
  };

  it("starts from the first frame its leading letter shows a sliver on", () => {
    // The held-out Megamind CTA clip: read from frame 8 with its right end 82 px in, 150 on 11.
    expect(startOf([0, 82], [1, 150])).toBe(5);
    // The same from the right side.
    expect(startOf([638, 720], [570, 720])).toBe(5);
  });

  it("ends on the last frame its trailing letter shows a sliver on", () => {
    // The held-out Megamind slide-out clip: its "N" read on frame 69 with its right end 27 px in, 104 on 66.
    const box = (x1: number) => ({ x: 0, y: 235, width: x1, height: 40 });
    const track: Track = { id: 0, detections: [at(66, box(104)), at(69, box(27))], first: 7, last: 69 };
    extendToSlivers(track, 720, 95);
    expect([track.first, track.last]).toEqual([7, 70]);
  });

  it("leaves a line that does not move at the side, or does not touch it, as it was", () => {
    expect(startOf([0, 82], [0, 82])).toBe(6);
    expect(startOf([40, 122], [40, 190])).toBe(6);
  });
});

describe("a see-through box", () => {
  const box = { x0: 60, y0: 50, x1: 260, y1: 130 };
  const text = { x0: 80, y0: 72, x1: 240, y1: 108 };
  /** A fine texture behind everything (alike inside and outside the box, as the estimate assumes). */
  const picture: Paint = (x, y) => {
    const value = 128 + 60 * Math.sin(x / 2.3) * Math.cos(y / 1.7) + 40 * Math.sin((x - 2 * y) / 3.1);
    return [Math.round(value), Math.round(255 - value), Math.round(0.5 * value + 40)];
  };
  const isLetter = (x: number, y: number) => y >= 78 && y < 102 && x >= 84 && x < 236 && x % 12 < 5;
  /** The picture under a black box of the given opacity, with white bars for letters. */
  function boxed(opacity: number): { width: number; height: number; data: Uint8Array } {
    const data = new Uint8Array(WIDTH * HEIGHT * 3);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const inBox = x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1;
        const colour = picture(x, y).map((v) => (inBox ? Math.round(v * (1 - opacity)) : v));
        data.set(isLetter(x, y) ? [255, 255, 255] : colour, (y * WIDTH + x) * 3);
      }
    }
    return { width: WIDTH, height: HEIGHT, data };
  }

  it("measures a blue band's opacity, whose colour fits no grey box", () => {
    // Megamind.avi (a held-out clip), 360x90: a ticker's blue (0x1565c0) band at 60 % over a jacket,
    // rows 17 to 85, across the whole crop; its words from row 39 to 69.
    const blend = estimateSeeThrough(
      fixtureFrame(BLUE_BAND, 360, 90),
      { x0: 0, y0: 17, x1: 360, y1: 85 },
      { x0: 0, y0: 39, x1: 360, y1: 69 },
    );
    // 40 % of the picture shows through; the band adds 60 % of its blue.
    expect(blend?.scale).toBeGreaterThan(0.3);
    expect(blend?.scale).toBeLessThan(0.5);
    const [red, green, blue] = blend?.offset ?? [0, 0, 0];
    expect(Math.abs(red - 0.6 * 0x15)).toBeLessThan(10);
    expect(Math.abs(green - 0.6 * 0x65)).toBeLessThan(10);
    expect(Math.abs(blue - 0.6 * 0xc0)).toBeLessThan(10);
  });

  it("gives back the picture behind it, except the letters and the edge", () => {
    const image = boxed(0.5);
    const blend = estimateSeeThrough(image, box, text);
    expect(blend?.scale).toBeCloseTo(0.5, 1);
    const behind = new Uint8Array(WIDTH * HEIGHT);
    expect(seeThroughBox(image, box, text, blend as SeeThrough, behind, 3)).toBe(true);
    let error = 0;
    let restored = 0;
    for (let y = box.y0; y < box.y1; y++) {
      for (let x = box.x0; x < box.x1; x++) {
        const p = y * WIDTH + x;
        if (!behind[p]) continue;
        expect(isLetter(x, y), `(${x}, ${y}) is a letter`).toBe(false);
        const truth = picture(x, y);
        for (let c = 0; c < 3; c++)
          error += Math.abs((image.data[p * 3 + c] as number) - (truth[c] as number));
        restored++;
      }
    }
    expect(restored).toBeGreaterThan(0.5 * (box.x1 - box.x0) * (box.y1 - box.y0));
    expect(error / restored / 3).toBeLessThan(3);
  });

  it("gives back the picture up to its true edge, and keeps the picture outside it, within the found edge's margin", () => {
    // The box found 3 px wider than drawn, as chroma bleed makes it; a smooth picture behind, within
    // what the box could show (brighter, the margin's pixels would be taken for letters).
    const smooth: Paint = (x, y) => {
      const value = 70 + 30 * Math.sin(x / 23) * Math.cos(y / 17);
      return [Math.round(value), Math.round(0.8 * value + 20), Math.round(0.5 * value + 30)];
    };
    const data = new Uint8Array(WIDTH * HEIGHT * 3);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const inBox = x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1;
        const colour = smooth(x, y).map((v) => (inBox ? Math.round(v * 0.45) : v));
        data.set(isLetter(x, y) ? [255, 255, 255] : colour, (y * WIDTH + x) * 3);
      }
    }
    const image = { width: WIDTH, height: HEIGHT, data };
    const found = { x0: box.x0 - 3, y0: box.y0 - 3, x1: box.x1 + 3, y1: box.y1 + 3 };
    const behind = new Uint8Array(WIDTH * HEIGHT);
    expect(seeThroughBox(image, found, text, { scale: 0.45, offset: [0, 0, 0] }, behind, 2)).toBe(true);
    // Every pixel of the found box's top and bottom rows, across the box's middle: the margin outside the
    // drawn box, then the drawn box's edge rows.
    for (const y of [found.y0, found.y0 + 2, box.y0, box.y0 + 4, box.y1 - 1, found.y1 - 1]) {
      for (let x = box.x0 + 20; x < box.x1 - 20; x++) {
        const p = y * WIDTH + x;
        expect(behind[p], `(${x}, ${y}) given back`).toBe(255);
        const truth = smooth(x, y);
        for (let c = 0; c < 3; c++) {
          expect(
            Math.abs((data[p * 3 + c] as number) - (truth[c] as number)),
            `(${x}, ${y})`,
          ).toBeLessThanOrEqual(3);
        }
      }
    }
  });

  it("gives back the picture between the letters too, not just around the line", () => {
    const image = boxed(0.5);
    const behind = new Uint8Array(WIDTH * HEIGHT);
    const mask = new Uint8Array(WIDTH * HEIGHT);
    const line = { x: text.x0, y: text.y0, width: text.x1 - text.x0, height: text.y1 - text.y0 };
    markTextLine(image, line, mask, newLineLook(), () => behind);
    // The 7-pixel gaps between the letter bars, on the letters' rows.
    let gaps = 0;
    let restored = 0;
    for (let y = 80; y < 100; y++) {
      for (let x = 96; x < 228; x++) {
        if (x % 12 < 7) continue;
        gaps++;
        if (behind[y * WIDTH + x]) restored++;
      }
    }
    expect(restored / gaps).toBeGreaterThan(0.3);
  });

  it("does not give back a letter's anti-aliased rim as a bright outline of the letter", () => {
    const smooth: Paint = (x, y) => {
      const value = 110 + 20 * Math.sin(x / 9) * Math.cos(y / 7);
      return [Math.round(value), Math.round(255 - value), Math.round(0.5 * value + 40)];
    };
    // Each letter bar is 4 pixels of white with a 3-pixel anti-aliased rim on both sides (40, 20
    // and 10 % white), wider than the 2 pixels the letters are grown by at this height.
    const rim = [0.1, 0.2, 0.4, 1, 1, 1, 1, 0.4, 0.2, 0.1, 0, 0];
    const data = new Uint8Array(WIDTH * HEIGHT * 3);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const inBox = x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1;
        const boxed = smooth(x, y).map((v) => (inBox ? v / 2 : v));
        const onLine = y >= 78 && y < 102 && x >= 84 && x < 236;
        const white = onLine ? (rim[(x - 84) % 12] as number) : 0;
        data.set(
          boxed.map((v) => Math.round(white * 255 + (1 - white) * v)),
          (y * WIDTH + x) * 3,
        );
      }
    }
    const image = { width: WIDTH, height: HEIGHT, data };
    const behind = new Uint8Array(WIDTH * HEIGHT);
    expect(seeThroughBox(image, box, text, { scale: 0.5, offset: [0, 0, 0] }, behind, 2)).toBe(true);
    let worst = 0;
    for (let y = 74; y < 106; y++) {
      for (let x = 80; x < 240; x++) {
        const p = y * WIDTH + x;
        if (!behind[p]) continue;
        const truth = smooth(x, y);
        for (let c = 0; c < 3; c++) {
          worst = Math.max(worst, Math.abs((data[p * 3 + c] as number) - (truth[c] as number)));
        }
      }
    }
    expect(worst).toBeLessThan(12);
  });

  it("measures a grey box's opacity right when the encoder has worn down the texture inside it", () => {
    // A colourful picture (a grey box changes its colour by the opacity alone) whose texture the
    // encoder partly loses where the box dims it: inside the box it is its 5x5 mean, at 45 %.
    const colourful: Paint = (x, y) => {
      const [value] = picture(x, y) as [number, number, number];
      return [value, Math.round(60 + 0.2 * value), Math.round(220 - 0.3 * value)];
    };
    const data = new Uint8Array(WIDTH * HEIGHT * 3);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const inBox = x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1;
        const mean = [0, 0, 0];
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            colourful(x + dx, y + dy).forEach((v, c) => {
              mean[c] = (mean[c] as number) + v / 25;
            });
          }
        }
        const colour = inBox ? mean.map((v) => Math.round(0.45 * v)) : colourful(x, y);
        data.set(isLetter(x, y) ? [255, 255, 255] : colour, (y * WIDTH + x) * 3);
      }
    }
    const blend = estimateSeeThrough({ width: WIDTH, height: HEIGHT, data }, box, text);
    expect(blend?.scale).toBeCloseTo(0.45, 1);
    for (const offset of blend?.offset ?? []) expect(Math.abs(offset)).toBeLessThan(6);
  });

  it("measures the box right when something lies under a stretch of its edge", () => {
    // A bright yellow bag under the box's top edge: dimmed inside the box, not there outside it.
    const data = boxed(0.5).data;
    for (let y = box.y0; y < box.y0 + 16; y++) {
      for (let x = box.x0 + 20; x < box.x0 + 70; x++) data.set([125, 115, 10], (y * WIDTH + x) * 3);
    }
    const blend = estimateSeeThrough({ width: WIDTH, height: HEIGHT, data }, box, text);
    expect(blend?.scale).toBeCloseTo(0.5, 1);
    for (const offset of blend?.offset ?? [Number.NaN]) expect(Math.abs(offset)).toBeLessThan(6);
  });

  it("measures a black box over a night sky right when a lit tower stands across one end of it", () => {
    // A hook's box, padding its text by a few pixels: its top and bottom bands clear of the text are a
    // row each. The tower leans, so the picture just outside the box's end is not the one just
    // inside it. Judged on the box's two ends alone (the top and bottom too short to count), the fit
    // came out at 0.45 and 8 levels on real-red-band's hook, and here the box was not seen through.
    const hookBox = { x0: 60, y0: 60, x1: 260, y1: 120 };
    const hookText = { x0: 70, y0: 67, x1: 250, y1: 113 };
    const tower = (x: number, y: number) => x > hookBox.x1 - 12 + 0.8 * (y - hookBox.y0);
    const scene: Paint = (x, y) => {
      if (tower(x, y)) return [120 + ((x * 7 + y * 3) % 40), 190 + ((x * 5) % 30), 180 + ((y * 11) % 30)];
      const cloud = 14 * Math.sin(x / 5) * Math.cos(y / 4);
      return [43 + cloud, 54 + cloud, 85 + cloud].map(Math.round) as [number, number, number];
    };
    const data = new Uint8Array(WIDTH * HEIGHT * 3);
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const inBox = x >= hookBox.x0 && x < hookBox.x1 && y >= hookBox.y0 && y < hookBox.y1;
        const colour = scene(x, y).map((v) => (inBox ? Math.round(0.5 * v) : v));
        data.set(isLetter(x, y) ? [255, 255, 255] : colour, (y * WIDTH + x) * 3);
      }
    }
    const blend = estimateSeeThrough({ width: WIDTH, height: HEIGHT, data }, hookBox, hookText);
    expect(blend?.scale).toBeCloseTo(0.5, 1);
    // The sky restored within a few levels, where 8 levels of offset took 20 off it once it dimmed.
    for (const offset of blend?.offset ?? [Number.NaN]) expect(Math.abs(offset)).toBeLessThan(3);
  });

  it("still measures a coloured box, by its texture", () => {
    const data = boxed(0).data;
    for (let y = box.y0; y < box.y1; y++) {
      for (let x = box.x0; x < box.x1; x++) {
        if (isLetter(x, y)) continue;
        const tint = [120, 20, 60];
        data.set(
          picture(x, y).map((v, c) => Math.round(0.5 * v + (tint[c] as number))),
          (y * WIDTH + x) * 3,
        );
      }
    }
    const blend = estimateSeeThrough({ width: WIDTH, height: HEIGHT, data }, box, text);
    expect(blend?.scale).toBeCloseTo(0.5, 1);
    expect(blend?.offset[0]).toBeCloseTo(120, -1);
  });

  it("is not taken for one when the box is solid", () => {
    expect(estimateSeeThrough(boxed(1), box, text)).toBeNull();
  });

  it("is not taken for one when a solid box carries the encoder's noise over a colourful picture", () => {
    const data = boxed(1).data;
    for (let y = box.y0; y < box.y1; y++) {
      for (let x = box.x0; x < box.x1; x++) {
        if (isLetter(x, y)) continue;
        const noise = (((x * 73856093) ^ (y * 19349663)) >>> 0) % 5;
        data.set([240 + noise, 240 + noise, 238 + noise], (y * WIDTH + x) * 3);
      }
    }
    expect(estimateSeeThrough({ width: WIDTH, height: HEIGHT, data }, box, text)).toBeNull();
  });
});

describe("a lower third's plate at 92 %", () => {
  // Megamind.avi at 1 s, 400x140 from y 300: a plate of 0xf2f2f2 at 92 % from (20, 30), 360x70, with
  // a solid red accent bar on its left 8 px and "DR. NOVA" in near-black, laid as bench/overlays.ts
  // lays plates and encoded by x264 at CRF 20; and the same crop without them.
  const plated = () => fixtureFrame(LOWER_THIRD, 400, 140);
  const picture = fixtureFrame(LOWER_THIRD_BEHIND, 400, 140);
  /** The box found around the plate (with the margin for the colour's bleed, the accent bar inside it), and the words'. */
  const plate = { x0: 17, y0: 27, x1: 383, y1: 103 };
  const words = { x0: 40, y0: 45, x1: 205, y1: 80 };

  it("is seen through, by the colour it takes from the picture, though its accent bar lies along one side", () => {
    const blend = estimateSeeThrough(plated(), plate, words);
    // 8 % of the picture shows; the plate adds 92 % of its 242.
    expect(blend?.scale).toBeGreaterThan(0.06);
    expect(blend?.scale).toBeLessThan(0.12);
    for (const offset of blend?.offset ?? [Number.NaN]) expect(Math.abs(offset - 0.92 * 242)).toBeLessThan(4);
  });

  it("gives back the picture behind it, within a few levels where the plate left it 159 off", () => {
    const image = plated();
    const before = Uint8Array.from(image.data);
    const blend = estimateSeeThrough(image, plate, words) as SeeThrough;
    const behind = new Uint8Array(image.width * image.height);
    expect(seeThroughBox(image, plate, words, blend, behind, 3)).toBe(true);
    let restored = 0;
    let error = 0;
    let errorBefore = 0;
    for (let p = 0; p < behind.length; p++) {
      if (!behind[p]) continue;
      // Marked as behind a heavy plate: a frame that shows the picture is taken before it.
      expect(behind[p]).toBe(RESTORED_HEAVY);
      restored++;
      for (let c = 0; c < 3; c++) {
        const truth = picture.data[p * 3 + c] as number;
        error += Math.abs((image.data[p * 3 + c] as number) - truth);
        errorBefore += Math.abs((before[p * 3 + c] as number) - truth);
      }
    }
    expect(restored).toBeGreaterThan(0.5 * 360 * 70);
    // Mean error per channel: 15 levels (the fit's scale is 0.10), against 159 for the plate as it is.
    expect(error / restored / 3).toBeLessThan(18);
    expect(errorBefore / restored / 3).toBeGreaterThan(100);
  });
});

/** Green grass-like noise: a textured picture whose edges are nowhere straight. */
const grass: Paint = (x, y) => {
  const n = ((x * 73856093) ^ (y * 19349663)) >>> 0;
  return [40 + (n % 40), 90 + ((n >> 8) % 50), 30 + ((n >> 16) % 30)];
};

/** `background` with overlay rectangles painted over it, last on top. */
function painted(
  background: Paint,
  rects: Array<{ x0: number; y0: number; x1: number; y1: number; rgb: [number, number, number] }>,
) {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const on = [...rects].reverse().find((r) => x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1);
      data.set(on ? on.rgb : background(x, y), (y * WIDTH + x) * 3);
    }
  }
  return { width: WIDTH, height: HEIGHT, data };
}

function missedIn(mask: Uint8Array, area: { x0: number; y0: number; x1: number; y1: number }): number {
  let missed = 0;
  for (let y = area.y0; y < area.y1; y++)
    for (let x = area.x0; x < area.x1; x++) if (!mask[y * WIDTH + x]) missed++;
  return missed;
}

/** Letter-like bars 6 px wide every 10 px from x0 to x1, on rows y0..y1, white unless `rgb` is given. */
const letterBars = (
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  rgb: [number, number, number] = [250, 250, 250],
) =>
  Array.from({ length: Math.floor((x1 - x0) / 10) }, (_, k) => ({
    x0: x0 + k * 10,
    y0,
    x1: x0 + k * 10 + 6,
    y1,
    rgb,
  }));

/** White letter-like bars from x0 to x1 on rows 140..160. */
const tickerLetters = (x0: number, x1: number) => letterBars(x0, x1, 140, 160);

/** `background` seen through a box of colour `rgb` at `opacity` over `area`. */
const seenThrough =
  (
    background: Paint,
    area: { x0: number; y0: number; x1: number; y1: number },
    rgb: number[],
    opacity: number,
  ): Paint =>
  (x, y) => {
    const under = background(x, y);
    if (x < area.x0 || x >= area.x1 || y < area.y0 || y >= area.y1) return under;
    return under.map((v, c) => Math.round(opacity * (rgb[c] as number) + (1 - opacity) * v)) as [
      number,
      number,
      number,
    ];
  };

describe("markTextLine on bands and plates that reach past their words", () => {
  const BAND = { x0: 0, y0: 130, x1: WIDTH, y1: 170, rgb: [25, 30, 60] as [number, number, number] };

  it("marks a ticker's band across the whole frame, to both side borders, though its words fill only part of it", () => {
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(
      painted(grass, [BAND, ...tickerLetters(120, 220)]),
      { x: 118, y: 138, width: 104, height: 24 },
      mask,
    );
    expect(missedIn(mask, BAND)).toBe(0);
    expect(mask[100 * WIDTH + 160]).toBe(0);
  });

  it("follows a solid band to the border where the picture beside it is as dark as the band for a stretch", () => {
    // Dark night sky of the band's own brightness above and below it, a band-width stretch at a time.
    const sky: [number, number, number] = [30, 34, 62];
    const nightSky: Paint = (x, y) => (x < 90 && (y < 130 || y >= 170) ? sky : grass(x, y));
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(
      painted(nightSky, [BAND, ...tickerLetters(200, 300)]),
      { x: 198, y: 138, width: 104, height: 24 },
      mask,
    );
    expect(missedIn(mask, BAND)).toBe(0);
    expect(mask[100 * WIDTH + 40]).toBe(0);
  });

  it("follows a see-through red band over a picture darker than it in one place and brighter in another", () => {
    // A night sky on the left, lit towers on the right; the band lets 30 % of them through, so it is
    // brighter than the sky and darker than the towers, but redder than both.
    const towers: Paint = (x, y) => {
      const n = ((x * 73856093) ^ (y * 19349663)) >>> 0;
      return [150 + (n % 60), 190 + ((n >> 8) % 50), 180 + ((n >> 16) % 50)];
    };
    // The towers' edge leans, as a filmed tower's does: straight down, it would pass for the band's end.
    const city: Paint = (x, y) => (x < 150 + (y >> 1) ? [20, 45, 76] : towers(x, y));
    const banded = seenThrough(city, BAND, [193, 18, 31], 0.7);
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(painted(banded, tickerLetters(20, 120)), { x: 18, y: 138, width: 104, height: 24 }, mask);
    expect(missedIn(mask, BAND)).toBe(0);
    expect(mask[100 * WIDTH + 200]).toBe(0);
  });

  it("marks a blue see-through plate as bright as the grass behind it, by its hue", () => {
    const plate = { x0: 60, y0: 120, x1: 260, y1: 175 };
    const plated = seenThrough(grass, plate, [21, 101, 192], 0.6);
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(
      painted(plated, letterBars(80, 240, 137, 157)),
      { x: 78, y: 135, width: 164, height: 24 },
      mask,
    );
    expect(missedIn(mask, plate)).toBe(0);
    expect(mask[100 * WIDTH + 160]).toBe(0);
    expect(mask[150 * WIDTH + 30]).toBe(0);
  });

  it("keeps the band where it is while the ticker's words run along it", () => {
    const look = newLineLook();
    for (const x0 of [200, 180, 160, 140]) {
      const mask = new Uint8Array(WIDTH * HEIGHT);
      const frame = painted(grass, [BAND, ...tickerLetters(x0, x0 + 100)]);
      markTextLine(frame, { x: x0 - 2, y: 138, width: 104, height: 24 }, mask, look);
      expect(missedIn(mask, BAND)).toBe(0);
    }
  });

  it("marks a lower third's whole plate, well beyond its name, and the accent bar on its side", () => {
    const plate = { x0: 30, y0: 60, x1: 280, y1: 110, rgb: [236, 236, 236] as [number, number, number] };
    const bar = { x0: 24, y0: 60, x1: 30, y1: 110, rgb: [220, 40, 50] as [number, number, number] };
    const name = letterBars(44, 124, 74, 96, [20, 20, 20]);
    const mask = new Uint8Array(WIDTH * HEIGHT);
    markTextLine(painted(grass, [plate, bar, ...name]), { x: 42, y: 72, width: 80, height: 26 }, mask);
    expect(missedIn(mask, plate)).toBe(0);
    expect(missedIn(mask, bar)).toBe(0);
    // The plate and a few pixels of chroma bleed, not the grass around it.
    expect(mask[85 * WIDTH + 300]).toBe(0);
    expect(mask[85 * WIDTH + 10]).toBe(0);
    expect(mask[40 * WIDTH + 150]).toBe(0);
  });
});
