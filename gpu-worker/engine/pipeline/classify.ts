import type { SizedRect } from "../geometry";
import type { Detection, Track } from "./tracks";

/** A 3x3 homography, row-major: how the background moved from one sampled frame to the next. */
export type Motion = readonly number[];

/** Where point (x, y) lands under the motion. */
export function project(h: Motion, x: number, y: number): [number, number] {
  const w = (h[6] as number) * x + (h[7] as number) * y + (h[8] as number);
  return [
    ((h[0] as number) * x + (h[1] as number) * y + (h[2] as number)) / w,
    ((h[3] as number) * x + (h[4] as number) * y + (h[5] as number)) / w,
  ];
}

const centre = (box: SizedRect): [number, number] => [box.x + box.width / 2, box.y + box.height / 2];

/**
 * Overlay or scene text? Text filmed in the scene (a sign, a label) moves the way the background
 * moves; an overlay stays put on screen, or moves on its own (sliding captions). The track's first
 * box centre is carried along by the background's motion from sample to sample (`motions` maps a
 * sampled frame to the motion from the previous sample, full-resolution coordinates). When the
 * camera carried it far enough to tell, the text is scene text if its boxes stayed with it.
 */
export function isSceneText(track: Track, motions: ReadonlyMap<number, Motion | undefined>): boolean {
  const first = track.detections[0];
  if (!first) return false;
  let carried = centre(first.box);
  let worstError = 0;
  let farthest = 0;
  for (let i = 1; i < track.detections.length; i++) {
    const motion = motions.get((track.detections[i] as Detection).frame);
    if (!motion) return false; // a cut or an unreadable motion: keep the default (an overlay)
    carried = project(motion, carried[0], carried[1]);
    const actual = centre((track.detections[i] as Detection).box);
    farthest = Math.max(
      farthest,
      Math.hypot(carried[0] - centre(first.box)[0], carried[1] - centre(first.box)[1]),
    );
    worstError = Math.max(worstError, Math.hypot(actual[0] - carried[0], actual[1] - carried[1]));
  }
  // Below this the camera barely moved: nothing tells the two apart, and on-screen text is an overlay.
  if (farthest < Math.max(6, first.box.height * 0.5)) return false;
  return worstError < 0.35 * farthest;
}
