import {
  FLAG,
  ID_STRING,
  LARGE_PACKET,
  NutBytes,
  nutCrc,
  type Rational,
  RGB24_FOURCC,
  STARTCODE,
} from "./nut";

/**
 * Every frame code means the same thing: a key frame of stream 0 whose pts and size are written in full,
 * followed by a checksum of the frame header (ffmpeg's demuxer wants one on frames this large).
 */
const FRAME_CODE = 0;
const FRAME_FLAGS = FLAG.key | FLAG.codedPts | FLAG.sizeMsb | FLAG.checksum;
/** Bits of pts the frame header may leave implicit; coding pts + 2^shift makes it explicit. */
const MSB_PTS_SHIFT = 7;
const MAX_DISTANCE = 32_768;

/**
 * Writes one RGB24 video stream as NUT, with each frame's own pts. A syncpoint goes before every frame:
 * raw frames are far apart, and the syncpoint tells the demuxer where the next frame header starts.
 */
export class NutWriter {
  private readonly timeBase: Rational;

  constructor(
    private readonly width: number,
    private readonly height: number,
    timeBase: Rational,
  ) {
    this.timeBase = reduced(timeBase);
  }

  /** The file id string, the main header and the stream header. */
  header(): Uint8Array {
    const main = new NutBytes()
      .v(3) // version
      .v(1) // stream count
      .v(MAX_DISTANCE)
      .v(1) // time base count
      .v(this.timeBase.num)
      .v(this.timeBase.den)
      // One run of frame codes: flags, 6 fields (pts delta, size mul, stream, size lsb, reserved, count).
      .v(FRAME_FLAGS)
      .v(6)
      .s(0)
      .v(1)
      .v(0)
      .v(0)
      .v(0)
      .v(255) // all 256 codes but "N"
      .v(0) // elision headers: none but the empty one (ffmpeg's demuxer needs the count)
      .done();
    const stream = new NutBytes()
      .v(0) // stream id
      .v(0) // class: video
      .v(RGB24_FOURCC.length)
      .raw(RGB24_FOURCC)
      .v(0) // time base id
      .v(MSB_PTS_SHIFT)
      .v(this.timeBase.den) // max pts distance: frames further apart carry a checksum, as ours all do
      .v(0) // decode delay
      .v(0) // stream flags
      .v(0) // codec-specific data length
      .v(this.width)
      .v(this.height)
      .v(0) // sample aspect ratio unknown
      .v(0)
      .v(0) // colourspace type unknown
      .done();
    return concat([ID_STRING, packet(STARTCODE.main, main), packet(STARTCODE.stream, stream)]);
  }

  /** What goes before a frame of `size` bytes shown at `pts` (in the time base): syncpoint, frame header. */
  frameHeader(pts: number, size: number): Uint8Array {
    const syncpoint = new NutBytes().v(pts).v(0).done(); // global key pts, back pointer
    const frame = new NutBytes()
      .raw([FRAME_CODE])
      .v(pts + 2 ** MSB_PTS_SHIFT)
      .v(size)
      .checksum()
      .done();
    return concat([packet(STARTCODE.syncpoint, syncpoint), frame]);
  }
}

/** startcode, forward pointer, [header checksum], payload, payload checksum. */
function packet(startcode: bigint, payload: Uint8Array): Uint8Array {
  const forwardPointer = payload.length + 4;
  const header = new NutBytes().u64(startcode).v(forwardPointer);
  if (forwardPointer > LARGE_PACKET) header.checksum();
  return concat([header.done(), payload, new NutBytes().u32(nutCrc(payload)).done()]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

function reduced({ num, den }: Rational): Rational {
  const divisor = gcd(num, den);
  return { num: num / divisor, den: den / divisor };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
