import {
  callToAction,
  caption,
  handle,
  hook,
  isOn,
  lowerThird,
  type Overlay,
  plateSubtitle,
  priceTag,
  repeated,
  slidingLine,
  spanFrames,
  ticker,
  wordByWord,
  ZONES,
  type Zone,
} from "./overlays";
import type { Camera, SceneText, Shot } from "./scenes";

export interface ClipSpec extends Shot {
  name: string;
  /** What the clip tests. */
  purpose: string;
  camera: Camera;
  /** A sign in the scene that must stay (moves with the scene). */
  sceneText?: SceneText;
  /** Where real footage shows a sign that must stay (a still camera keeps it there). */
  sceneZone?: Zone;
  /** Real camera footage: the clips the engine's quality targets are judged on. */
  real?: boolean;
  /** What the overlays hide shows in no other frame (a persistent overlay over a still shot). */
  hiddenEverywhere?: boolean;
  overlays: Overlay[];
  /** Whether ffmpeg delogo and OpenCV Telea run too (the long memory clips measure the engine only). */
  baselines: boolean;
  /** Part of the --quick subset. */
  quick: boolean;
  /** Counted for the 720p speed target (1280x720 or 720x1280). */
  speed: boolean;
}

const HD = { width: 1280, height: 720, fps: 25, seconds: 4 };
/** cityCC0.mpg's frame and rate. */
const CITY_FRAME = { width: 720, height: 404, fps: 25 };
/** The memory pair: the same footage and overlay cycle, one minute and ten minutes long. */
const MEMORY = { width: 320, height: 180, fps: 10 };
/** At 180 lines the usual sizes are 12 to 15 pixels, too small to read reliably. */
const MEMORY_TEXT_SCALE = 1.4;

function memoryClip(name: string, seconds: number): ClipSpec {
  return {
    name,
    purpose: `memory: ${seconds / 60} min at ${MEMORY.width}x${MEMORY.height}, text on screen 20% of the time`,
    ...MEMORY,
    seconds,
    camera: { kind: "pan", picture: "texture", from: [0.2, 0.3], to: [0.8, 0.7], pingPongSeconds: 120 },
    overlays: [
      repeated(caption("DOUBLE YOUR RESULTS", 1, 2.5), 10, seconds),
      repeated(hook("READ THIS FIRST", 6, 6.5), 10, seconds),
    ].map((overlay) => ({ ...overlay, scale: MEMORY_TEXT_SCALE })),
    baselines: false,
    quick: false,
    speed: false,
  };
}

const TOP_LEFT = { x: "w*0.04", y: "h*0.05" };
const TOP_RIGHT = { x: "w-text_w-w*0.04", y: "h*0.05" };
const TOP_LEFT_ZONE = { x0: 0, y0: 0, x1: 0.5, y1: 0.2 };
const TOP_RIGHT_ZONE = { x0: 0.5, y0: 0, x1: 1, y1: 0.2 };
/** Above a ticker's band. */
const ABOVE_BAND = { x0: 0, y0: 0.62, x1: 1, y1: 0.84 };

/**
 * What every real-footage clip is: scored against the baselines, judged by the quality targets, and
 * out of the --quick subset and the speed target unless it says so. Spread last, in this order: the
 * clip's hash is taken of its spec as written, and the cached clips keep theirs.
 */
const REAL_FOOTAGE = { baselines: true, quick: false, speed: false, real: true };

/**
 * Real camera footage with ad overlays: the quality targets are read on these. Each shows the engine
 * something the virtual camera never does: a subject moving under the caption, parallax, leaves living
 * on their own, people crossing a still shot, cuts.
 */

const REAL_CLIPS: ClipSpec[] = [
  {
    name: "real-subject",
    purpose: "a caption over a talking, turning face (animated film), a solid tag and a see-through handle",
    width: 720,
    height: 528,
    fps: 24,
    seconds: 4,
    camera: { kind: "footage", footage: "megamind", start: 0.6 },
    overlays: [
      caption("SHE SAID YES", 0.3, 3.6),
      { ...priceTag("NEW", 0.5, 4), zone: { x0: 0.5, y0: 0.2, x1: 1, y1: 0.6 } },
      handle("@dinnerdates", 0, 4, TOP_LEFT, TOP_LEFT_ZONE),
    ],
    ...REAL_FOOTAGE,
    quick: true,
  },
  {
    name: "real-portrait",
    purpose:
      "9:16 crop of a face close-up that moves: word-by-word subtitles under a hook on a see-through box",
    width: 296,
    height: 528,
    fps: 24,
    seconds: 4,
    camera: { kind: "footage", footage: "megamind", start: 7.1, crop: [0.55, 0.5] },
    overlays: [
      { ...hook("WAIT FOR IT", 0, 1.8), scale: 1.2 },
      ...wordByWord("HE NEVER SAW IT COMING", 0.6, 0.5).map((word) => ({ ...word, scale: 1.2 })),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-street",
    purpose:
      "still camera, people walking: a see-through ticker band across the bottom, a lower third; the sign stays",
    width: 768,
    height: 576,
    fps: 10,
    seconds: 6,
    camera: { kind: "footage", footage: "street", start: 12 },
    sceneZone: { x0: 0.53, y0: 0.34, x1: 0.59, y1: 0.43 },
    // The ticker's band stays for the whole shot and the camera never moves: nothing shows under it.
    hiddenEverywhere: true,
    overlays: [
      ticker("BREAKING - PRICES CUT IN HALF AT EVERY STORE THIS WEEKEND", 0, 6, "black", 0.55),
      lowerThird("MARIA LOPEZ", 1, 4.5),
      handle("@citynews", 0, 6, TOP_RIGHT, TOP_RIGHT_ZONE),
    ],
    ...REAL_FOOTAGE,
    quick: true,
  },
  {
    name: "real-city",
    purpose: "towers filmed while the camera turns (parallax): a solid ticker band, a caption and a price",
    ...CITY_FRAME,
    seconds: 5,
    camera: { kind: "footage", footage: "city", start: 0 },
    overlays: [
      ticker("LIMITED OFFER - BOOK YOUR CITY BREAK TODAY", 0, 5, "0x1d3557", 1),
      { ...caption("THE VIEW FROM THE TOP", 0.4, 2.4), y: "h*0.68", zone: ABOVE_BAND },
      { ...caption("BOOK NOW", 2.6, 4.6), y: "h*0.68", zone: ABOVE_BAND },
      { ...priceTag("$299", 1, 5), zone: { x0: 0.5, y0: 0.2, x1: 1, y1: 0.6 } },
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-subtitles",
    purpose:
      "subtitles in a row on near-black plates over a dark restaurant and a cut: a short line, then a longer one in its place",
    width: 720,
    height: 528,
    fps: 24,
    seconds: 4,
    camera: { kind: "footage", footage: "megamind", start: 3.2 },
    overlays: [
      plateSubtitle("50% OFF", 0.2, 1.4, 0.3, 0.85),
      plateSubtitle("NEW IN STORE TODAY", 1.4, 2.8, 0.66, 0.85),
      plateSubtitle("SHOP NOW", 2.8, 4, 0.34, 1),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-handheld",
    purpose: "handheld, leaves moving in the wind, a blown-out sky: a bold caption and a see-through handle",
    width: 320,
    height: 240,
    fps: 15,
    seconds: 4,
    camera: { kind: "footage", footage: "tree", start: 0 },
    overlays: [
      { ...caption("GO OUTSIDE", 0.3, 3.5), scale: 1.4 },
      handle("@greenlife", 0, 4, TOP_RIGHT, TOP_RIGHT_ZONE),
    ].map((overlay) => ({ ...overlay, scale: (overlay.scale ?? 1) * 1.3 })),
    ...REAL_FOOTAGE,
  },
  {
    name: "real-wall-handle",
    purpose:
      "still camera: a see-through handle over a brick wall and a red door (the detector finds only its end), words one by one, a tag",
    width: 768,
    height: 576,
    fps: 10,
    seconds: 6,
    camera: { kind: "footage", footage: "street", start: 44 },
    overlays: [
      ...wordByWord("THIS CHANGED EVERYTHING FOR ME", 0.3, 1),
      priceTag("-40%", 0.5, 6),
      handle("@streetstyle", 0, 6, TOP_RIGHT, TOP_RIGHT_ZONE),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-red-band",
    purpose:
      "towers while the camera turns: a red see-through ticker band, brighter than the sky and darker than the towers, and a hook",
    ...CITY_FRAME,
    seconds: 4,
    camera: { kind: "footage", footage: "city", start: 3.4 },
    overlays: [
      ticker("FLASH SALE ENDS SUNDAY - ALL ROOMS 30% OFF", 0, 4, "0xc1121f", 0.7),
      hook("CITY BREAKS", 0.3, 3.8),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-dark-hook",
    purpose:
      "a hook on a see-through black box over a dark room, no side of it ever showing; a lower third over a hand and a glass that move",
    width: 720,
    height: 528,
    fps: 24,
    seconds: 4,
    camera: { kind: "footage", footage: "megamind", start: 5.5 },
    overlays: [hook("YOU WONT BELIEVE THIS", 0, 2.2), lowerThird("DR. MEGA", 0.5, 3.5)],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-tilt-handle",
    purpose:
      "a see-through handle over a striped tower the camera tilts across, found on no single frame; a hook on its black box over the sky and the towers; a price tag",
    ...CITY_FRAME,
    seconds: 4,
    camera: { kind: "footage", footage: "city", start: 0.5 },
    overlays: [
      hook("BEST VIEWS IN TOWN", 0, 3.5),
      priceTag("$99", 1, 4),
      handle("@skyline", 0, 4, { x: "w*0.05", y: "h*0.9" }, { x0: 0, y0: 0.8, x1: 0.5, y1: 1 }),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-words-windows",
    purpose:
      "9:16: yellow outlined words one by one over a tower's lit windows, the second missed by the detector on its first frames, across a cut; a small hook",
    width: 304,
    height: 540,
    fps: 25,
    seconds: 4,
    camera: { kind: "footage", footage: "city", start: 2.5, crop: [0.5, 0.5] },
    overlays: [...wordByWord("LOOK UP TONIGHT", 0.2, 1.2), { ...hook("CITY GUIDE", 0, 4), scale: 0.8 }],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-small-hook",
    purpose:
      "9:16: a small hook whose black box at 50 % pads its words by 2 px, over a moving forehead; yellow words over the mouth; a handle",
    width: 296,
    height: 528,
    fps: 24,
    seconds: 2,
    camera: { kind: "footage", footage: "megamind", start: 9, crop: [0.6, 0.5] },
    overlays: [
      { ...hook("WAIT FOR IT", 0, 2), scale: 0.8 },
      ...wordByWord("NO WAY", 0.2, 0.8).map((word) => ({ ...word, y: "h*0.5", zone: ZONES.middle })),
      handle("@clips", 0, 2, { x: "w*0.06", y: "h*0.9" }, { x0: 0, y0: 0.8, x1: 0.5, y1: 1 }),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-blue-band",
    purpose:
      "a blue ticker band at 60 % across the bottom of an animated scene, whose colour fits no grey box; a handle; a hook on its box over a face",
    width: 720,
    height: 528,
    fps: 24,
    seconds: 4,
    camera: { kind: "footage", footage: "megamind", start: 6 },
    overlays: [
      ticker("STREAMING THIS FRIDAY ONLY ON OUR APP", 0, 4, "0x1565c0", 0.6),
      handle("@hero.fans", 0, 4, { x: "w*0.05", y: "h*0.05" }, TOP_LEFT_ZONE),
      { ...hook("THE TWIST", 0.4, 2.6), y: "h*0.3", zone: { x0: 0, y0: 0.22, x1: 1, y1: 0.45 } },
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-cockatoo",
    purpose:
      "a bird's head turning and coming at a handheld phone at 20 fps (the scale changes, the feathers blur): a caption over it, a handle",
    width: 1280,
    height: 720,
    fps: 20,
    seconds: 4,
    camera: { kind: "footage", footage: "cockatoo", start: 0 },
    overlays: [
      { ...caption("MEET KIKO", 0.2, 3.8), y: "h*0.62", zone: { x0: 0, y0: 0.5, x1: 1, y1: 0.85 } },
      handle("@birdsofinsta", 0, 4, TOP_LEFT, TOP_LEFT_ZONE),
    ],
    ...REAL_FOOTAGE,
  },
  {
    name: "real-diver",
    purpose:
      "underwater, handheld, swept fast across a rock wall: specks drifting on their own, blur, blocky MJPEG; a caption, a hook, a handle",
    width: 640,
    height: 480,
    fps: 25,
    seconds: 4,
    camera: { kind: "footage", footage: "diver", start: 2.5 },
    overlays: [
      caption("DIVE INTO SUMMER", 0.3, 3.7),
      hook("BOOK YOUR FIRST DIVE", 0, 2.4),
      handle("@bluedepths", 0, 4, { x: "w-text_w-w*0.04", y: "h*0.4" }, ZONES.right),
    ],
    ...REAL_FOOTAGE,
  },
];

export const CLIPS: ClipSpec[] = [
  {
    name: "caption-pan",
    purpose: "white bold outlined bottom captions over a pan across smooth and detailed areas",
    ...HD,
    camera: { kind: "pan", picture: "fractal", from: [0.75, 0.55], to: [0.2, 0.45] },
    overlays: [caption("THIS CHANGED MY MORNING", 0.3, 1.9), caption("AND IT TAKES TEN SECONDS", 2.1, 3.8)],
    baselines: true,
    quick: true,
    speed: true,
  },
  {
    name: "hook-price",
    purpose: "a top hook on a semi-transparent box and a solid price tag over a diagonal pan",
    ...HD,
    camera: { kind: "pan", picture: "fractal", from: [0.1, 0.2], to: [0.4, 0.6] },
    overlays: [hook("WAIT FOR THE END", 0, 2.6), priceTag("$19.99", 0.8, 4)],
    baselines: true,
    quick: false,
    speed: true,
  },
  {
    name: "slide-cta",
    purpose: "a line sliding in and a call-to-action button over slowly panning test bars",
    ...HD,
    camera: { kind: "pan", picture: "bars", from: [0.3, 0.5], to: [0.42, 0.5] },
    overlays: [slidingLine("NEW DROP TODAY", 0.3, 3.6, 0.9), callToAction("SHOP NOW", 1.5, 4)],
    baselines: true,
    quick: false,
    speed: true,
  },
  {
    name: "scene-text",
    purpose: "a sign that pans with the scene must stay; the caption over the same scene must go",
    ...HD,
    camera: { kind: "pan", picture: "fractal", from: [0.2, 0.4], to: [0.6, 0.4] },
    sceneText: { text: "OPEN 24 HOURS", x: 1500, y: 760, size: 60 },
    overlays: [caption("LIMITED TIME ONLY", 0.4, 3.6)],
    baselines: true,
    quick: true,
    speed: true,
  },
  {
    name: "scene-text-still",
    purpose: "a still camera on a filmed sign (soft, lit unevenly, grain): the sign stays, the caption goes",
    ...HD,
    camera: { kind: "pan", picture: "fractal", from: [0.3, 0.4], to: [0.3, 0.4], grain: 8 },
    sceneText: { text: "OPEN 24 HOURS", x: 1100, y: 700, size: 60, filmed: true },
    overlays: [caption("LIMITED TIME ONLY", 0.4, 3.6)],
    baselines: true,
    quick: false,
    speed: false,
  },
  {
    name: "vertical-words",
    purpose: "9:16 portrait zoom-in: yellow word-by-word subtitles under a hook on a box",
    width: 720,
    height: 1280,
    fps: 25,
    seconds: 4,
    camera: { kind: "zoom", picture: "texture", from: 1, to: 1.3 },
    overlays: [
      hook("POV YOU FOUND IT", 0, 1.6),
      ...wordByWord("YOU WONT BELIEVE HOW EASY THIS IS", 0.4, 0.45),
    ],
    baselines: true,
    quick: false,
    speed: true,
  },
  {
    name: "life",
    purpose: "a caption over content that changes every frame: nothing to borrow from the neighbours",
    width: 960,
    height: 540,
    fps: 25,
    seconds: 4,
    camera: { kind: "life" },
    overlays: [caption("SWIPE UP TO LEARN MORE", 0.5, 3.5)],
    baselines: true,
    quick: false,
    speed: false,
  },
  {
    name: "full-hd",
    purpose:
      "1080p: a hook on a see-through box and a call-to-action over a slow pan (memory of the ±16 window)",
    width: 1920,
    height: 1080,
    fps: 25,
    seconds: 4,
    camera: { kind: "pan", picture: "fractal", from: [0.35, 0.5], to: [0.5, 0.5] },
    overlays: [hook("FREE SHIPPING THIS WEEK", 0.3, 3.7), callToAction("ORDER NOW", 1, 4)],
    baselines: false,
    quick: false,
    speed: false,
  },
  memoryClip("memory-1min", 60),
  memoryClip("memory-10min", 600),
  ...REAL_CLIPS,
];

/**
 * Overlays on screen at the same time must have zones apart (the truth mask is shared out by zone);
 * a clip that breaks this is a mistake in this file.
 */
export function checkZones(clip: ClipSpec): void {
  const frames = clip.overlays.map((overlay) => spanFrames(overlay, clip.fps));
  const total = Math.round(clip.seconds * clip.fps);
  clip.overlays.forEach((a, i) => {
    clip.overlays.slice(i + 1).forEach((b, k) => {
      const apart =
        a.zone.x1 <= b.zone.x0 || b.zone.x1 <= a.zone.x0 || a.zone.y1 <= b.zone.y0 || b.zone.y1 <= a.zone.y0;
      if (apart) return;
      for (let n = 0; n < total; n++) {
        if (isOn(frames[i] ?? [], n) && isOn(frames[i + 1 + k] ?? [], n)) {
          throw new Error(`${clip.name}: "${a.text}" and "${b.text}" share a zone on frame ${n}`);
        }
      }
    });
  });
}
