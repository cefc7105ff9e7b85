/** Overlays in the styles of real ads, as ffmpeg drawtext filters, and the spans they are on screen. */

export const FONT_DIR = "/usr/share/fonts/truetype/dejavu";
const BOLD = `${FONT_DIR}/DejaVuSans-Bold.ttf`;

export type OverlayStyle =
  | "caption"
  | "word"
  | "hook"
  | "price"
  | "cta"
  | "ticker"
  | "handle"
  | "lower-third"
  | "subtitle";

/** A filled rectangle drawn under the text, in fractions of the frame's width and height. */
export interface Plate {
  x: number;
  y: number;
  width: number;
  height: number;
  /** ffmpeg colour, with `@alpha` for a see-through plate. */
  color: string;
}

/** A rectangle in fractions of the frame (0..1). */
export interface Zone {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Overlay {
  text: string;
  style: OverlayStyle;
  /** drawtext position expressions (`w`, `h`, `text_w`, `text_h`, `t` are known). */
  x: string;
  y: string;
  /** When it is on screen: [from, to) in seconds. */
  spans: Array<[number, number]>;
  /**
   * Where its pixels lie. The truth mask's pixels are given to the overlay on screen whose zone holds
   * them, so overlays on screen at the same time must have zones apart.
   */
  zone: Zone;
  /** Multiplies the style's font size (small frames need bigger letters to stay readable). */
  scale?: number;
  /** Bands, plates and accent bars drawn first: part of the overlay, to be erased with its text. */
  plates?: Plate[];
}

export const ZONES = {
  top: { x0: 0, y0: 0, x1: 1, y1: 0.24 },
  right: { x0: 0.55, y0: 0.24, x1: 1, y1: 0.56 },
  middle: { x0: 0, y0: 0.34, x1: 1, y1: 0.62 },
  bottom: { x0: 0, y0: 0.62, x1: 1, y1: 1 },
  bottomRight: { x0: 0.55, y0: 0.62, x1: 1, y1: 1 },
} satisfies Record<string, Zone>;

/** Font size as a share of the frame's short side, and the drawtext look of each style. */
const STYLES: Record<OverlayStyle, { size: number; look: (size: number) => string[] }> = {
  // White bold with a black outline: the usual caption.
  caption: {
    size: 0.075,
    look: (size) => ["fontcolor=white", `borderw=${Math.max(2, Math.round(size / 14))}`, "bordercolor=black"],
  },
  // Yellow word-by-word subtitles with an outline and a drop shadow.
  word: {
    size: 0.085,
    look: (size) => [
      "fontcolor=0xffe11a",
      `borderw=${Math.max(2, Math.round(size / 16))}`,
      "bordercolor=black",
      `shadowx=${Math.round(size / 20)}`,
      `shadowy=${Math.round(size / 20)}`,
      "shadowcolor=black@0.6",
    ],
  },
  // A hook on a shaded, semi-transparent box: the background shows through the box.
  hook: {
    size: 0.065,
    look: (size) => ["fontcolor=white", "box=1", "boxcolor=black@0.5", `boxborderw=${Math.round(size / 3)}`],
  },
  // A price tag: white on a solid red box.
  price: {
    size: 0.07,
    look: (size) => ["fontcolor=white", "box=1", "boxcolor=0xd62828", `boxborderw=${Math.round(size / 4)}`],
  },
  // A call to action: black on a white button.
  cta: {
    size: 0.055,
    look: (size) => ["fontcolor=black", "box=1", "boxcolor=white", `boxborderw=${Math.round(size / 2.5)}`],
  },
  // News-style ticker: white text running over a band (its plate) the width of the frame.
  ticker: { size: 0.05, look: () => ["fontcolor=white"] },
  // A creator's @-name: small white letters at 60 % opacity with a faint shadow, no box.
  handle: {
    size: 0.04,
    look: (size) => [
      "fontcolor=white",
      "alpha=0.6",
      `shadowx=${Math.max(1, Math.round(size / 16))}`,
      `shadowy=${Math.max(1, Math.round(size / 16))}`,
      "shadowcolor=black@0.4",
    ],
  },
  // A lower third: dark text on a light plate with a coloured accent bar (its plates).
  "lower-third": { size: 0.05, look: () => ["fontcolor=0x1a1a1a"] },
  // A subtitle: plain white letters on a dark plate (its plate) sized to the line.
  subtitle: { size: 0.06, look: () => ["fontcolor=white"] },
};

/** Characters drawtext takes as they are inside single quotes (with expansion off). */
const PLAIN_TEXT = /^[A-Za-z0-9 $%!.?@_-]+$/;

export function fontSize(overlay: Overlay, width: number, height: number): number {
  return Math.round(STYLES[overlay.style].size * (overlay.scale ?? 1) * Math.min(width, height));
}

/** Frames [first, last] an overlay is on for each of its spans. */
export function spanFrames(overlay: Overlay, fps: number): Array<[number, number]> {
  return overlay.spans.map(([from, to]) => [Math.round(from * fps), Math.round(to * fps) - 1]);
}

/** A timeline expression true on the given frames; ffmpeg filters evaluate it per frame (`n`). */
export function enableExpression(frames: Array<[number, number]>): string {
  return frames.map(([first, last]) => `between(n,${first},${last})`).join("+");
}

/**
 * The overlay's plates and text as an ffmpeg filter graph from stream `[input]` to `[output]`, each
 * drawn only while the overlay is on screen (`tag` keeps its inner labels apart from other
 * overlays'). Plates are laid over the picture with alpha, as editing tools blend them: drawbox
 * (ffmpeg 5.1) mixes a see-through colour into yuv420p chroma almost wholly, as no tool does.
 */
export function overlayGraph(
  overlay: Overlay,
  shot: { width: number; height: number; fps: number },
  labels: { input: string; output: string; tag: string },
): string {
  const { width, height, fps } = shot;
  if (!PLAIN_TEXT.test(overlay.text)) throw new Error(`overlay text needs escaping: ${overlay.text}`);
  const size = fontSize(overlay, width, height);
  const enable = `enable='${enableExpression(spanFrames(overlay, fps))}'`;
  const graph: string[] = [];
  let under = labels.input;
  (overlay.plates ?? []).forEach((plate, k) => {
    const [x, y, w, h] = [plate.x * width, plate.y * height, plate.width * width, plate.height * height].map(
      Math.round,
    );
    const colour = `${labels.tag}c${k}`;
    const laid = `${labels.tag}p${k}`;
    graph.push(`color=c=${plate.color}:s=${w}x${h}:r=${fps},format=yuva420p[${colour}]`);
    graph.push(`[${under}][${colour}]overlay=x=${x}:y=${y}:shortest=1:format=yuv420:${enable}[${laid}]`);
    under = laid;
  });
  const text = [
    `fontfile=${BOLD}`,
    `text='${overlay.text}'`,
    "expansion=none",
    `fontsize=${size}`,
    ...STYLES[overlay.style].look(size),
    `x='${overlay.x}'`,
    `y='${overlay.y}'`,
    enable,
  ];
  graph.push(`[${under}]drawtext=${text.join(":")}[${labels.output}]`);
  return graph.join(";");
}

/** Whether frame `index` is in one of the spans. */
export function isOn(frames: Array<[number, number]>, index: number): boolean {
  return frames.some(([first, last]) => first <= index && index <= last);
}

const CENTRED = "(w-text_w)/2";

/** A bottom caption, centred. */
export function caption(text: string, from: number, to: number): Overlay {
  return {
    text,
    style: "caption",
    x: CENTRED,
    y: "h-text_h-h*0.09",
    spans: [[from, to]],
    zone: ZONES.bottom,
  };
}

/** A top hook on its shaded box, centred. */
export function hook(text: string, from: number, to: number): Overlay {
  return { text, style: "hook", x: CENTRED, y: "h*0.08", spans: [[from, to]], zone: ZONES.top };
}

/** A price tag on the right. */
export function priceTag(text: string, from: number, to: number): Overlay {
  return { text, style: "price", x: "w-text_w-w*0.07", y: "h*0.32", spans: [[from, to]], zone: ZONES.right };
}

/** A call-to-action button at the bottom right. */
export function callToAction(text: string, from: number, to: number): Overlay {
  return {
    text,
    style: "cta",
    x: "w-text_w-w*0.07",
    y: "h-text_h-h*0.1",
    spans: [[from, to]],
    zone: ZONES.bottomRight,
  };
}

/** Subtitles shown one word at a time, each for `perWord` seconds, in the lower third. */
export function wordByWord(sentence: string, from: number, perWord: number): Overlay[] {
  return sentence.split(" ").map((word, index) => ({
    text: word,
    style: "word" as const,
    x: CENTRED,
    y: "h*0.72",
    spans: [[from + index * perWord, from + (index + 1) * perWord]],
    zone: ZONES.bottom,
  }));
}

/** A line that slides in from the left edge at `speed` frame widths per second and stops in the centre. */
export function slidingLine(text: string, from: number, to: number, speed: number): Overlay {
  return {
    text,
    style: "caption",
    x: `min(${CENTRED}, -text_w+(t-${from})*w*${speed})`,
    y: "h*0.45",
    spans: [[from, to]],
    zone: ZONES.middle,
  };
}

/** The same on/off pattern repeated every `period` seconds up to `seconds`: for the long clips. */
export function repeated(overlay: Overlay, period: number, seconds: number): Overlay {
  const spans: Array<[number, number]> = [];
  for (let start = 0; start < seconds; start += period) {
    for (const [from, to] of overlay.spans)
      if (start + from < seconds) spans.push([start + from, Math.min(seconds, start + to)]);
  }
  return { ...overlay, spans };
}

/**
 * A ticker: `text` runs right to left at `speed` frame widths a second over a band across the whole
 * frame at its bottom, see-through (`opacity` < 1) or solid. The band touches both side edges.
 */
export function ticker(text: string, from: number, to: number, color: string, opacity: number): Overlay {
  const band = { x0: 0, y0: 0.84, x1: 1, y1: 1 };
  return {
    text,
    style: "ticker",
    x: `w*0.7-(t-${from})*w*0.25`,
    y: `h*0.93-text_h/2`,
    spans: [[from, to]],
    zone: band,
    plates: [{ x: 0, y: 0.87, width: 1, height: 0.12, color: `${color}@${opacity}` }],
  };
}

/** A small see-through @-name near a corner (`corner`: where, as fractions of the frame). */
export function handle(
  text: string,
  from: number,
  to: number,
  corner: { x: string; y: string },
  zone: Zone,
): Overlay {
  return { text, style: "handle", ...corner, spans: [[from, to]], zone };
}

/** A lower third: a name on a light plate with an accent bar on its left, in the lower left. */
export function lowerThird(text: string, from: number, to: number): Overlay {
  return {
    text,
    style: "lower-third",
    x: "w*0.08",
    y: "h*0.7",
    spans: [[from, to]],
    zone: { x0: 0, y0: 0.62, x1: 0.7, y1: 0.84 },
    plates: [
      { x: 0.05, y: 0.67, width: 0.55, height: 0.13, color: "0xf2f2f2@0.92" },
      { x: 0.05, y: 0.67, width: 0.012, height: 0.13, color: "0xe63946" },
    ],
  };
}

/**
 * A subtitle at the bottom, centred on a near-black plate `plateWidth` of the frame wide, solid or
 * see-through (`opacity`): as subtitle tools draw them, the plate sized to its line, one line after
 * another in the same place.
 */
export function plateSubtitle(
  text: string,
  from: number,
  to: number,
  plateWidth: number,
  opacity: number,
): Overlay {
  return {
    text,
    style: "subtitle",
    x: CENTRED,
    y: "h*0.85-text_h/2",
    spans: [[from, to]],
    zone: ZONES.bottom,
    plates: [
      { x: (1 - plateWidth) / 2, y: 0.8, width: plateWidth, height: 0.1, color: `0x101010@${opacity}` },
    ],
  };
}
