import type { SizedRect } from "../geometry";
import type { ShiftField } from "./local-shift";
import type { Homography } from "./types";
import type { WindowSearch } from "./window-fill";

/**
 * What the cleaning thread and the fill's worker threads (pool.ts, pool-worker.ts) say to each other.
 * Frames and masks travel as views of SharedArrayBuffers (no copy); crops as copies (a few hundred
 * kilobytes); motions as plain numbers.
 */

/** A window frame, sent to a thread once per job and kept there until the window passes it. */
export interface SharedFrame {
  index: number;
  data: Uint8Array;
  mask: Uint8Array;
  behind?: Uint8Array;
  textOnly?: Uint8Array;
}

/** A crop as the window search needs it (CropWork less the frame, the source and the fill). */
export interface SharedCrop {
  rect: SizedRect;
  masked: Uint8Array;
  margin: Uint8Array;
  maskedPixels: Uint32Array;
  inside: Float32Array;
  outside: Float32Array;
}

export interface SearchMessage {
  kind: "search";
  id: number;
  job: number;
  width: number;
  height: number;
  /** Frames of the job the thread was not sent yet. */
  frames: SharedFrame[];
  /** The window around the centre, by video index, consecutive. */
  window: number[];
  centre: number;
  /** Every step of the motion chain within the window (null: not trusted): the thread composes the motions of them. */
  steps: Array<[number, Homography | null]>;
  crops: SharedCrop[];
  search: WindowSearch;
}

/** The job ended: the thread forgets its frames. */
export interface EndMessage {
  kind: "end";
  job: number;
}

export type ToThread = SearchMessage | EndMessage;

/** A source that lined up, by frame: `restored` when its see-through box's restored pixels were open. */
export interface SharedAligned {
  index: number;
  restored: boolean;
  motion: Homography;
  distance: number;
  weight: number;
  shift?: ShiftField;
  light?: Float32Array;
}

export interface FoundCrop {
  source: Uint8Array;
  fill: Float32Array;
  /** The crop's groups (CropWork.groups), their sources by frame, and each pixel's group. */
  groups: Array<{ sources: SharedAligned[]; pooled: boolean }>;
  group: Uint16Array;
  movedSince: Uint8Array;
  unfilled: number;
  movedOn: boolean;
}

/** Sent once when a thread starts: its Linux thread id, so the stage clock can count its CPU as the fill's. */
export interface ThreadStarted {
  kind: "started";
  tid: number;
}

export type FromThread =
  | ThreadStarted
  | { kind: "found"; id: number; crops: FoundCrop[] }
  | { kind: "failed"; id: number; message: string };
