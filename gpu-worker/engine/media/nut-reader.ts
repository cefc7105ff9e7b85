import { ChunkReader } from "./chunk-reader";
import {
  FLAG,
  ID_STRING,
  LARGE_PACKET,
  NutCursor,
  nutCrc,
  type Rational,
  RGB24_FOURCC,
  STARTCODE,
  STARTCODE_FIRST_BYTE,
} from "./nut";

export interface NutFrame {
  /** Presentation timestamp in the stream's time base. */
  pts: number;
  ptsSeconds: number;
  data: Uint8Array;
}

interface FrameCode {
  flags: number;
  streamId: number;
  sizeMul: number;
  sizeLsb: number;
  ptsDelta: number;
  reservedCount: number;
  headerIndex: number;
}

interface MainHeader {
  timeBases: Rational[];
  frameCodes: FrameCode[];
}

interface StreamHeader {
  timeBase: Rational;
  msbPtsShift: number;
}

/**
 * Reads the one rgb24 rawvideo stream that ffmpeg writes with `-f nut` (ffmpeg's own muxer: any frame
 * code table, syncpoints, repeated headers, info and index packets). Frames are read one at a time, and
 * the next chunk of the stream is pulled only when the consumer asks for the next frame. Each frame's
 * bytes are read into a buffer from `allocate`.
 */
export async function* readNutFrames(
  chunks: AsyncIterable<Uint8Array>,
  allocate: (size: number) => Uint8Array = (size) => new Uint8Array(size),
): AsyncGenerator<NutFrame> {
  const input = new ChunkReader(chunks[Symbol.asyncIterator]());
  const id = await input.fill(new Uint8Array(ID_STRING.length));
  if (!id.every((byte, index) => byte === ID_STRING[index])) throw new RangeError("Not a NUT stream");

  let main: MainHeader | undefined;
  let stream: StreamHeader | undefined;
  let lastPts = 0;
  for (;;) {
    const frameCode = await input.byteOrEnd();
    if (frameCode === undefined) return;
    if (frameCode === STARTCODE_FIRST_BYTE) {
      const { startcode, payload } = await readPacket(input);
      // Headers repeat through the stream; the first ones hold.
      if (startcode === STARTCODE.main) main ??= parseMainHeader(payload);
      else if (startcode === STARTCODE.stream && main) stream ??= parseStreamHeader(payload, main);
      else if (startcode === STARTCODE.syncpoint && main) lastPts = parseSyncpoint(payload, main);
      continue;
    }
    if (!main || !stream) throw new RangeError("NUT frame before the headers");
    const code = main.frameCodes[frameCode];
    if (!code) throw new RangeError(`NUT frame code ${frameCode} is invalid`);
    const { pts, size } = await readFrameHeader(input, code, stream, lastPts);
    lastPts = pts;
    const data = await input.fill(allocate(size));
    yield { pts, ptsSeconds: (pts * stream.timeBase.num) / stream.timeBase.den, data };
  }
}

/** After the first byte of a startcode: the rest of it, the forward pointer and the checked payload. */
async function readPacket(input: ChunkReader): Promise<{ startcode: bigint; payload: Uint8Array }> {
  let startcode = BigInt(STARTCODE_FIRST_BYTE);
  for (let index = 1; index < 8; index++) startcode = (startcode << 8n) | BigInt(await input.byte());
  const forwardPointer = await readV(input);
  if (forwardPointer > LARGE_PACKET) await input.fill(new Uint8Array(4)); // header checksum
  const payload = await input.fill(new Uint8Array(forwardPointer));
  // The checksum closes the payload, so the CRC over both is zero when the payload is intact.
  if (nutCrc(payload) !== 0) throw new RangeError("NUT packet checksum mismatch");
  return { startcode, payload: payload.subarray(0, -4) };
}

function parseMainHeader(payload: Uint8Array): MainHeader {
  const header = new NutCursor(payload);
  const version = header.v();
  if (version > 3) header.v(); // minor version
  const streamCount = header.v();
  if (streamCount !== 1) throw new RangeError(`Expected one NUT stream, found ${streamCount}`);
  header.v(); // max distance
  const timeBases = Array.from({ length: header.v() }, () => ({ num: header.v(), den: header.v() }));
  return { timeBases, frameCodes: parseFrameCodes(header) };
}

/** The frame code table: runs of codes that share fields, written as differences from the previous run. */
function parseFrameCodes(header: NutCursor): FrameCode[] {
  const codes: FrameCode[] = [];
  let ptsDelta = 0;
  let sizeMul = 1;
  let streamId = 0;
  let headerIndex = 0;
  while (codes.length < 256) {
    const flags = header.v();
    const fields = header.v();
    if (fields > 0) ptsDelta = header.s();
    if (fields > 1) sizeMul = header.v();
    if (fields > 2) streamId = header.v();
    const sizeLsb = fields > 3 ? header.v() : 0;
    const reservedCount = fields > 4 ? header.v() : 0;
    const count = fields > 5 ? header.v() : sizeMul - sizeLsb;
    if (fields > 6) header.s(); // match time delta
    if (fields > 7) headerIndex = header.v();
    for (let extra = 8; extra < fields; extra++) header.v();
    if (count <= 0) throw new RangeError("NUT frame code table is invalid");
    for (let index = 0; index < count && codes.length < 256; index++) {
      // "N" starts a startcode, so its code is skipped and the run goes on after it.
      if (codes.length === STARTCODE_FIRST_BYTE) codes.push(invalidFrameCode());
      codes.push({
        flags,
        streamId,
        sizeMul,
        sizeLsb: sizeLsb + index,
        ptsDelta,
        reservedCount,
        headerIndex,
      });
    }
  }
  return codes;
}

function invalidFrameCode(): FrameCode {
  return {
    flags: FLAG.invalid,
    streamId: 0,
    sizeMul: 1,
    sizeLsb: 0,
    ptsDelta: 0,
    reservedCount: 0,
    headerIndex: 0,
  };
}

function parseStreamHeader(payload: Uint8Array, main: MainHeader): StreamHeader {
  const header = new NutCursor(payload);
  header.v(); // stream id
  header.v(); // class
  const fourcc = header.take(header.v());
  if (fourcc.length !== 4 || !fourcc.every((byte, index) => byte === RGB24_FOURCC[index])) {
    throw new RangeError("The NUT stream is not rgb24 rawvideo");
  }
  const timeBase = main.timeBases[header.v()];
  if (!timeBase) throw new RangeError("NUT stream header names an unknown time base");
  return { timeBase, msbPtsShift: header.v() };
}

/** A syncpoint restates the current time in full; frame headers may then code only the low bits of pts. */
function parseSyncpoint(payload: Uint8Array, main: MainHeader): number {
  return Math.floor(new NutCursor(payload).v() / main.timeBases.length);
}

async function readFrameHeader(
  input: ChunkReader,
  code: FrameCode,
  stream: StreamHeader,
  lastPts: number,
): Promise<{ pts: number; size: number }> {
  let flags = code.flags;
  if (flags & FLAG.invalid) throw new RangeError("NUT frame code is invalid");
  if (flags & FLAG.coded) flags ^= await readV(input);
  if (flags & FLAG.streamId) await readV(input); // the only stream
  let pts = lastPts + code.ptsDelta;
  if (flags & FLAG.codedPts) {
    const codedPts = await readV(input);
    const lsbRange = 2 ** stream.msbPtsShift;
    pts = codedPts >= lsbRange ? codedPts - lsbRange : fullPts(codedPts, lsbRange, lastPts);
  }
  let size = code.sizeLsb;
  if (flags & FLAG.sizeMsb) size += code.sizeMul * (await readV(input));
  if (flags & FLAG.matchTime) await readV(input);
  let headerIndex = code.headerIndex;
  if (flags & FLAG.headerIndex) headerIndex = await readV(input);
  const reservedCount = flags & FLAG.reserved ? await readV(input) : code.reservedCount;
  for (let index = 0; index < reservedCount; index++) await readV(input);
  // Elided headers and side data come with compressed codecs, never with rawvideo.
  if ((headerIndex !== 0 && size <= LARGE_PACKET) || flags & FLAG.sideData) {
    throw new RangeError("NUT frame uses features rawvideo does not need");
  }
  if (flags & FLAG.checksum) await input.fill(new Uint8Array(4));
  return { pts, size };
}

/** The pts nearest to the last one whose low bits are `lsb` (ffmpeg's ff_lsb2full). */
function fullPts(lsb: number, lsbRange: number, lastPts: number): number {
  const base = lastPts - Math.floor((lsbRange - 1) / 2);
  return ((((lsb - base) % lsbRange) + lsbRange) % lsbRange) + base;
}

async function readV(input: ChunkReader): Promise<number> {
  let value = 0;
  for (;;) {
    const byte = await input.byte();
    value = value * 128 + (byte & 127);
    if (byte < 128) return value;
  }
}
