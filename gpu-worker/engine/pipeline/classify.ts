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
 * camera carried it far enough to tell, the text is scene text if its boxes stayed with it. When
 * the camera was too still, only the text's look can tell (`looksFilmed`).
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
  // Below this the camera barely moved: motion does not tell the two apart.
  if (farthest < Math.max(6, first.box.height * 0.5)) return looksFilmed(track);
  return worstError < 0.35 * farthest;
}

/**
 * Edges softer than this (a share of the letters' contrast) look filmed. Rendered lines measure 0.84
 * to 1.4 on the real bench clips (outlined captions, tags, handles, see-through plates), a sign
 * blurred by 1.3 pixels 0.53.
 */
const FILMED_EDGES = 0.7;
/** Filmed letters change with the scene's noise nearly as much as the background between them... */
const FILMED_CHANGE_SHARE = 0.85;
/** ...which must show: below this mean change (grey levels) the frames are too clean to tell. */
const MIN_NOISE = 1;
/** Samples with the line at the same place as on the sample before, all agreeing, needed to keep it. */
const MIN_STILL_SAMPLES = 2;

/**
 * Whether a line looks filmed rather than drawn on after filming, for a camera too still to tell by
 * motion. Conservative, since a caption taken for scene text stays in the customer's video while an
 * erased sign is a lesser harm: every sample measured must show soft edges, and over the samples where
 * the line stayed put its letters must carry the scene's changing noise like the background beside
 * them (an overlay's fill is the same on every frame). Anything short of that is an overlay.
 */
export function looksFilmed(track: Track): boolean {
  const looks = track.detections.flatMap(({ look }) => (look ? [look] : []));
  if (looks.some(({ edgeSharpness }) => edgeSharpness >= FILMED_EDGES)) return false;
  const changes = looks.flatMap(({ change }) => (change ? [change] : []));
  if (changes.length < MIN_STILL_SAMPLES) return false;
  const letters = changes.reduce((sum, change) => sum + change.letters, 0);
  const background = changes.reduce((sum, change) => sum + change.background, 0);
  return background >= MIN_NOISE * changes.length && letters >= FILMED_CHANGE_SHARE * background;
}
