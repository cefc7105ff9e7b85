import type { VideoProbe } from "./probe";

type Colour = VideoProbe["color"];

/** swscale's YCbCr matrix for each colorspace ffprobe names. */
const MATRIX_OF_SPACE: Record<string, string> = {
  bt709: "bt709",
  fcc: "fcc",
  bt470bg: "bt601",
  smpte170m: "bt601",
  smpte240m: "smpte240m",
  bt2020nc: "bt2020",
  bt2020c: "bt2020",
};

/**
 * Chroma is stored at half resolution. Decoding repeats each chroma sample over its 2x2 pixels and
 * encoding averages the 2x2 pixels back, so the round trip returns the chroma of unchanged pixels as
 * it was (smoother filters blur it a little on each pass: 35 dB instead of 47 dB on a test pattern).
 */
const SCALE_FLAGS = { decode: "neighbor+accurate_rnd+full_chroma_int", encode: "area+accurate_rnd" };

/**
 * The scale filter between the video's YCbCr and our RGB24. Decoder and encoder use the same matrix and
 * range, so the pixels we do not change come back as they were. Untagged video gets swscale's default
 * (BT.601, limited range) both ways.
 */
export function yuvToRgbFilter(colour: Colour): string {
  return `scale=${conversion(colour, "in")}:flags=${SCALE_FLAGS.decode},format=rgb24`;
}

export function rgbToYuvFilter(colour: Colour): string {
  return `scale=${conversion(colour, "out")}:flags=${SCALE_FLAGS.encode},format=yuv420p`;
}

function conversion(colour: Colour, side: "in" | "out"): string {
  const matrix = MATRIX_OF_SPACE[colour.space ?? ""] ?? "bt601";
  const range = colour.range === "pc" ? "pc" : "tv";
  return `${side}_color_matrix=${matrix}:${side}_range=${range}`;
}

/** Encoder options that tag the output with the input's colour description, as far as it had one. */
export function colourTagArgs(colour: Colour): string[] {
  return [
    ...(colour.primaries ? ["-color_primaries", colour.primaries] : []),
    ...(colour.transfer ? ["-color_trc", colour.transfer] : []),
    ...(colour.space ? ["-colorspace", colour.space] : []),
    ...(colour.range ? ["-color_range", colour.range] : []),
  ];
}
