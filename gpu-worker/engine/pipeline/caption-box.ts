import type { EdgeRect, SizedRect } from "../geometry";
/**
 * A caption's own box (a shaded band or a solid tag behind the words), which is part of the overlay:
 * found by its four edges, and remembered across the frames of a line, with how much of the picture
 * a see-through box lets through.
 */
import { ColourHistogram, luma, type RgbImage, union } from "./image";
import { ChannelMoments, estimateSeeThrough, type SeeThrough } from "./see-through";

const LUMA = [0.299, 0.587, 0.114] as const;

/** Colour change (largest channel difference) above which a pixel steps across an edge. */
const EDGE_STEP = 12;
/** Pixels this close (largest channel difference) to the line's mean colour count as the box's solid fill. */
const SOLID_TOLERANCE = 16;

/** How a row (or column) segment steps from the line beyond it, as shares of its pixels. */
export interface EdgeSteps {
  /** Pixels whose colour steps by more than EDGE_STEP. */
  stepping: number;
  /** Of those, the ones where the segment is brighter less the ones where it is darker. */
  brighter: number;
  /**
   * Of those, the ones where the segment is redder (than green) less the greener ones, or where it is
   * bluer (than yellow) less the yellower ones, whichever way of the two is the more one-sided.
   */
  tinted: number;
  /** Pixels within SOLID_TOLERANCE of the segment's mean colour. */
  solid: number;
}

/**
 * How the row (or column) `at` between `from` and `to` steps from the line `inward` of it: each
 * pixel's largest channel step, which way its brightness steps, and how flat its colour is.
 */
function edgeSteps(
  image: RgbImage,
  horizontal: boolean,
  at: number,
  from: number,
  to: number,
  inward: number,
): EdgeSteps {
  const { data, width } = image;
  const count = Math.max(1, to - from);
  const pixel = (t: number, offset: number) =>
    (horizontal ? (at - offset) * width + t : t * width + at - offset) * 3;
  const mean = [0, 0, 0];
  for (let t = from; t < to; t++) {
    const i = pixel(t, 0);
    for (let c = 0; c < 3; c++) mean[c] = (mean[c] as number) + (data[i + c] as number) / count;
  }
  let stepping = 0;
  let sign = 0;
  let redder = 0;
  let bluer = 0;
  let solid = 0;
  for (let t = from; t < to; t++) {
    const i = pixel(t, 0);
    const o = pixel(t, inward);
    let step = 0;
    let offMean = 0;
    let brighter = 0;
    for (let c = 0; c < 3; c++) {
      const here = data[i + c] as number;
      const difference = here - (data[o + c] as number);
      step = Math.max(step, Math.abs(difference));
      brighter += (LUMA[c] as number) * difference;
      offMean = Math.max(offMean, Math.abs(here - (mean[c] as number)));
    }
    if (step > EDGE_STEP) {
      stepping++;
      sign += Math.sign(brighter);
      const r = (data[i] as number) - (data[o] as number);
      const g = (data[i + 1] as number) - (data[o + 1] as number);
      const b = (data[i + 2] as number) - (data[o + 2] as number);
      redder += Math.sign(r - g);
      bluer += Math.sign(2 * b - r - g);
    }
    if (offMean <= SOLID_TOLERANCE) solid++;
  }
  const tinted = Math.max(Math.abs(redder), Math.abs(bluer));
  return { stepping: stepping / count, brighter: sign / count, tinted: tinted / count, solid: solid / count };
}

/**
 * Share of the pixels along a row (or column) segment that step in colour from the line beyond it
 * (`edgeSteps`), when the steps look like a box's edge: a darker or lighter see-through box steps the same way in
 * brightness all along, and a solid box has one colour along its edge whatever lies behind it.
 * Texture steps back and forth and is not uniform, and scores 0.
 */
function edgeStrength({ stepping, brighter, solid }: EdgeSteps): number {
  const boxLike = Math.abs(brighter) > 0.6 || solid > 0.85;
  return boxLike ? stepping : 0;
}

/**
 * The strength of an edge of a coloured see-through box, which steps one way in hue all along where
 * its brightness steps both ways: a red band at 70 % is brighter than a night sky and darker than lit
 * towers, but redder than both; a blue plate at 60 % is as bright as the grass behind it, and bluer.
 * Both were left whole past their words.
 */
function tintedStrength(steps: EdgeSteps): number {
  return steps.tinted > 0.6 ? steps.stepping : edgeStrength(steps);
}

/**
 * The strongest box edge between `near` (just outside the text) and `far` (a line height beyond):
 * one stepping one way in brightness or of one colour, else, for a top or bottom, one stepping one
 * way in hue. Not first, and not for the sides: a solid tag's colour bleeds a column or two past its
 * edge at half-resolution chroma, and by hue that column won, moving real-city's red tag's side out
 * by 2 px (0.46 dB outside the masks).
 */
function findEdge(
  image: RgbImage,
  horizontal: boolean,
  near: number,
  far: number,
  from: number,
  to: number,
): number | null {
  const span = { near, far, from, to };
  const found =
    strongestEdge(image, horizontal, span, edgeStrength, 0.7) ??
    (horizontal ? strongestEdge(image, horizontal, span, tintedStrength, 0.7) : null);
  return found?.inside ?? null;
}

/**
 * The edge whose outside row (or column) lies from `near` to `far`, along `from` to `to`, that
 * `strength` scores highest, above `floor`: its box side (`inside`, one step back towards `near`),
 * its score and its steps; null when none scores above `floor`.
 */
export function strongestEdge(
  image: RgbImage,
  horizontal: boolean,
  { near, far, from, to }: { near: number; far: number; from: number; to: number },
  strength: (steps: EdgeSteps) => number,
  floor: number,
): { inside: number; strength: number; steps: EdgeSteps } | null {
  const direction = far > near ? 1 : -1;
  let best: { inside: number; strength: number; steps: EdgeSteps } | null = null;
  let bestStrength = floor;
  for (let at = near; direction > 0 ? at <= far : at >= far; at += direction) {
    const inside = at - direction; // the edge is between `inside` (box) and `at` (outside)
    if (at < 1 || inside < 1 || at >= (horizontal ? image.height : image.width) - 1) break;
    const steps = edgeSteps(image, horizontal, inside, from, to, -direction);
    const score = strength(steps);
    if (score > bestStrength) {
      best = { inside, strength: score, steps };
      bestStrength = score;
    }
  }
  return best;
}

/** Whether a search for an edge from `near` towards `far` ran into the frame's border before an edge. */
function reachesBorder(far: number, size: number, direction: 1 | -1): boolean {
  return direction < 0 ? far <= 1 : far >= size - 2;
}

/** Edge strength a box's top or bottom must keep, window by window, to run on sideways. */
const TRACE_STRENGTH = 0.7;
/** Share of a row's pixels in the box's own colour for a solid box to run on where its edges fade. */
const SOLID_SHARE = 0.85;

function meanColour(image: RgbImage, row: number, from: number, to: number): number[] {
  const mean = [0, 0, 0];
  const count = Math.max(1, to - from);
  for (let x = from; x < to; x++)
    for (let c = 0; c < 3; c++)
      mean[c] = (mean[c] as number) + (image.data[(row * image.width + x) * 3 + c] as number) / count;
  return mean;
}

/** Share of a row segment within SOLID_TOLERANCE of `colour` in every channel. */
function solidShare(
  image: RgbImage,
  row: number,
  { from, to }: { from: number; to: number },
  colour: number[],
): number {
  let solid = 0;
  for (let x = from; x < to; x++) {
    const i = (row * image.width + x) * 3;
    let off = 0;
    for (let c = 0; c < 3; c++)
      off = Math.max(off, Math.abs((image.data[i + c] as number) - (colour[c] as number)));
    if (off <= SOLID_TOLERANCE) solid++;
  }
  return solid / Math.max(1, to - from);
}

/**
 * How far the box's horizontal edges (rows `edges`, each with the direction of its outside) run
 * from column `start` towards `direction`, a window of `step` columns at a time: a plate or a band
 * often reaches well past its words. One weak window is passed over when the next is strong again
 * (something bright or dark lying against the edge); a solid box also runs on where its edges fade
 * against a background of its own brightness, as long as its rows keep its colour. Returns the last column still on the box, the
 * frame's border included when the edges run into it (a band across the whole frame).
 */
function traceSide(
  image: RgbImage,
  edges: Array<{ row: number; outward: 1 | -1 }>,
  start: number,
  direction: 1 | -1,
  step: number,
): number {
  const windowAt = (at: number) => ({
    from: direction < 0 ? Math.max(0, at - step) : at,
    to: direction < 0 ? at : Math.min(image.width, at + step),
  });
  // Two rows in from each edge: chroma at half resolution blends the edge row itself.
  const fillRows = edges.map(({ row, outward }) => row - 2 * outward);
  const besideText = windowAt(start - direction * step);
  const fill = fillRows.map((row) => meanColour(image, row, besideText.from, besideText.to));
  const strong = (window: { from: number; to: number }) =>
    edges.every(
      ({ row, outward }) =>
        tintedStrength(edgeSteps(image, true, row, window.from, window.to, -outward)) > TRACE_STRENGTH,
    ) || fillRows.every((row, i) => solidShare(image, row, window, fill[i] as number[]) > SOLID_SHARE);
  const atBorder = ({ from, to }: { from: number; to: number }) => to - from < Math.max(4, step >> 2);
  let reached = start;
  for (;;) {
    const next = windowAt(reached);
    if (atBorder(next)) return direction < 0 ? 0 : image.width - 1;
    const end = (window: { from: number; to: number }) => (direction < 0 ? window.from : window.to - 1);
    if (strong(next)) {
      reached = end(next);
      continue;
    }
    const beyond = windowAt(end(next));
    if (atBorder(beyond) || !strong(beyond)) return reached;
    reached = end(beyond);
  }
}

/**
 * One side of the box: the strongest straight edge within `sideways` of the text, and of those, one
 * no farther than the top and bottom edges run where there is one; else where the top and bottom
 * edges stop running (then refined to the strongest edge there), else null. A hook's see-through box
 * over a building ends where its top and bottom stop stepping, and the building's corner a line
 * past it stepped a little more evenly: the box was taken 100 px too wide, and the building's windows
 * beside it filled (a held-out clip of vtest.avi: 29.4 dB outside the masks).
 */
function sideEdge(
  image: RgbImage,
  rows: { top: number; bottom: number; edges: Array<{ row: number; outward: 1 | -1 }> },
  textEdge: number,
  direction: 1 | -1,
  sideways: number,
): number | null {
  const limit = direction < 0 ? 0 : image.width - 1;
  const clamp = (x: number) => Math.max(0, Math.min(image.width - 1, x));
  const far = clamp(textEdge + direction * sideways);
  const side = (near: number, far: number) => findEdge(image, false, near, far, rows.top, rows.bottom);
  if (rows.edges.length === 0) return side(textEdge, far);
  const step = Math.max(8, sideways >> 2);
  const traced = traceSide(image, rows.edges, textEdge, direction, step);
  // The trace stops within a window of the box's end: half a window past it is where the side can be.
  const reach = traced === limit ? limit : clamp(traced + direction * (step >> 1));
  const beyond = (reach - far) * direction >= 0;
  const near = (beyond ? null : side(textEdge, reach)) ?? side(textEdge, far);
  if (near !== null) return near;
  if (traced === limit) return limit;
  if (Math.abs(traced - textEdge) < sideways) return null;
  const refineFrom = traced - direction * (sideways >> 2);
  const refineTo = traced + direction * (sideways >> 1);
  return side(clamp(refineFrom), clamp(refineTo)) ?? traced;
}

/** Share of an edge's pixels that must step for a weak edge; a box over a dark picture steps on a third. */
const WEAK_EDGE_STEPS = 0.3;
/** Share of a weak edge's stepping pixels that must step the same way: texture steps both ways. */
const ONE_WAY = 0.9;

/**
 * The share of an edge's pixels stepping, when enough of them step and nearly all one way; else 0:
 * an edge seen on part of its length only (the reading pass's sightings, a mirrored side).
 */
export function oneWayStepping({ stepping, brighter }: EdgeSteps): number {
  return stepping >= WEAK_EDGE_STEPS && Math.abs(brighter) >= ONE_WAY * stepping ? stepping : 0;
}

/** How far (pixels) from the mirrored pad a side may lie: a line's ends are read a pixel or two apart. */
const MIRRORED_SIDE_SLACK = 4;

/**
 * The side a box's top, bottom and other side (`otherSide`, null when not found) put `direction` of
 * the text, or null. Over a picture as dark (or as bright) as the box along part of it, a side steps
 * on only that part: real-subtitles' plate at 85 % had its right end over a dark jacket, stepped on
 * 49 % of the rows there, and stayed on screen with its letters erased. A box pads its words alike on
 * both sides, so a weak one-way edge (oneWayStepping) where the other side's pad puts this one is
 * taken.
 */
function mirroredSide(
  image: RgbImage,
  rows: { top: number; bottom: number; edges: Array<{ row: number; outward: 1 | -1 }> },
  text: EdgeRect,
  otherSide: number | null,
  direction: 1 | -1,
): number | null {
  const atBorder = otherSide === 0 || otherSide === image.width - 1;
  if (otherSide === null || atBorder || rows.edges.length < 2) return null;
  const pad = direction > 0 ? text.x0 - otherSide : otherSide - (text.x1 - 1);
  const expected = (direction > 0 ? text.x1 - 1 : text.x0) + direction * pad;
  const clamp = (x: number) => Math.max(0, Math.min(image.width - 1, x));
  const span = {
    near: clamp(expected - direction * MIRRORED_SIDE_SLACK),
    far: clamp(expected + direction * MIRRORED_SIDE_SLACK),
    from: rows.top,
    to: rows.bottom,
  };
  return strongestEdge(image, false, span, oneWayStepping, 0)?.inside ?? null;
}

/** Widest accent bar, as a share of the line's height, taken in with the box it sits on. */
const ACCENT_BAR_SHARE = 0.6;

/**
 * A thin bar of another colour along a side of the box (a lower third's accent) is part of it:
 * when a second straight edge lies just beyond the side, the side moves out to it.
 */
function withAccentBar(
  image: RgbImage,
  side: number,
  direction: 1 | -1,
  lineHeight: number,
  rows: { top: number; bottom: number },
): number {
  const limit = direction < 0 ? 0 : image.width - 1;
  if (side === limit) return side;
  const reach = Math.max(3, Math.round(lineHeight * ACCENT_BAR_SHARE));
  // From two pixels past the side: the edge search looks one pixel back, at the side itself.
  const from = side + 3 * direction;
  const to = Math.max(0, Math.min(image.width - 1, side + reach * direction));
  if ((to - from) * direction <= 0) return side;
  return findEdge(image, false, from, to, rows.top, rows.bottom) ?? side;
}

/**
 * The detector's box takes in the edges of a box that pads its words by a few pixels (a hook drawn
 * small on a 9:16 frame: its box's last row lay a row inside the detector's). Where the top or the
 * bottom is found past the detector's box and the other is not, the other is looked for again from
 * this far inside it (pixels, and share of its height). Not first, nor where neither is found, nor
 * near the frame's border: inside the detector's box the letters' own baseline steps one way in
 * brightness all along, and real-street's see-through handle, which has no box, was taken for one
 * and filled whole; a band at the frame's bottom has the border for its edge, not the baseline.
 */
const MIN_EDGE_INSET = 2;
const EDGE_INSET_SHARE = 0.1;

/** Two opposite edges, each searched from the detector's box (`inside` 0), the one missed again from `inset` inside it. */
function oneInsideIfOther(
  first: (inside: number) => number | null,
  second: (inside: number) => number | null,
  inset: number,
): [number | null, number | null] {
  const found: [number | null, number | null] = [first(0), second(0)];
  if (inset === 0) return found;
  if (found[0] !== null && found[1] === null) found[1] = second(inset);
  else if (found[0] === null && found[1] !== null) found[0] = first(inset);
  return found;
}

/**
 * A caption drawn on its own box (solid or see-through): four straight edges around the text where
 * the brightness steps the same way along the whole edge. Top and bottom lie within a line height
 * of the text; the sides within three, or as far as the top and bottom edges run (plates and bands
 * that reach well past their words, up to the frame's borders). A side or the bottom that runs into
 * the frame's border is the border. Returns the box, which is part of the overlay, or null (also
 * where what the edges enclose does not hide the picture as a box does: hidesPicture).
 */
export function shadedBox(image: RgbImage, box: SizedRect, rect: EdgeRect): EdgeRect | null {
  // Boxes pad more sideways than above and below, and a line may be read as several boxes.
  const reach = Math.round(box.height * 1.5);
  const sideways = Math.round(box.height * 3);
  const topFar = Math.max(0, rect.y0 - reach);
  const bottomFar = Math.min(image.height - 1, rect.y1 + reach);
  const inset = Math.max(MIN_EDGE_INSET, Math.round(box.height * EDGE_INSET_SHARE));
  const topAtBorder = reachesBorder(topFar, image.height, -1);
  const bottomAtBorder = reachesBorder(bottomFar, image.height, 1);
  const [foundTop, foundBottom] = oneInsideIfOther(
    (inside) => findEdge(image, true, rect.y0 + inside, topFar, rect.x0, rect.x1),
    (inside) => findEdge(image, true, rect.y1 - inside, bottomFar, rect.x0, rect.x1),
    topAtBorder || bottomAtBorder ? 0 : inset,
  );
  // A band at the top or bottom of the frame has no edge on that side: the border is its edge.
  const top = foundTop ?? (foundBottom !== null && topAtBorder ? 0 : null);
  const bottom = foundBottom ?? (foundTop !== null && bottomAtBorder ? image.height - 1 : null);
  if (top === null || bottom === null) return null;
  const edges = [
    ...(foundTop !== null ? [{ row: foundTop, outward: -1 as const }] : []),
    ...(foundBottom !== null ? [{ row: foundBottom, outward: 1 as const }] : []),
  ];
  const rows = { top, bottom, edges };
  const foundLeft = sideEdge(image, rows, rect.x0, -1, sideways);
  const foundRight = sideEdge(image, rows, rect.x1, 1, sideways);
  const left = foundLeft ?? mirroredSide(image, rows, rect, foundRight, -1);
  const right = foundRight ?? mirroredSide(image, rows, rect, foundLeft, 1);
  if (left === null || right === null) return null;
  // Chroma is stored at half resolution: a coloured box bleeds a pixel or two past its edge.
  const margin = 3;
  const found = {
    x0: Math.max(0, withAccentBar(image, left, -1, box.height, rows) - margin),
    y0: Math.max(0, top - margin),
    x1: Math.min(image.width, withAccentBar(image, right, 1, box.height, rows) + margin + 1),
    y1: Math.min(image.height, bottom + margin + 1),
  };
  return hidesPicture(image, found, rect) ? found : null;
}

/**
 * Share of a solid box's pixels, its letters included, within SOLID_TOLERANCE of its median colour.
 * Measured on the bench's real clips: the solid tags, plates and bands 0.44 or more; the edges of a
 * tower's lit windows, taken for a box around a word over them, 0.00 to 0.03.
 */
const SOLID_BOX_SHARE = 0.3;
/**
 * Spread of the brightness inside a box (its letters left out) against just outside it, at most, for
 * a box that dims the picture behind it: a see-through box shows it at its opacity's share (0.15 to
 * 0.85, see-through.ts). A black box at 50 % over a building measured 0.73 (its opacity unmeasured:
 * the windows lie across its edges); the windows taken for a box around a word, 1.41.
 */
const DIMMED_SPREAD = 0.85;
/** Band (pixels) just outside a box whose spread the inside's is measured against. */
const SPREAD_BAND = 6;
/** Rim (pixels) just inside a box left out of its spread: chroma bleeds across the edge there. */
const SPREAD_RIM = 3;

/**
 * Whether the box found around the text hides the picture behind it, as a caption's box does: it
 * covers it in mostly one colour (a solid box) or dims its texture (a see-through one). Straight edges
 * alone are not enough: the rows and columns of a building's windows step one way all along too, and
 * a box taken there is filled whole, the windows with it. A box with no room between its edges and
 * the text is taken, as nothing inside it can tell.
 */
function hidesPicture(image: RgbImage, box: EdgeRect, text: EdgeRect): boolean {
  if (medianColourShare(image, box) >= SOLID_BOX_SHARE) return true;
  const spread = spreadInsideAndOut(image, box, text);
  return spread === null || spread.inside <= DIMMED_SPREAD * spread.outside;
}

/**
 * The standard deviation of the luma inside `box` (less its rim and the text grown by 2) and in the
 * band just outside it; null when nothing of the inside is left.
 */
function spreadInsideAndOut(
  image: RgbImage,
  box: EdgeRect,
  text: EdgeRect,
): { inside: number; outside: number } | null {
  const { data, width, height } = image;
  const inside = new ChannelMoments();
  const outside = new ChannelMoments();
  const within = (x: number, y: number, rect: EdgeRect, grow: number) =>
    x >= rect.x0 - grow && x < rect.x1 + grow && y >= rect.y0 - grow && y < rect.y1 + grow;
  for (let y = Math.max(0, box.y0 - SPREAD_BAND); y < Math.min(height, box.y1 + SPREAD_BAND); y++) {
    for (let x = Math.max(0, box.x0 - SPREAD_BAND); x < Math.min(width, box.x1 + SPREAD_BAND); x++) {
      const side = !within(x, y, box, 0)
        ? outside
        : within(x, y, box, -SPREAD_RIM) && !within(x, y, text, 2)
          ? inside
          : null;
      side?.add(luma(data, (y * width + x) * 3));
    }
  }
  if (inside.count === 0 || outside.count === 0) return null;
  const deviation = (moments: ChannelMoments) => Math.sqrt(Math.max(0, moments.variance()));
  return { inside: deviation(inside), outside: deviation(outside) };
}

/** Share of the pixels of `rect` within SOLID_TOLERANCE of its median colour (per channel) in every channel. */
function medianColourShare(image: RgbImage, rect: EdgeRect): number {
  const { data, width } = image;
  const histogram = new ColourHistogram();
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let x = rect.x0, i = (y * width + x) * 3; x < rect.x1; x++, i += 3) {
      histogram.add(data[i] as number, data[i + 1] as number, data[i + 2] as number);
    }
  }
  const median = histogram.percentile(0.5);
  const span = { from: rect.x0, to: rect.x1 };
  let near = 0;
  for (let y = rect.y0; y < rect.y1; y++) near += solidShare(image, y, span, median) * (rect.x1 - rect.x0);
  return near / Math.max(1, histogram.count);
}

/**
 * What the earlier frames of one line showed of its shaded box, so every frame of the line gets
 * the same answer: a box found on some frames and missed on others (its edge against a background
 * of the same brightness) would leave the box on the frames it was missed on.
 */
export interface LineLook {
  /** The union of the boxes found so far, placed as if the text were read at `text`. */
  box?: EdgeRect;
  text?: EdgeRect;
  found: number;
  checks: number;
  /** Frames of the line marked so far. */
  frames: number;
  /** How the box shows the picture behind it, averaged over its first frames; null: it is solid. */
  seeThrough?: SeeThrough | null;
  /** The box the reading pass's samples showed together (box-sightings), where a frame shows too little of it. */
  sighted?: PlacedBox;
  seeThroughSamples?: SeeThrough[];
}

export function newLineLook(sighted?: PlacedBox): LineLook {
  return { found: 0, checks: 0, frames: 0, ...(sighted ? { sighted } : {}) };
}

/**
 * Frames a line is searched for a box before it is taken to have none for now; after that, one frame
 * in BOX_CHECKS is still searched: a box as dark as the picture behind it shows once the shot changes.
 */
const BOX_CHECKS = 8;
/**
 * Text boxes read on different frames of a still line differ by a few pixels: a shift of the text's
 * edges below this is such jitter and leaves the box where it was found.
 */
const EDGE_JITTER = 8;

/**
 * How far the text moved along one axis, from where its two ends were read then and now: a sliding
 * line moves both ends, while a reading that took in one more word (or one fewer) moves only one,
 * and the box behind the words stays where it is.
 */
function textShift(then0: number, then1: number, now0: number, now1: number): number {
  const start = now0 - then0;
  const end = now1 - then1;
  if (Math.sign(start) !== Math.sign(end)) return 0;
  const shift = Math.abs(start) < Math.abs(end) ? start : end;
  return Math.abs(shift) < EDGE_JITTER ? 0 : Math.round(shift);
}

/** A box and the text box it was found around. */
export interface PlacedBox {
  box: EdgeRect;
  text: EdgeRect;
}

/** The box moved with the text (a sliding line), or left in place when the text did not move. */
function placedBox({ box, text }: PlacedBox, textRect: EdgeRect, image: RgbImage): EdgeRect {
  // A band across the whole frame stays where it is while its text runs along it (a ticker).
  const acrossFrame = box.x0 <= 0 && box.x1 >= image.width;
  const dx = acrossFrame ? 0 : textShift(text.x0, text.x1, textRect.x0, textRect.x1);
  const dy = textShift(text.y0, text.y1, textRect.y0, textRect.y1);
  return {
    x0: Math.max(0, box.x0 + dx),
    y0: Math.max(0, box.y0 + dy),
    x1: Math.min(image.width, box.x1 + dx),
    y1: Math.min(image.height, box.y1 + dy),
  };
}

/** The box remembered from the line's earlier frames, placed for this one; null before one was found. */
function knownBox(look: LineLook, textRect: EdgeRect, image: RgbImage): EdgeRect | null {
  const { box, text } = look;
  return box && text ? placedBox({ box, text }, textRect, image) : null;
}

/** The line's box on this frame: searched for until found twice (or never in the first frames), then remembered. */
export function rememberedBox(
  image: RgbImage,
  box: SizedRect,
  textRect: EdgeRect,
  look: LineLook,
): EdgeRect | null {
  look.frames++;
  const seemsBoxless = look.found === 0 && look.checks >= BOX_CHECKS;
  const searching = look.found < 2 && (!seemsBoxless || look.frames % BOX_CHECKS === 0);
  if (!searching) return look.found >= 2 ? knownBox(look, textRect, image) : null;
  look.checks++;
  const found =
    shadedBox(image, box, textRect) ?? (look.sighted ? placedBox(look.sighted, textRect, image) : null);
  if (!found) return null;
  const known = knownBox(look, textRect, image);
  look.box = known ? union(known, found) : found;
  look.text = textRect;
  look.found++;
  return look.box;
}

/** Frames of a line whose see-through estimates are averaged before the line keeps one for good. */
const SEE_THROUGH_SAMPLES = 3;

/**
 * The line's see-through box, the same on every frame (a per-frame estimate would make the restored
 * picture flicker): the mean of the first frames' estimates, or null when any of them found the box
 * solid.
 */
export function lineSeeThrough(
  image: RgbImage,
  shaded: EdgeRect,
  textRect: EdgeRect,
  look: LineLook,
): SeeThrough | null {
  if (look.seeThrough !== undefined) return look.seeThrough;
  const estimate = estimateSeeThrough(image, shaded, textRect);
  const samples = [...(look.seeThroughSamples ?? []), ...(estimate ? [estimate] : [])];
  look.seeThroughSamples = samples;
  if (!estimate) look.seeThrough = null;
  else if (samples.length >= SEE_THROUGH_SAMPLES) {
    const mean = (pick: (blend: SeeThrough) => number) =>
      samples.reduce((sum, blend) => sum + pick(blend), 0) / samples.length;
    look.seeThrough = {
      scale: mean((blend) => blend.scale),
      offset: [0, 1, 2].map((c) => mean((blend) => blend.offset[c] as number)) as [number, number, number],
    };
  }
  return look.seeThrough ?? estimate;
}
