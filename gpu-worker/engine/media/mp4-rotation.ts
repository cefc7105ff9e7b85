import { type FileHandle, open } from "node:fs/promises";
import { MediaError } from "./errors";

interface Box {
  type: string;
  bodyStart: number;
  end: number;
}

const FIXED_16_16 = 0x1_0000;
const FIXED_2_30 = 0x4000_0000;

/**
 * Writes a clockwise rotation into the matrix of an MP4's video track header (tkhd), in place. ffmpeg 5
 * only sets a rotation when it copies a stream, not when it encodes one, so the encoder does it here.
 */
export async function setVideoRotation(path: string, clockwiseDegrees: 0 | 90 | 180 | 270): Promise<void> {
  const file = await open(path, "r+");
  try {
    const { size } = await file.stat();
    const moov = await childBox(file, { type: "file", bodyStart: 0, end: size }, "moov");
    for await (const trak of boxes(file, moov)) {
      if (trak.type !== "trak" || (await handlerType(file, trak)) !== "vide") continue;
      const tkhd = await childBox(file, trak, "tkhd");
      const version = (await readAt(file, tkhd.bodyStart, 1))[0];
      // The matrix follows version/flags, times, track id, duration, reserved, layer, group, volume.
      const matrixOffset = tkhd.bodyStart + (version === 1 ? 52 : 40);
      await file.write(rotationMatrix(clockwiseDegrees), 0, 36, matrixOffset);
      return;
    }
    throw new MediaError("ffmpeg_failed", "The encoded MP4 has no video track.");
  } finally {
    await file.close();
  }
}

/** (a, b) is where the x axis goes and (c, d) the y axis, y pointing down: (0, 1) is a clockwise turn. */
function rotationMatrix(clockwiseDegrees: number): Buffer {
  const radians = (clockwiseDegrees * Math.PI) / 180;
  const cos = Math.round(Math.cos(radians)) * FIXED_16_16;
  const sin = Math.round(Math.sin(radians)) * FIXED_16_16;
  const matrix = Buffer.alloc(36);
  [cos, sin, 0, -sin, cos, 0, 0, 0, FIXED_2_30].forEach((value, index) => {
    matrix.writeInt32BE(value, index * 4);
  });
  return matrix;
}

async function handlerType(file: FileHandle, trak: Box): Promise<string> {
  const hdlr = await childBox(file, await childBox(file, trak, "mdia"), "hdlr");
  // hdlr: version and flags, QuickTime's component type, then the handler type.
  return (await readAt(file, hdlr.bodyStart + 8, 4)).toString("latin1");
}

async function childBox(file: FileHandle, parent: Box, type: string): Promise<Box> {
  for await (const box of boxes(file, parent)) if (box.type === type) return box;
  throw new MediaError("ffmpeg_failed", `The encoded MP4 has no ${type} box.`);
}

async function* boxes(file: FileHandle, parent: Box): AsyncGenerator<Box> {
  for (let offset = parent.bodyStart; offset + 8 <= parent.end; ) {
    const header = await readAt(file, offset, 16);
    const type = header.toString("latin1", 4, 8);
    const shortSize = header.readUInt32BE(0);
    const headerSize = shortSize === 1 ? 16 : 8;
    const size = shortSize === 1 ? Number(header.readBigUInt64BE(8)) : shortSize || parent.end - offset;
    if (size < headerSize)
      throw new MediaError("ffmpeg_failed", `The encoded MP4 has a damaged ${type} box.`);
    yield { type, bodyStart: offset + headerSize, end: offset + size };
    offset += size;
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  await file.read(bytes, 0, length, position);
  return bytes;
}
