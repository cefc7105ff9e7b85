import {
  BoxBudget,
  type BoxHeader,
  decodeBoxHeader,
  fourcc,
  isPrintableFourcc,
  parseBoxes,
  resolveBoxSize,
} from "./boxes";
import { readMoov } from "./moov";
import {
  EMPTY_FILE,
  MISSING_MOOV,
  MOOV_TOO_LARGE,
  NOT_MP4,
  ProbeError,
  SHORT_READ,
  unreadable,
} from "./probe-error";

export { ProbeError, type ProbeFailure } from "./probe-error";

export interface RangeReader {
  /** Total size of the file in bytes. */
  size: number;
  /** Bytes [offset, offset+length) (may return fewer only at end of file). */
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface VideoInfo {
  /** The longest of the movie's, the tracks' and the samples' timing (see readMoov). */
  durationSeconds: number;
  /** Display width: after a 90/270 rotation matrix, width and height are swapped. */
  width: number;
  height: number;
  /** The size the frames are coded at: what the limits judge, whatever tkhd displays them at. */
  codedWidth: number;
  codedHeight: number;
  rotation: 0 | 90 | 180 | 270;
  hasAudio: boolean;
  /** Sample entry fourcc of the first video track, e.g. "avc1", "hvc1", "mp4v", "apcn". */
  videoCodec: string;
  /** From ftyp; null when there is none (old QuickTime). */
  majorBrand: string | null;
}

export interface ProbeLimits {
  maxMoovBytes: number;
  maxBoxes: number;
  maxDepth: number;
  /** Top-level boxes before moov: each far-apart one can cost a ranged read (a subrequest). */
  maxTopLevelBoxes: number;
}

const DEFAULT_LIMITS: ProbeLimits = {
  maxMoovBytes: 64 * 1024 * 1024,
  maxBoxes: 100_000,
  maxDepth: 16,
  maxTopLevelBoxes: 1000,
};

/** Box types an MP4 or QuickTime file can open with; anything else is another format. */
const FIRST_BOX_TYPES = new Set([
  "ftyp",
  "moov",
  "mdat",
  "free",
  "skip",
  "wide",
  "uuid",
  "pdin",
  "moof",
  "mfra",
  "meta",
  "styp",
  "sidx",
  "pnot",
]);

/** Top-level headers are read in chunks this big, so a run of small boxes costs one read, not one each. */
const CHUNK_BYTES = 8 * 1024;

/**
 * Reads an MP4 or MOV file's metadata: walks the top-level box headers (never the media data) to find
 * moov wherever it sits, then reads and interprets moov alone.
 */
export async function probeMp4(reader: RangeReader, limits: Partial<ProbeLimits> = {}): Promise<VideoInfo> {
  const { maxMoovBytes, maxBoxes, maxDepth, maxTopLevelBoxes } = { ...DEFAULT_LIMITS, ...limits };
  if (reader.size === 0) throw unreadable(EMPTY_FILE);
  const file = new ChunkedFile(reader);
  const budget = new BoxBudget(maxBoxes, maxDepth);
  await requireIsoBmff(file);
  const { moovBody, majorBrand } = await findMoov(file, new BoxBudget(maxTopLevelBoxes, 1), maxMoovBytes);
  const moov = { type: "moov", body: moovBody, children: parseBoxes(moovBody, 1, budget) };
  return { ...readMoov(moov), majorBrand };
}

/** A RangeReader over bytes in memory (for tests and small files). */
export function bytesReader(bytes: Uint8Array): RangeReader {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, offset + length),
  };
}

/** Serves small reads from the last chunk fetched; larger reads go to the reader as they are. */
class ChunkedFile {
  private chunkStart = 0;
  private chunk: Uint8Array = new Uint8Array(0);

  constructor(private readonly reader: RangeReader) {}

  get size(): number {
    return this.reader.size;
  }

  /** Bytes [offset, offset+length), fewer only at the end of the file. */
  async bytesAt(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(offset + length, this.size);
    if (offset < this.chunkStart || end > this.chunkStart + this.chunk.length) {
      await this.fetch(offset, Math.max(end, Math.min(offset + CHUNK_BYTES, this.size)));
    }
    return this.chunk.subarray(offset - this.chunkStart, end - this.chunkStart);
  }

  private async fetch(start: number, end: number): Promise<void> {
    const bytes = await this.reader.read(start, end - start);
    if (bytes.length < end - start) throw unreadable(SHORT_READ);
    this.chunk = bytes.subarray(0, end - start);
    this.chunkStart = start;
  }
}

async function requireIsoBmff(file: ChunkedFile): Promise<void> {
  const firstHeader = await file.bytesAt(0, 8);
  const isIsoBmff =
    firstHeader.length === 8 &&
    isPrintableFourcc(firstHeader, 4) &&
    FIRST_BOX_TYPES.has(fourcc(firstHeader, 4));
  if (!isIsoBmff) throw new ProbeError("unsupported_format", NOT_MP4);
}

interface TopLevel {
  moovBody: Uint8Array;
  majorBrand: string | null;
}

/** Walks the top-level boxes by their headers alone, stopping at moov. */
async function findMoov(file: ChunkedFile, budget: BoxBudget, maxMoovBytes: number): Promise<TopLevel> {
  let majorBrand: string | null = null;
  let offset = 0;
  while (offset < file.size) {
    budget.countBox();
    const header = await readTopLevelHeader(file, offset);
    const size = topLevelBoxSize(header, offset, file.size);
    const bodyStart = offset + header.headerSize;
    if (header.type === "moov") {
      if (size > maxMoovBytes) throw unreadable(MOOV_TOO_LARGE);
      return { moovBody: await file.bytesAt(bodyStart, size - header.headerSize), majorBrand };
    }
    if (header.type === "ftyp" && offset === 0) majorBrand = await readMajorBrand(file, bodyStart, size);
    offset += size;
  }
  throw unreadable(MISSING_MOOV);
}

async function readTopLevelHeader(file: ChunkedFile, offset: number): Promise<BoxHeader> {
  const bytes = await file.bytesAt(offset, 16);
  if (bytes.length < 8) throw unreadable(MISSING_MOOV);
  return decodeBoxHeader(bytes, 0);
}

/** A top-level box running past the end of the file means the upload stopped short. */
function topLevelBoxSize(header: BoxHeader, offset: number, fileSize: number): number {
  if (header.size !== null && offset + header.size > fileSize) throw unreadable(MISSING_MOOV);
  return resolveBoxSize(header, offset, fileSize);
}

async function readMajorBrand(
  file: ChunkedFile,
  bodyStart: number,
  ftypSize: number,
): Promise<string | null> {
  if (ftypSize < 12) return null;
  return fourcc(await file.bytesAt(bodyStart, 4), 0);
}
