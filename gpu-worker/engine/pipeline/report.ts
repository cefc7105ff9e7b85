import { type CleanReport, MAX_REPORT_ENTRIES } from "../../../contract/report";
import type { Region } from "../../../contract/worker-api";
import type { SizedRect } from "../geometry";
import type { TextTrack } from "./analyse";
import type { Track } from "./tracks";

type ReportBox = CleanReport["lines_erased"][number]["box"];

const rounded = (value: number) => Math.round(value * 10_000) / 10_000;
const share = (value: number) => rounded(Math.min(1, Math.max(0, value)));

/**
 * Gathers, while the video is cleaned, what the customer's report says: when each frame is shown,
 * which frames changed, and what the verify stage still found; then builds the report from the
 * analysis's tracks (erased or kept) and the job's regions. Lists keep their first entries only.
 */
export class ReportCollector {
  /** ptsSeconds by frame index. */
  private readonly times: number[] = [];
  private changedFrames = 0;
  private readonly stillFound: CleanReport["lines_still_found"] = [];

  constructor(
    private readonly size: { width: number; height: number },
    /** How long one frame is shown: a line's end is when its last frame is gone. */
    private readonly frameSeconds: number,
  ) {}

  frame(index: number, ptsSeconds: number, changed: boolean): void {
    this.times[index] = ptsSeconds;
    if (changed) this.changedFrames++;
  }

  /** Text the verify stage read on the cleaned frame at `ptsSeconds`, after its second try. */
  foundAfterCleaning(ptsSeconds: number, boxes: readonly SizedRect[]): void {
    for (const box of boxes) {
      if (this.stillFound.length >= MAX_REPORT_ENTRIES) return;
      this.stillFound.push({ at_seconds: rounded(ptsSeconds), box: this.fractions(box) });
    }
  }

  build(tracks: readonly TextTrack[], regions: readonly Region[], textsGiven: boolean): CleanReport {
    const frames = this.times.length;
    const duration = frames > 0 ? (this.times[frames - 1] as number) + this.frameSeconds : 0;
    const line = ({ track, text }: TextTrack) => ({
      text: text.slice(0, 500),
      start_seconds: rounded(this.secondsOf(track.first)),
      end_seconds: rounded(this.secondsOf(track.last) + this.frameSeconds),
      box: this.fractions(trackBox(track)),
    });
    return {
      lines_erased: tracks
        .filter((t) => t.erase)
        .slice(0, MAX_REPORT_ENTRIES)
        .map(line),
      areas_erased: regions.map((area) => ({
        x: area.x,
        y: area.y,
        width: area.width,
        height: area.height,
        start_seconds: area.start_seconds ?? 0,
        end_seconds: rounded(Math.min(area.end_seconds ?? duration, duration)),
      })),
      lines_kept: tracks
        .filter((t) => !t.erase)
        .slice(0, MAX_REPORT_ENTRIES)
        // Kept lines are either not among the customer's texts, or (reading everything) scene text.
        .map((t) => ({ ...line(t), reason: textsGiven ? ("not_in_texts" as const) : ("scene" as const) })),
      lines_still_found: this.stillFound,
      frames_changed_share: frames > 0 ? share(this.changedFrames / frames) : 0,
    };
  }

  private secondsOf(index: number): number {
    return this.times[index] ?? index * this.frameSeconds;
  }

  private fractions(box: SizedRect): ReportBox {
    const { width, height } = this.size;
    const x = share(box.x / width);
    const y = share(box.y / height);
    return {
      x,
      y,
      width: share(Math.min(box.x + box.width, width) / width - x),
      height: share(Math.min(box.y + box.height, height) / height - y),
    };
  }
}

/** The box around every place the line was read. */
function trackBox(track: Track): SizedRect {
  const boxes = track.detections.map((d) => d.box);
  const x = Math.max(0, Math.min(...boxes.map((b) => b.x)));
  const y = Math.max(0, Math.min(...boxes.map((b) => b.y)));
  const right = Math.max(...boxes.map((b) => b.x + b.width));
  const bottom = Math.max(...boxes.map((b) => b.y + b.height));
  return { x, y, width: right - x, height: bottom - y };
}
