import { type FileHandle, open } from "node:fs/promises";
import { MediaError } from "./errors";

const FREE_TYPES = ["free", "skip"];

interface TopBox {
  type: string;
  start: number;
  size: number;
}

/**
 * Reads an MP4's moov box into memory, lets `edit` change it (it gets the moov alone, from offset 0,
 * and returns it, grown or not) and writes it back where it was. A moov that grows takes the room of
 * the free box after it: ffmpeg writes one of 8 bytes before mdat, and +faststart moves the moov in
 * front of it, so the samples stay where the chunk offsets say they are.
 */
export async function editMoov(path: string, edit: (moov: Buffer) => Buffer): Promise<void> {
  const file = await open(path, "r+");
  try {
    const boxes = await topLevelBoxes(file);
    const index = boxes.findIndex((box) => box.type === "moov");
    const moov = boxes[index];
    if (!moov) throw new MediaError("ffmpeg_failed", "The encoded MP4 has no moov box.");
    const bytes = Buffer.alloc(moov.size);
    await file.read(bytes, 0, moov.size, moov.start);
    const edited = edit(bytes);
    const growth = edited.length - moov.size;
    const next = boxes[index + 1];
    // A moov at the end of the file grows freely; before mdat, into the free box after it.
    const room = !next ? Number.POSITIVE_INFINITY : FREE_TYPES.includes(next.type) ? next.size : 0;
    const leftOver = room - growth;
    // What is left of the free box must still be a box: nothing, or at least a header.
    if (growth < 0 || (growth > 0 && leftOver !== 0 && leftOver < 8)) {
      throw new MediaError("ffmpeg_failed", "The encoded MP4 has no room to grow its moov box.");
    }
    await file.write(edited, 0, edited.length, moov.start);
    if (next && growth > 0 && leftOver > 0) {
      await file.write(freeBoxHeader(leftOver), 0, 8, next.start + growth);
    }
  } finally {
    await file.close();
  }
}

function freeBoxHeader(size: number): Buffer {
  const header = Buffer.from("\0\0\0\0free", "latin1");
  header.writeUInt32BE(size);
  return header;
}

async function topLevelBoxes(file: FileHandle): Promise<TopBox[]> {
  const { size: fileSize } = await file.stat();
  const boxes: TopBox[] = [];
  const header = Buffer.alloc(16);
  for (let start = 0; start + 8 <= fileSize; ) {
    await file.read(header, 0, 16, start);
    const shortSize = header.readUInt32BE(0);
    const size = shortSize === 1 ? Number(header.readBigUInt64BE(8)) : shortSize || fileSize - start;
    if (size < 8) throw new MediaError("ffmpeg_failed", "The encoded MP4 has a damaged box.");
    boxes.push({ type: header.toString("latin1", 4, 8), start, size });
    start += size;
  }
  return boxes;
}
