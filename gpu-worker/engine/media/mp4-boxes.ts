import { MediaError } from "./errors";

/** An ISO BMFF box inside a buffer: where its header starts, where its body starts, where it ends. */
export interface Box {
  type: string;
  start: number;
  bodyStart: number;
  end: number;
}

/** The boxes directly inside `parent` (the whole buffer when there is none). */
export function* boxesIn(bytes: Buffer, parent?: Box): Generator<Box> {
  const end = parent?.end ?? bytes.length;
  for (let offset = parent?.bodyStart ?? 0; offset + 8 <= end; ) {
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    const shortSize = bytes.readUInt32BE(offset);
    const headerSize = shortSize === 1 ? 16 : 8;
    const size = shortSize === 1 ? Number(bytes.readBigUInt64BE(offset + 8)) : shortSize || end - offset;
    if (size < headerSize || offset + size > end) {
      throw new MediaError("ffmpeg_failed", `The encoded MP4 has a damaged ${type} box.`);
    }
    yield { type, start: offset, bodyStart: offset + headerSize, end: offset + size };
    offset += size;
  }
}

/** The first box of `type` directly inside `parent`. */
export function childBox(bytes: Buffer, parent: Box | undefined, type: string): Box {
  for (const box of boxesIn(bytes, parent)) if (box.type === type) return box;
  throw new MediaError("ffmpeg_failed", `The encoded MP4 has no ${type} box.`);
}

/** The boxes from `parent` down the path of types, `parent` first. */
export function boxPath(bytes: Buffer, parent: Box, types: string[]): Box[] {
  const path = [parent];
  for (const type of types) path.push(childBox(bytes, path.at(-1), type));
  return path;
}

/** The tracks of a moov whose handler is `handler` ("vide", "soun"). */
export function tracksOf(moov: Buffer, handler?: string): Box[] {
  const root = childBox(moov, undefined, "moov");
  return [...boxesIn(moov, root)].filter((box) => {
    if (box.type !== "trak") return false;
    const hdlr = boxPath(moov, box, ["mdia", "hdlr"]).at(-1) as Box;
    // hdlr: version and flags, QuickTime's component type, then the handler type.
    return !handler || moov.toString("latin1", hdlr.bodyStart + 8, hdlr.bodyStart + 12) === handler;
  });
}

/** The one video track of a moov. */
export function videoTrack(moov: Buffer): Box {
  const [video] = tracksOf(moov, "vide");
  if (!video) throw new MediaError("ffmpeg_failed", "The encoded MP4 has no video track.");
  return video;
}

/** A full box's version (0: 32-bit times and durations, 1: 64-bit). */
export function versionOf(bytes: Buffer, box: Box): number {
  return bytes[box.bodyStart] as number;
}

/** Reads an unsigned field 4 or 8 bytes wide. */
export function readUint(bytes: Buffer, offset: number, wide: boolean): number {
  return wide ? Number(bytes.readBigUInt64BE(offset)) : bytes.readUInt32BE(offset);
}

export function writeUint(bytes: Buffer, offset: number, wide: boolean, value: number): void {
  if (wide) bytes.writeBigUInt64BE(BigInt(value), offset);
  else bytes.writeUInt32BE(value, offset);
}
