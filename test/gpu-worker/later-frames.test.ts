import { describe, expect, it } from "vitest";
import { LATER_FRAMES, LaterFrames, type Line, shownAfter } from "../../gpu-worker/engine/fill/later-frames";
import { homography } from "../../gpu-worker/engine/fill/types";

const RADIUS = 5;
const FRAMES = 100;

function frame(index: number) {
  return { index, frame: { width: 1, height: 1, data: new Uint8Array(3) }, mask: new Uint8Array(1) };
}

/** A line's span, in one place (or in another where `place` says) on every frame. */
interface Span {
  first: number;
  last: number;
  place?: number;
}

const line = ({ first, last, place = 0 }: Span): Line => ({
  first,
  last,
  box: () => ({ x: place * 100, y: 0, width: 80, height: 20 }),
});

/** LaterFrames over these lines (and cuts), counting the fetches and the frames let go. */
function later(spans: Span[], missing: number[] = [], cuts: number[] = []) {
  const lines = spans.map(line);
  const fetched: number[] = [];
  const letGo: number[] = [];
  const frames = new LaterFrames<ReturnType<typeof frame>>(
    lines,
    cuts,
    FRAMES,
    RADIUS,
    async (index) => {
      fetched.push(index);
      return missing.includes(index) ? undefined : frame(index);
    },
    (f) => letGo.push(f.index),
  );
  return { frames, fetched, letGo };
}

const indices = (frames: Array<{ index: number }>) => frames.map(({ index }) => index);

describe("the frames from after the window", () => {
  it("gives a hook's early frames the frame after it leaves, until their window reaches it", async () => {
    const { frames, fetched } = later([{ first: 0, last: 29 }]);
    expect(indices(await frames.for(0))).toEqual([30]);
    expect(indices(await frames.for(24))).toEqual([30]);
    // Frame 25's window (±5) holds frame 30 itself.
    expect(await frames.for(25)).toEqual([]);
    expect(fetched).toEqual([30]);
  });

  it("looks past the subtitles that take a line's place, up to LATER_FRAMES frames after it", () => {
    const spans = [
      { first: 0, last: 19 },
      { first: 20, last: 39 },
      // Elsewhere in the frame: it does not hide the first line's place.
      { first: 38, last: 70, place: 2 },
      { first: 40, last: 59 },
      { first: 60, last: 79 },
    ];
    const lines = spans.map(line);
    expect(shownAfter(lines[0] as Line, lines, FRAMES)).toEqual([20, 40, 60]);
    expect(shownAfter(lines[4] as Line, lines, FRAMES)).toEqual([80]);
    expect(shownAfter(lines[4] as Line, lines, 80)).toEqual([]);
    expect(later(spans).frames.wanted(0)).toEqual([20, 40, 60]);
    expect(later(spans).frames.wanted(16)).toEqual([40, 60]);
  });

  it("wants nothing for a line the window spans, one still on at the end, or frames it is not on", async () => {
    const { frames, fetched } = later([
      { first: 10, last: 14 },
      { first: 40, last: 99 },
    ]);
    for (const index of [0, 10, 12, 39, 40, 70]) expect(await frames.for(index)).toEqual([]);
    expect(fetched).toEqual([]);
  });

  it("wants no frame across a cut, but the frame at a cut (its own look, with masks, tells)", async () => {
    const { frames } = later(
      [
        { first: 0, last: 29 },
        { first: 0, last: 49 },
      ],
      [],
      [30, 45],
    );
    // Frame 30 starts a shot (maybe the hook's own plate going): wanted; frame 50 lies past the cut at 45.
    expect(indices(await frames.for(0))).toEqual([30]);
    // Past the first cut, the next one decides.
    expect(indices(await frames.for(30))).toEqual([]);
    expect(frames.wanted(40)).toEqual([]);
    expect(later([{ first: 0, last: 49 }], [], [45]).frames.wanted(0)).toEqual([]);
    expect(later([{ first: 0, last: 49 }], [], [50]).frames.wanted(0)).toEqual([50]);
  });

  it("gives the nearest first, at most LATER_FRAMES of them, and skips a frame that could not be had", async () => {
    const lines = [50, 40, 30, 20, 60].map((last) => ({ first: 0, last }));
    const { frames } = later(lines, [31]);
    expect(LATER_FRAMES).toBe(3);
    expect(indices(await frames.for(0))).toEqual([21, 41]);
  });

  it("lets each frame go once the window reaches it, and the rest when cleared", async () => {
    const { frames, letGo } = later([
      { first: 0, last: 19 },
      { first: 0, last: 39 },
    ]);
    frames.prefetch(0);
    await frames.reached(RADIUS + 15);
    expect(letGo).toEqual([20]);
    await frames.clear();
    expect(letGo).toEqual([20, 40]);
  });

  it("measures a direct motion once for the frames within reach, composed with each one's motion to it", async () => {
    const { frames } = later([{ first: 0, last: 29 }]);
    const measured: number[] = [];
    const shift = (x: number) => homography([1, 0, x, 0, 1, 0, 0, 0, 1]);
    // A pan of a pixel a frame: frame k's pixel x is frame j's x + k - j.
    const lineUp = (index: number) =>
      frames.lineUp(
        index,
        30,
        "region",
        async () => {
          measured.push(index);
          return shift(index - 30);
        },
        async (anchor) => shift(index - anchor),
      );
    const motions = [];
    for (const index of [0, 3, RADIUS, RADIUS + 1, RADIUS + 4]) motions.push(await lineUp(index));
    expect(measured).toEqual([0, RADIUS + 1]);
    motions.forEach((motion, k) => {
      const index = [0, 3, RADIUS, RADIUS + 1, RADIUS + 4][k] as number;
      expect(motion?.[2]).toBeCloseTo(index - 30);
    });
  });

  it("does not measure again, within reach, a direct motion that failed (a cut between)", async () => {
    const { frames } = later([{ first: 0, last: 29 }]);
    let tries = 0;
    const failing = async () => {
      tries += 1;
      return undefined;
    };
    for (let index = 0; index <= RADIUS; index += 1)
      expect(await frames.lineUp(index, 30, "region", failing, async () => undefined)).toBeUndefined();
    expect(tries).toBe(1);
  });
});
