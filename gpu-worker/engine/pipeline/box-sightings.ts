import type { EdgeRect, SizedRect } from "../geometry";
import { oneWayStepping, strongestEdge } from "./caption-box";
import type { RgbImage } from "./image";

/**
 * A caption's box told from the samples of its line together, for a box that no single frame shows
 * whole: a see-through box over a dark picture has no edge where the picture is as dark as the box,
 * and which part that is changes as the picture moves (real-portrait's hook over the hair). Each
 * sample sights what it can of each edge; an edge sighted in the same place on two samples, or
 * clearly on one, holds for the whole line.
 */

/** One edge of a box on one sample: its outer boundary in frame pixels, how much of it stepped, which side is brighter. */
export interface EdgeSighting {
  at: number;
  strength: number;
  boxBrighter: boolean;
}

export interface BoxSightings {
  top?: EdgeSighting;
  bottom?: EdgeSighting;
  left?: EdgeSighting;
  right?: EdgeSighting;
}

/** A sighting this strong holds alone (caption-box's per-frame search asks as much of every frame). */
const CLEAR_EDGE = 0.7;
/** Sightings of one edge this close (frame pixels) are the same edge: the reading pass's frames are smaller. */
const SAME_PLACE = 2;
/** Pixels past the text's box where the search starts: the letters' own tops and ends are not a box's edge. */
const TEXT_CLEARANCE = 2;
/** Chroma is stored at half resolution: a coloured box bleeds a pixel or two past its edge (as caption-box). */
const BOX_MARGIN = 3;

/**
 * The box edges that one frame shows around a line (`box`, on `image`), each the strongest
 * one-way step within a line height above and below, three sideways, as caption-box searches;
 * positions are multiplied by `scale` (the reading pass reads smaller frames).
 */
export function sightBoxEdges(image: RgbImage, box: SizedRect, scale: number): BoxSightings {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(image.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(image.height, Math.ceil(box.y + box.height));
  if (x1 <= x0 || y1 <= y0) return {};
  const reach = Math.round(box.height * 1.5);
  const sideways = Math.round(box.height * 3);
  const rows = { from: x0, to: x1 };
  const columns = { from: y0, to: y1 };
  const sightings: BoxSightings = {};
  const keep = (side: keyof BoxSightings, found: EdgeSighting | undefined, outerSide: 0 | 1) => {
    if (found) sightings[side] = { ...found, at: (found.at + outerSide) * scale };
  };
  keep("top", sightEdge(image, true, y0 - TEXT_CLEARANCE, y0 - reach, rows), 0);
  keep("bottom", sightEdge(image, true, y1 - 1 + TEXT_CLEARANCE, y1 - 1 + reach, rows), 1);
  keep("left", sightEdge(image, false, x0 - TEXT_CLEARANCE, x0 - sideways, columns), 0);
  keep("right", sightEdge(image, false, x1 - 1 + TEXT_CLEARANCE, x1 - 1 + sideways, columns), 1);
  return sightings;
}

/**
 * The strongest one-way edge whose box side lies from `inside` to `far` (rows or columns), if any:
 * caption-box's search, scoring a third of the pixels stepping nine in ten the same way.
 */
function sightEdge(
  image: RgbImage,
  horizontal: boolean,
  inside: number,
  far: number,
  span: { from: number; to: number },
): EdgeSighting | undefined {
  const outward = far > inside ? 1 : -1;
  const found = strongestEdge(
    image,
    horizontal,
    { near: inside + outward, far: far + outward, ...span },
    oneWayStepping,
    0,
  );
  return found
    ? { at: found.inside, strength: found.strength, boxBrighter: found.steps.brighter > 0 }
    : undefined;
}

/**
 * The line's box from its samples' sightings, with the text box it was sighted around (the first
 * sample's): every edge sighted in one place on two samples or clearly on one (one side no sample
 * sighted mirrored from the other, or both sides from the padding above and below), the box brighter
 * (or darker) than the picture on all four; undefined otherwise. Grown by the margin caption-box gives
 * its boxes; not clamped to the frame.
 */
export function sightedBox(
  samples: Array<{ box: SizedRect; edges?: BoxSightings }>,
): { box: EdgeRect; text: EdgeRect } | undefined {
  const first = samples[0];
  if (!first) return undefined;
  const { box } = first;
  const sightings = (side: keyof BoxSightings) => samples.flatMap(({ edges }) => edges?.[side] ?? []);
  const seen = {
    top: sightings("top"),
    bottom: sightings("bottom"),
    left: sightings("left"),
    right: sightings("right"),
  };
  const sides = {
    top: settledEdge(seen.top),
    bottom: settledEdge(seen.bottom),
    left: settledEdge(seen.left),
    right: settledEdge(seen.right),
  };
  const unseen = Object.values(seen).filter((edges) => edges.length === 0);
  const bothSidesUnseen = unseen.length === 2 && seen.left.length === 0 && seen.right.length === 0;
  const { top, bottom, left, right } =
    unseen.length === 1 ? mirrorUnseen(sides, box) : bothSidesUnseen ? padSideways(sides, box) : sides;
  if (!top || !bottom || !left || !right) return undefined;
  const brighter = top.boxBrighter;
  if ([bottom, left, right].some((edge) => edge.boxBrighter !== brighter)) return undefined;
  return {
    box: {
      x0: Math.max(0, Math.floor(left.at) - BOX_MARGIN),
      y0: Math.max(0, Math.floor(top.at) - BOX_MARGIN),
      x1: Math.ceil(right.at) + BOX_MARGIN,
      y1: Math.ceil(bottom.at) + BOX_MARGIN,
    },
    text: {
      x0: Math.floor(box.x),
      y0: Math.floor(box.y),
      x1: Math.ceil(box.x + box.width),
      y1: Math.ceil(box.y + box.height),
    },
  };
}

type Settled = { at: number; boxBrighter: boolean } | undefined;
type Sides = { top: Settled; bottom: Settled; left: Settled; right: Settled };

/** How far each settled side lies past the text (`box`), in pixels; undefined for a side not settled. */
function paddings({ top, bottom, left, right }: Sides, box: SizedRect) {
  return {
    top: top && box.y - top.at,
    bottom: bottom && bottom.at - (box.y + box.height),
    left: left && box.x - left.at,
    right: right && right.at - (box.x + box.width),
  };
}

/** Whether two opposite sides pad the text alike: within a quarter of its height, MIRROR_SLACK at least. */
function padAlike(a: number | undefined, b: number | undefined, box: SizedRect): boolean {
  return a !== undefined && b !== undefined && Math.abs(a - b) <= Math.max(MIRROR_SLACK, box.height / 4);
}

/**
 * The box's sides, the one that no sample sighted at all (the caller tells which) taken as the
 * mirror of the opposite side across the text (`box`): a plate pads its text alike on both sides, and
 * a dark plate over a picture as dark at one end shows no edge there (a 0x101010 plate beside a
 * picture at 29, 21, 28 steps by 11 levels, under EDGE_STEP): without it the whole plate stayed on
 * screen and only its letters were filled. A side sighted in places that do not agree stays unsettled.
 */
function mirrorUnseen(sides: Sides, box: SizedRect): Sides {
  const { top, bottom, left, right } = sides;
  const [x0, x1, y0, y1] = [box.x, box.x + box.width, box.y, box.y + box.height];
  // The pair across the unseen side must pad the text alike, and the side facing it by less than a
  // line: else the edges are the scene's (a face and a chin around a word, 43 px above it and 2 below).
  const padding = paddings(sides, box);
  const across =
    !top || !bottom ? padAlike(padding.left, padding.right, box) : padAlike(padding.top, padding.bottom, box);
  const facing = !top ? padding.bottom : !bottom ? padding.top : !left ? padding.right : padding.left;
  if (!across || facing === undefined || facing < 0 || facing > box.height) return sides;
  const mirrored = (edge: NonNullable<Settled>, at: number) => ({ at, boxBrighter: edge.boxBrighter });
  return {
    top: top ?? (bottom && mirrored(bottom, y0 - (bottom.at - y1))),
    bottom: bottom ?? (top && mirrored(top, y1 + (y0 - top.at))),
    left: left ?? (right && mirrored(right, x0 - (right.at - x1))),
    right: right ?? (left && mirrored(left, x1 + (x0 - left.at))),
  };
}

/**
 * The box's left and right sides, which no sample sighted, at the padding its top and bottom give
 * the text: a hook's see-through black box over a dark room shows its top and bottom only where a
 * face or hair lies behind them, and no side at all (Megamind, a black box at 50 % over the dark
 * restaurant: the box stayed, darkening the hair, and only its letters were filled). Where the box
 * really pads more sideways, what lies past the sides taken here shows no edge on any sample, so it
 * is as dark as the box there. Top and bottom must pad the text alike and by less than a line.
 */
function padSideways(sides: Sides, box: SizedRect): Sides {
  const { top, bottom } = sides;
  const { top: above, bottom: below } = paddings(sides, box);
  if (!top || !bottom || above === undefined || below === undefined) return sides;
  if (!padAlike(above, below, box) || Math.min(above, below) < 0 || Math.max(above, below) > box.height) {
    return sides;
  }
  const padding = Math.max(above, below);
  return {
    top,
    bottom,
    left: { at: box.x - padding, boxBrighter: top.boxBrighter },
    right: { at: box.x + box.width + padding, boxBrighter: top.boxBrighter },
  };
}

/** Pixels by which a plate's paddings on two opposite sides may differ at least (the sightings' rounding). */
const MIRROR_SLACK = 3;

/**
 * Where most sightings of one edge agree (the median of them), when two do or one is clear, and they
 * are at least half of its sightings: a box's edge stays in one place on every sample that sights it,
 * where the scene's edges beside a line without a box are sighted wherever the picture has one
 * (ho5-tree-hook's "@garden.co" over leaves: its right side sighted in 5 places on 9 samples, 4 of
 * them agreeing, gave it a box 95 px wide that was filled whole). Every real box of the bench and the
 * held-out clips has at least half of each edge's sightings in one place.
 */
function settledEdge(sightings: EdgeSighting[]): Settled {
  let best: { at: number; boxBrighter: boolean; count: number } | undefined;
  for (const sighting of sightings) {
    const agreeing = sightings.filter(
      (other) => Math.abs(other.at - sighting.at) <= SAME_PLACE && other.boxBrighter === sighting.boxBrighter,
    );
    if (agreeing.length < 2 && sighting.strength < CLEAR_EDGE) continue;
    if (agreeing.length * 2 < sightings.length) continue;
    if (best && agreeing.length <= best.count) continue;
    const places = agreeing.map((other) => other.at).sort((a, b) => a - b);
    best = {
      at: places[places.length >> 1] as number,
      boxBrighter: sighting.boxBrighter,
      count: agreeing.length,
    };
  }
  return best;
}
