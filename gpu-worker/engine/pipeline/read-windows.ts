import type { OcrEngine, RgbFrame, TextLine } from "../ocr/ocr";
import type { Motion } from "./classify";
import { missedSightings } from "./line-gaps";
import { type FixedPlace, screenFixedLines } from "./screen-fixed";

/**
 * A window holds at most this many read frames (six seconds at two a second)...
 */
const MAX_WINDOW = 12;
/** ...and is searched only with at least this many. */
const MIN_WINDOW = 2;
/**
 * A window closed for its size hands its last frames on to the next, so that a line on from near
 * its end is looked for on them too (frames may then be searched twice: the caller keeps one of
 * what both find).
 */
const OVERLAP = 4;

/** A read frame as a window keeps it: the lines read on it, and the camera's motion from the frame before. */
export interface WindowFrame {
  index: number;
  frame: RgbFrame;
  lines: TextLine[];
  /** Undefined on a window's first frame, and where unknown or across a cut. */
  motion: Motion | undefined;
}

/** A line found again on one of a window's frames (analysis-frame pixels). */
export interface FoundLine {
  index: number;
  frame: RgbFrame;
  line: TextLine;
}

export interface WindowSearchOptions {
  /** Detector confidence a box needs to count as text. */
  minBoxScore: number;
  /** Reading confidence below which a line's words are not trusted (its text is left empty). */
  minReadConfidence: number;
}

/**
 * The reading pass's frames in order, in windows of a few seconds. Once a window closes, what its
 * frames missed is looked for with the whole window at hand: the lines some frames showed, on the
 * frames that did not show them (`line-gaps`; overlays stay through cuts), and lines fixed to the
 * screen on the mean of its frames within a shot (`screen-fixed`). Memory: two windows of analysis
 * frames (12 of 0.7 MB at 640x360 each), the one read and the last one searched.
 */
export class ReadWindows {
  private window: WindowFrame[] = [];
  /** Windows closed and not yet searched. */
  private closed: WindowFrame[][] = [];
  /** The places of lines found fixed to the screen so far, looked for on every window after. */
  private fixedPlaces: FixedPlace[] = [];
  /**
   * The last window searched: a line that a window's frames show only from its middle on (a
   * see-through handle the detector catches late) is looked for on that window's frames before this
   * one too, which were searched before the line was known.
   */
  private lastSearched: WindowFrame[] = [];

  constructor(
    private readonly ocr: OcrEngine,
    private readonly options: WindowSearchOptions,
  ) {}

  /**
   * Adds the next read frame: `motion` is the camera's from the frame added before (undefined
   * where unknown or across a cut). Windows it closes wait for `search`.
   */
  add(index: number, frame: RgbFrame, lines: TextLine[], motion: Motion | undefined): void {
    if (this.window.length >= MAX_WINDOW) this.close(this.window.slice(-OVERLAP));
    this.window.push({ index, frame, lines, motion: this.window.length > 0 ? motion : undefined });
  }

  /** Searches the windows closed so far; returns the lines found on their frames, once each. */
  async search(): Promise<FoundLine[]> {
    const found: FoundLine[] = [];
    for (const window of this.closed.splice(0)) {
      const first = window[0]?.index ?? 0;
      const earlier = this.lastSearched.filter(({ index }) => index < first);
      found.push(...(await missedSightings(this.ocr, window, this.options, earlier)));
      this.lastSearched = window;
      const fixed = await screenFixedLines(this.ocr, window, this.options, this.fixedPlaces);
      found.push(...fixed.found);
      this.fixedPlaces = fixed.places;
    }
    return found;
  }

  /** Closes the last window and searches every window left. */
  async finish(): Promise<FoundLine[]> {
    this.close([]);
    return this.search();
  }

  /** Closes the window, the next one starting with `kept` (no motion into its first frame). */
  private close(kept: WindowFrame[]): void {
    if (this.window.length >= MIN_WINDOW) this.closed.push(this.window);
    this.window = kept.map((frame, k) => (k === 0 ? { ...frame, motion: undefined } : frame));
  }
}
