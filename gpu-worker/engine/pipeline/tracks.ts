import { union } from "../fill/regions";
import { intersection, type SizedRect } from "../geometry";
import type { BoxSightings } from "./box-sightings";
import { normaliseText, substringDistance } from "./match-texts";
import type { TextLook } from "./text-look";

/** A line of text read on one sampled frame, in full-resolution frame coordinates. */
export interface Detection {
  frame: number;
  box: SizedRect;
  text: string;
  confidence: number;
  /** How it looked on the analysis frame (whether it was filmed or drawn on): absent when too small to say. */
  look?: TextLook;
  /** What that frame showed of a box around it (full-resolution positions). */
  edges?: BoxSightings;
}

/** One text line followed over time: where it is on each frame it is on. */
export interface Track {
  id: number;
  detections: Detection[];
  /** First and last frames it is on (refined to the exact frame by the caller). */
  first: number;
  last: number;
}

/**
 * A box found again on a frame (the read windows' searches) and a line read there that overlap this
 * much (IoU) are in one place.
 */
export const SAME_PLACE_IOU = 0.5;

export function iou(a: SizedRect, b: SizedRect): number {
  const common = intersection(a, b);
  const overlap = common ? common.width * common.height : 0;
  const union = a.width * a.height + b.width * b.height - overlap;
  return union > 0 ? overlap / union : 0;
}

/**
 * Same line of text, allowing OCR slips: the shorter reading is found in the longer (a line read in
 * part, sliding in over the edge) with few edits for its own length. Counted against the longer
 * reading, a short subtitle matched any long one that followed it in its place ("50% OFF" is 4 edits
 * from a stretch of "NEW IN STORE TODAY", which allowed 5): the two became one line, and the second
 * was masked within the first's plate, its ends left on screen.
 */
function similarText(a: string, b: string): boolean {
  const left = normaliseText(a);
  const right = normaliseText(b);
  if (left.length === 0 || right.length === 0) return true;
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  return substringDistance(short, long) <= Math.max(1, Math.floor(short.length * 0.34));
}

/**
 * Boxes of one sliding line stay close: overlap, or a shift under one line height. Two readings that
 * differ are two lines even in one place: a subtitle replaced by a longer one on the same plate
 * overlaps it by 0.8, and taken for one line, the second was masked with the first's plate, its
 * first and last letters left on screen.
 */
function sameLine(previous: Detection, next: Detection): boolean {
  const overlap = iou(previous.box, next.box);
  if (!similarText(previous.text, next.text)) return false;
  if (overlap >= 0.3) return true;
  // A line that moved must have been read both times: an unread box elsewhere is some other text.
  if (normaliseText(previous.text) === "" || normaliseText(next.text) === "") return false;
  const dx = Math.abs(previous.box.x + previous.box.width / 2 - (next.box.x + next.box.width / 2));
  const dy = Math.abs(previous.box.y + previous.box.height / 2 - (next.box.y + next.box.height / 2));
  const size = Math.max(previous.box.height, next.box.height);
  return dy < size && dx < size * 4 && Math.abs(previous.box.height - next.box.height) < size * 0.5;
}

/**
 * Links the lines read on consecutive samples into tracks: a detection continues the track whose
 * latest detection was on the previous sample and is the same line; otherwise it starts a track.
 */
export function buildTracks(samples: ReadonlyArray<{ frame: number; detections: Detection[] }>): Track[] {
  const tracks: Track[] = [];
  let open: Track[] = [];
  for (const sample of samples) {
    const continued: Track[] = [];
    const unmatched = [...open];
    for (const detection of [...sample.detections].sort((a, b) => b.confidence - a.confidence)) {
      const index = unmatched.findIndex((track) => sameLine(track.detections.at(-1) as Detection, detection));
      const track = index >= 0 ? (unmatched.splice(index, 1)[0] as Track) : undefined;
      if (track) {
        track.detections.push(detection);
        track.last = detection.frame;
        continued.push(track);
      } else {
        const started: Track = {
          id: tracks.length,
          detections: [detection],
          first: detection.frame,
          last: detection.frame,
        };
        tracks.push(started);
        continued.push(started);
      }
    }
    open = continued;
  }
  return tracks;
}

/**
 * The track's box on a frame: between two detections, the union of their boxes (a line that slid
 * or grew between them is somewhere inside it; the analysis reads moving text every few frames, so
 * the union stays tight); held at its ends.
 */
export function boxAt(track: Track, frame: number): SizedRect {
  const { detections } = track;
  const after = detections.findIndex((d) => d.frame >= frame);
  if (after <= 0) return (detections[after === 0 ? 0 : detections.length - 1] as Detection).box;
  return union((detections[after - 1] as Detection).box, (detections[after] as Detection).box);
}

/** The reading seen most often (ties: the longest), as the track's text. */
export function trackText(track: Track): string {
  const counts = new Map<string, number>();
  for (const { text } of track.detections) counts.set(text, (counts.get(text) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length)[0]?.[0] ?? "";
}
