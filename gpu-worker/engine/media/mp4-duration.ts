import { type Box, boxesIn, boxPath, childBox, readUint, tracksOf, versionOf, writeUint } from "./mp4-boxes";
import type { Rational } from "./nut";

interface SttsEntry {
  count: number;
  delta: number;
}

/** How long a video shows, in its time base's units. */
export interface TrackTiming {
  /** From its first frame to the end of its last. */
  shown: number;
  /** Its last frame alone. */
  lastFrame: number;
}

/**
 * Gives a track of `moov` the input's timing: its last sample the last frame's duration, and the
 * media, the edit list, the track and the movie the time it is shown. Every other sample's duration is
 * the gap to the next, which the muxer gets right; the last one ffmpeg guesses from the stream's rate,
 * which it cannot tell from frames that arrive through a pipe at 720p and above (it gave one tick, and
 * 20 fps read as 20.13). As in ffmpeg's own files, the media's duration is the time shown, and the
 * samples' durations add up to the span of decoding times (B-frames at a variable rate make the two
 * differ). Returns the moov, 8 bytes longer when the last sample had to leave a run it shared.
 */
export function setTrackTiming(moov: Buffer, trak: Box, timing: TrackTiming, timeBase: Rational): Buffer {
  const mdhd = childBox(moov, childBox(moov, trak, "mdia"), "mdhd");
  const mdhdWide = versionOf(moov, mdhd) === 1;
  const mediaScale = moov.readUInt32BE(mdhd.bodyStart + (mdhdWide ? 20 : 12));
  const ticks = (value: number) => Math.round((value * timeBase.num * mediaScale) / timeBase.den);
  const shown = ticks(timing.shown);
  writeUint(moov, mdhd.bodyStart + (mdhdWide ? 24 : 16), mdhdWide, shown);
  const root = childBox(moov, undefined, "moov");
  const mvhd = childBox(moov, root, "mvhd");
  const mvhdWide = versionOf(moov, mvhd) === 1;
  const movieScale = moov.readUInt32BE(mvhd.bodyStart + (mvhdWide ? 20 : 12));
  // Rounded up as ffmpeg does, so the edit list never cuts the last frame short.
  setShownDuration(moov, trak, Math.ceil((shown * movieScale) / mediaScale));
  const longestTrack = Math.max(...tracksOf(moov).map((track) => trackDuration(moov, track).value));
  writeUint(moov, mvhd.bodyStart + (mvhdWide ? 24 : 16), mvhdWide, longestTrack);
  const sttsPath = [root, ...boxPath(moov, trak, ["mdia", "minf", "stbl", "stts"])];
  return setLastSampleDelta(moov, sttsPath, ticks(timing.lastFrame));
}

function sttsEntries(moov: Buffer, stts: Box): SttsEntry[] {
  const count = moov.readUInt32BE(stts.bodyStart + 4);
  return Array.from({ length: count }, (_, index) => ({
    count: moov.readUInt32BE(stts.bodyStart + 8 + index * 8),
    delta: moov.readUInt32BE(stts.bodyStart + 12 + index * 8),
  }));
}

/** A track's duration in the movie's timescale, from its header (tkhd). */
function trackDuration(moov: Buffer, trak: Box): { offset: number; wide: boolean; value: number } {
  const tkhd = childBox(moov, trak, "tkhd");
  const wide = versionOf(moov, tkhd) === 1;
  // After version/flags, creation and modification times, track id and a reserved field.
  const offset = tkhd.bodyStart + (wide ? 28 : 20);
  return { offset, wide, value: readUint(moov, offset, wide) };
}

/**
 * Sets how long the track's media is shown, in the movie's timescale: the last edit that shows media
 * (not an empty edit, which delays the track), and the track's duration, which is all its edits.
 */
function setShownDuration(moov: Buffer, trak: Box, duration: number): void {
  let total = duration;
  const edts = [...boxesIn(moov, trak)].find((box) => box.type === "edts");
  if (edts) {
    const elst = childBox(moov, edts, "elst");
    const wide = versionOf(moov, elst) === 1;
    const entrySize = wide ? 20 : 12;
    const entries = Array.from({ length: moov.readUInt32BE(elst.bodyStart + 4) }, (_, index) => {
      const offset = elst.bodyStart + 8 + index * entrySize;
      const mediaTime = wide ? Number(moov.readBigInt64BE(offset + 8)) : moov.readInt32BE(offset + 4);
      return { offset, empty: mediaTime === -1 };
    });
    const shown = entries.filter((entry) => !entry.empty).at(-1);
    if (shown) writeUint(moov, shown.offset, wide, duration);
    total = entries.reduce((sum, entry) => sum + readUint(moov, entry.offset, wide), 0);
  }
  const { offset, wide } = trackDuration(moov, trak);
  writeUint(moov, offset, wide, total);
}

/**
 * Gives the last sample `delta`. stts stores runs of samples of equal duration; when the last sample
 * shares its run, it gets a run of its own, and the stts and every box around it grow by 8 bytes.
 */
function setLastSampleDelta(moov: Buffer, sttsPath: Box[], delta: number): Buffer {
  const stts = sttsPath.at(-1) as Box;
  const entries = sttsEntries(moov, stts);
  const last = entries.at(-1);
  if (!last || last.delta === delta) return moov;
  const lastEntry = stts.bodyStart + 8 + (entries.length - 1) * 8;
  const { count } = last;
  if (count === 1) {
    moov.writeUInt32BE(delta, lastEntry + 4);
    return moov;
  }
  moov.writeUInt32BE(count - 1, lastEntry);
  moov.writeUInt32BE(entries.length + 1, stts.bodyStart + 4);
  for (const box of sttsPath) {
    const size = box.end - box.start + 8;
    if (box.bodyStart - box.start === 16) moov.writeBigUInt64BE(BigInt(size), box.start + 8);
    else moov.writeUInt32BE(size, box.start);
  }
  const entry = Buffer.alloc(8);
  entry.writeUInt32BE(1, 0);
  entry.writeUInt32BE(delta, 4);
  return Buffer.concat([moov.subarray(0, stts.end), entry, moov.subarray(stts.end)]);
}
