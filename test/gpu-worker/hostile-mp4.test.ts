// Malformed and malicious MP4s, made by damaging a real clip: the edge's probe (at job creation)
// and the worker's ffprobe (before any work) both refuse them with a 422 code, or, where ffmpeg
// repairs the damage itself, read the clip it still is; neither crashes nor hangs.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesReader, ProbeError, probeMp4 } from "../../edge/media/mp4-probe";
import { MediaError, probeVideo } from "../../gpu-worker/engine/media/probe";

const CUSTOMER_CODES = ["unreadable_video", "unsupported_format"];

let workDir: string;
let clip: Buffer;

/** Offset of the first box of this type (its size field). */
function boxAt(bytes: Buffer, type: string): number {
  const offset = bytes.indexOf(Buffer.from(type, "latin1")) - 4;
  if (offset < 0) throw new Error(`no ${type} box in the clip`);
  return offset;
}

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, payload]);
}

/** A damaged copy of the clip: `at(type)` finds a box, then one 32-bit field is overwritten. */
function damaged(type: string, fieldOffset: number, value: number): () => Buffer {
  return () => {
    const bytes = Buffer.from(clip);
    bytes.writeUInt32BE(value, boxAt(bytes, type) + fieldOffset);
    return bytes;
  };
}

const REFUSED_BY_BOTH: [string, () => Buffer][] = [
  ["stsz claiming 2^32-1 samples", damaged("stsz", 16, 0xffff_ffff)],
  ["stco claiming 2^32-1 chunk offsets", damaged("stco", 12, 0xffff_ffff)],
  ["stts claiming 2^32-1 entries", damaged("stts", 12, 0xffff_ffff)],
  ["a trak with the 64-bit size marker and no size", damaged("trak", 0, 1)],
  ["an mdia box smaller than its own header", damaged("mdia", 0, 4)],
  [
    "a moov of 2000 nested boxes",
    () => {
      let inner = box("free", Buffer.alloc(0));
      for (let level = 0; level < 2000; level++) inner = box("trak", inner);
      return Buffer.concat([clip.subarray(0, boxAt(clip, "moov")), box("moov", inner)]);
    },
  ],
  ["random bytes named .mp4", () => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251))],
];

/** Damage ffmpeg repairs on its own: the edge refuses it, the worker would still clean the clip. */
const REFUSED_BY_EDGE: [string, () => Buffer][] = [
  ["a moov claiming to run 2 GB past the end of the file", damaged("moov", 0, 0x7fff_fff0)],
  [
    "a trak claiming to be larger than the moov holding it (a box containing its parent)",
    () => {
      const bytes = Buffer.from(clip);
      bytes.writeUInt32BE(bytes.readUInt32BE(boxAt(bytes, "moov")) + 100, boxAt(bytes, "trak"));
      return bytes;
    },
  ],
];

async function edgeVerdict(bytes: Buffer): Promise<string> {
  try {
    await probeMp4(bytesReader(new Uint8Array(bytes)));
    return "accepted";
  } catch (error) {
    if (error instanceof ProbeError) return error.reason;
    throw error;
  }
}

async function workerVerdict(bytes: Buffer, name: string): Promise<string> {
  const file = path.join(workDir, `${name.replace(/\W+/g, "-")}.mp4`);
  await writeFile(file, bytes);
  try {
    const probe = await probeVideo(file);
    return `read ${probe.frameCount} frames`;
  } catch (error) {
    if (error instanceof MediaError) return error.code;
    throw error;
  }
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "adclean-hostile-"));
  const file = path.join(workDir, "clip.mp4");
  await promisify(execFile)("ffmpeg", [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10", "-t", "1"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-movflags", "+faststart", file],
  ]);
  clip = await readFile(file);
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("malformed and malicious MP4s", () => {
  it("the undamaged clip passes both probes (the damage below is what they refuse)", async () => {
    expect(await edgeVerdict(clip)).toBe("accepted");
    expect(await workerVerdict(clip, "clean")).toBe("read 10 frames");
  });

  it.each(REFUSED_BY_BOTH)(
    "%s: refused by the edge and by the worker with a 422 code",
    async (name, make) => {
      const bytes = make();
      expect(CUSTOMER_CODES).toContain(await edgeVerdict(bytes));
      expect(CUSTOMER_CODES).toContain(await workerVerdict(bytes, name));
    },
  );

  it.each(REFUSED_BY_EDGE)(
    "%s: refused by the edge; ffmpeg reads the clip it still is",
    async (name, make) => {
      const bytes = make();
      expect(CUSTOMER_CODES).toContain(await edgeVerdict(bytes));
      expect(await workerVerdict(bytes, name)).toBe("read 10 frames");
    },
  );
});
