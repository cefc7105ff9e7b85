/** Streaming frame I/O: decode a video to RGB frames and encode RGB frames back, one frame at a time. */

export { decodeFrames } from "./decoder";
export { DEFAULT_CRF, DEFAULT_PRESET, openEncoder } from "./encoder";

export interface Frame {
  /** Position in the video, from 0. */
  index: number;
  /** When the frame is shown, in seconds; variable frame rate videos keep theirs exactly. */
  ptsSeconds: number;
  /** RGB24 pixels, width * height * 3 bytes of the coded size (before rotation), row by row. */
  data: Uint8Array;
}

/** Where frames go to be encoded; write them in order and await each write. */
export interface FrameSink {
  write(frame: Frame): Promise<void>;
  /** Ends the video and moves the finished file into place. */
  finish(): Promise<void>;
  /** Stops the encoder and removes its partial output; settles when both are done. */
  abort(): Promise<void>;
}
