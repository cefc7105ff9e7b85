import { open } from "node:fs/promises";

/** Box types an MP4 or MOV file starts with. */
const ISO_BMFF_FIRST_BOXES = new Set(["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid"]);
const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3]; // Matroska, WebM

/**
 * Whether the file starts like a video container (MP4/MOV, Matroska/WebM, AVI). Tells a damaged video
 * from a file that is no video at all when ffprobe cannot read either.
 */
export async function startsLikeVideoContainer(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const head = new Uint8Array(12);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const text = (start: number, end: number) => String.fromCharCode(...head.subarray(start, end));
    if (bytesRead < head.length) return false;
    return (
      ISO_BMFF_FIRST_BOXES.has(text(4, 8)) ||
      EBML_MAGIC.every((byte, index) => head[index] === byte) ||
      (text(0, 4) === "RIFF" && text(8, 12) === "AVI ")
    );
  } finally {
    await file.close();
  }
}
