/**
 * The pieces of the NUT container (FFmpeg's doc/nut.texi) that our reader and writer share. NUT carries
 * one timestamp per frame in an exact rational time base, which raw pipes cannot; that is why frames
 * travel to and from ffmpeg in it.
 */

export const ID_STRING = new TextEncoder().encode("nut/multimedia container\0");

export const STARTCODE = {
  main: 0x4e4d7a561f5f04adn,
  stream: 0x4e5311405bf2f9dbn,
  syncpoint: 0x4e4be4adeeca4569n,
} as const;

/** Every startcode begins with "N", which is therefore never a frame code. */
export const STARTCODE_FIRST_BYTE = 0x4e;

export const FLAG = {
  key: 1,
  codedPts: 8,
  streamId: 16,
  sizeMsb: 32,
  checksum: 64,
  reserved: 128,
  sideData: 256,
  headerIndex: 1024,
  matchTime: 2048,
  coded: 4096,
  invalid: 8192,
} as const;

/** A packet whose forward pointer exceeds this also carries a checksum of its own header. */
export const LARGE_PACKET = 4096;

/** The 4CC of rgb24 rawvideo: "RGB" and 24 bits per pixel. */
export const RGB24_FOURCC = new Uint8Array([0x52, 0x47, 0x42, 24]);

export interface Rational {
  num: number;
  den: number;
}

/** NUT's checksum: CRC-32 with polynomial 0x04C11DB7, MSB first, initial value 0, stored big-endian. */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 24;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000_0000 ? (crc << 1) ^ 0x04c1_1db7 : crc << 1;
  return crc >>> 0;
});

export function nutCrc(bytes: Uint8Array, crc = 0): number {
  let value = crc;
  for (const byte of bytes) value = ((value << 8) ^ (CRC_TABLE[(value >>> 24) ^ byte] as number)) >>> 0;
  return value;
}

/** Builds NUT bytes: v is NUT's unsigned variable-length integer (7 bits a byte, most significant first). */
export class NutBytes {
  private readonly bytes: number[] = [];

  v(value: number): this {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`NUT cannot store ${value}`);
    const groups = [value % 128];
    for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) {
      groups.unshift(128 | (rest % 128));
    }
    this.bytes.push(...groups);
    return this;
  }

  /** s: a signed value folded into v (0, 1, -1, 2, -2, ...). */
  s(value: number): this {
    return this.v(value > 0 ? 2 * value - 1 : -2 * value);
  }

  raw(bytes: Iterable<number>): this {
    this.bytes.push(...bytes);
    return this;
  }

  u32(value: number): this {
    return this.raw([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
  }

  u64(value: bigint): this {
    for (let shift = 56n; shift >= 0n; shift -= 8n) this.bytes.push(Number((value >> shift) & 255n));
    return this;
  }

  /** Appends the checksum of everything written so far. */
  checksum(): this {
    return this.u32(nutCrc(this.done()));
  }

  done(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

/** Reads NUT values from bytes held in memory (packet payloads). */
export class NutCursor {
  private position = 0;

  constructor(private readonly bytes: Uint8Array) {}

  v(): number {
    let value = 0;
    for (;;) {
      const byte = this.u8();
      value = value * 128 + (byte & 127);
      if (byte < 128) return value;
    }
  }

  s(): number {
    const folded = this.v() + 1;
    return folded % 2 ? -(folded - 1) / 2 : folded / 2;
  }

  u8(): number {
    const byte = this.bytes[this.position++];
    if (byte === undefined) throw new RangeError("NUT packet ends early");
    return byte;
  }

  take(length: number): Uint8Array {
    if (this.position + length > this.bytes.length) throw new RangeError("NUT packet ends early");
    this.position += length;
    return this.bytes.subarray(this.position - length, this.position);
  }
}
