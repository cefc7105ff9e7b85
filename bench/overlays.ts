/** Overlays in the styles of real ads, as ffmpeg drawtext filters, and the spans they are on screen. */

export const FONT_DIR = "/usr/share/fonts/truetype/dejavu";
const BOLD = `${FONT_DIR}/DejaVuSans-Bold.ttf`;

export type OverlayStyle = "caption" | "word" | "hook" | "price" | "cta";

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
};

/** Characters drawtext takes as they are inside single quotes (with expansion off). */
const PLAIN_TEXT = /^[A-Za-z0-9 $%!.?-]+$/;

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

export function drawtextFilter(overlay: Overlay, width: number, height: number, fps: number): string {
  if (!PLAIN_TEXT.test(overlay.text)) throw new Error(`overlay text needs escaping: ${overlay.text}`);
  const size = fontSize(overlay, width, height);
  const options = [
    `fontfile=${BOLD}`,
    `text='${overlay.text}'`,
    "expansion=none",
    `fontsize=${size}`,
    ...STYLES[overlay.style].look(size),
    `x='${overlay.x}'`,
    `y='${overlay.y}'`,
    `enable='${enableExpression(spanFrames(overlay, fps))}'`,
  ];
  return `drawtext=${options.join(":")}`;
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
