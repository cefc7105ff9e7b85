import { type Box, dataView, findChild, findPath, fourcc, safeUint64 } from "./boxes";
import {
  DAMAGED_METADATA,
  NO_CODEC,
  NO_DIMENSIONS,
  NO_DURATION,
  NO_VIDEO_TRACK,
  ProbeError,
  unreadable,
} from "./probe-error";
import { requireConsistentSampleTables } from "./sample-tables";

export type Rotation = 0 | 90 | 180 | 270;

/** What the moov box says about the video; the ftyp brand is added by the file walk. */
export interface MoovInfo {
  /** The longest of the movie's, each track's header and each track's samples' own timing. */
  durationSeconds: number;
  width: number;
  height: number;
  /** The size the frames are coded at (the sample entry's), which the work is done at. */
  codedWidth: number;
  codedHeight: number;
  rotation: Rotation;
  hasAudio: boolean;
  videoCodec: string;
}

interface Timing {
  timescale: number;
  /** In timescale units; 0 when the box leaves it unknown. */
  duration: number;
}

interface VideoTrack {
  width: number;
  height: number;
  codedWidth: number;
  codedHeight: number;
  rotation: Rotation;
  codec: string;
}

/** Interprets the parsed children of a moov box. */
export function readMoov(moov: Box): MoovInfo {
  const tracks = moov.children.filter((child) => child.type === "trak");
  const videoTrak = tracks.find((trak) => handlerType(trak) === "vide");
  if (!videoTrak) throw new ProbeError("unsupported_format", NO_VIDEO_TRACK);
  for (const trak of tracks) requireConsistentSampleTables(trak);
  const video = readVideoTrack(videoTrak);
  return {
    durationSeconds: movieDuration(moov, tracks),
    width: video.width,
    height: video.height,
    codedWidth: video.codedWidth,
    codedHeight: video.codedHeight,
    rotation: video.rotation,
    hasAudio: tracks.some((trak) => handlerType(trak) === "soun"),
    videoCodec: video.codec,
  };
}

function handlerType(trak: Box): string | undefined {
  const hdlr = findPath(trak, ["mdia", "hdlr"]);
  // hdlr: version and flags, pre_defined (QuickTime's component type), then the handler type.
  return hdlr && hdlr.body.length >= 12 ? fourcc(hdlr.body, 8) : undefined;
}

/**
 * The longest of every clock the file has: mehd (every fragment of a fragmented file), mvhd, and per
 * track tkhd, mdhd and the sum of its sample durations (stts). Pricing by one header alone let a
 * file whose mvhd says 1 s carry 60 s of frames; the samples are what gets cleaned.
 */
function movieDuration(moov: Box, tracks: Box[]): number {
  const mvhd = findChild(moov, "mvhd");
  const movieTiming = mvhd && readTiming(mvhd);
  const mehd = findPath(moov, ["mvex", "mehd"]);
  const movieTimescale = movieTiming?.timescale ?? 0;
  const candidates = [
    movieTiming && mehd ? seconds({ timescale: movieTimescale, duration: readMehd(mehd) }) : 0,
    movieTiming ? seconds(movieTiming) : 0,
    ...tracks.map((trak) => trackSeconds(trak, movieTimescale)),
  ];
  const duration = Math.max(...candidates);
  if (!(duration > 0) || !Number.isFinite(duration)) throw unreadable(NO_DURATION);
  return duration;
}

/** The longest of a track's header (in the movie's timescale), its media header and its samples. */
function trackSeconds(trak: Box, movieTimescale: number): number {
  const tkhd = findChild(trak, "tkhd");
  const mdhd = findPath(trak, ["mdia", "mdhd"]);
  const media = mdhd ? readTiming(mdhd) : null;
  const stts = findPath(trak, ["mdia", "minf", "stbl", "stts"]);
  return Math.max(
    tkhd ? seconds({ timescale: movieTimescale, duration: readTkhdDuration(tkhd) }) : 0,
    media ? seconds(media) : 0,
    media && stts ? seconds({ timescale: media.timescale, duration: sampleDurationSum(stts) }) : 0,
  );
}

/** tkhd's duration: after version and flags, two times, the track id and a reserved word. */
function readTkhdDuration(tkhd: Box): number {
  const version = fullBoxVersion(tkhd);
  requireLength(tkhd, version === 1 ? 36 : 24);
  const view = dataView(tkhd.body);
  return version === 1 ? readDuration64(view, 28) : readDuration32(view, 20);
}

/** stts: (sample count, sample delta) pairs; their entry count was checked against the box's size. */
function sampleDurationSum(stts: Box): number {
  requireLength(stts, 8);
  const view = dataView(stts.body);
  let total = 0;
  for (let entry = 0; entry < view.getUint32(4); entry++) {
    total += view.getUint32(8 + entry * 8) * view.getUint32(12 + entry * 8);
  }
  return total;
}

function seconds(timing: Timing): number {
  return timing.timescale > 0 ? timing.duration / timing.timescale : 0;
}

/** mvhd and mdhd share this layout: version 1 widens the times and the duration to 64 bits. */
function readTiming(box: Box): Timing {
  const version = fullBoxVersion(box);
  requireLength(box, version === 1 ? 32 : 20);
  const view = dataView(box.body);
  if (version === 1) return { timescale: view.getUint32(20), duration: readDuration64(view, 24) };
  return { timescale: view.getUint32(12), duration: readDuration32(view, 16) };
}

function readMehd(mehd: Box): number {
  const version = fullBoxVersion(mehd);
  requireLength(mehd, version === 1 ? 12 : 8);
  const view = dataView(mehd.body);
  return version === 1 ? readDuration64(view, 4) : readDuration32(view, 4);
}

/** All bits set: a 32-bit duration that is unknown. */
const MAX_UINT32 = 0xffff_ffff;

/** All bits set means "unknown duration". */
function readDuration32(view: DataView, offset: number): number {
  const duration = view.getUint32(offset);
  return duration === MAX_UINT32 ? 0 : duration;
}

function readDuration64(view: DataView, offset: number): number {
  if (view.getUint32(offset) === MAX_UINT32 && view.getUint32(offset + 4) === MAX_UINT32) return 0;
  const duration = safeUint64(view, offset);
  if (duration === null) throw unreadable(DAMAGED_METADATA);
  return duration;
}

function readVideoTrack(trak: Box): VideoTrack {
  const stsd = findPath(trak, ["mdia", "minf", "stbl", "stsd"]);
  // stsd: version and flags, entry count, then the first sample entry's size and fourcc.
  if (!stsd || stsd.body.length < 16 || dataView(stsd.body).getUint32(4) === 0) throw unreadable(NO_CODEC);
  const tkhd = findChild(trak, "tkhd");
  const presentation = tkhd ? readTkhd(tkhd) : { width: 0, height: 0, rotation: 0 as const };
  // Some writers leave tkhd's size at zero; the sample entry then still has the coded size.
  const size = presentation.width > 0 && presentation.height > 0 ? presentation : sampleEntrySize(stsd);
  if (size.width === 0 || size.height === 0) throw unreadable(NO_DIMENSIONS);
  const coded = sampleEntrySize(stsd);
  const quarterTurn = presentation.rotation === 90 || presentation.rotation === 270;
  return {
    width: quarterTurn ? size.height : size.width,
    height: quarterTurn ? size.width : size.height,
    // Where the sample entry leaves its size at zero, the presentation size is all there is.
    codedWidth: coded.width || size.width,
    codedHeight: coded.height || size.height,
    rotation: presentation.rotation,
    codec: fourcc(stsd.body, 12),
  };
}

const FIXED_16_16 = 0x1_0000;

/** tkhd: the presentation size (16.16 fixed, before the matrix) and the rotation its matrix applies. */
function readTkhd(tkhd: Box): { width: number; height: number; rotation: Rotation } {
  const matrixOffset = fullBoxVersion(tkhd) === 1 ? 52 : 40;
  requireLength(tkhd, matrixOffset + 44);
  const view = dataView(tkhd.body);
  return {
    width: Math.round(view.getUint32(matrixOffset + 36) / FIXED_16_16),
    height: Math.round(view.getUint32(matrixOffset + 40) / FIXED_16_16),
    rotation: matrixRotation(view.getInt32(matrixOffset), view.getInt32(matrixOffset + 4)),
  };
}

/**
 * The matrix maps (x, y) to (a*x + c*y, b*x + d*y) with y pointing down, so the first column (a, b) is
 * where the x axis ends up: (0, 1) is a clockwise quarter turn, as phones write for portrait video.
 */
function matrixRotation(a: number, b: number): Rotation {
  const degrees = (Math.atan2(b, a) * 180) / Math.PI;
  const quarterTurns = (((Math.round(degrees / 90) % 4) + 4) % 4) as 0 | 1 | 2 | 3;
  return ([0, 90, 180, 270] as const)[quarterTurns];
}

/** A visual sample entry holds its coded width and height 24 bytes into its payload. */
function sampleEntrySize(stsd: Box): { width: number; height: number } {
  const entryDimensionsOffset = 8 + 8 + 24;
  if (stsd.body.length < entryDimensionsOffset + 4) return { width: 0, height: 0 };
  const view = dataView(stsd.body);
  return { width: view.getUint16(entryDimensionsOffset), height: view.getUint16(entryDimensionsOffset + 2) };
}

function fullBoxVersion(box: Box): number {
  requireLength(box, 4);
  return box.body[0] ?? 0;
}

function requireLength(box: Box, length: number): void {
  if (box.body.length < length) throw unreadable(DAMAGED_METADATA);
}
