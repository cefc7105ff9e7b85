import { type Box, dataView, findPath } from "./boxes";
import { DAMAGED_METADATA, unreadable } from "./probe-error";

/** Bytes per entry of the sample tables whose entry count sits after version and flags. */
const ENTRY_BYTES: Record<string, number> = { stts: 8, ctts: 8, stsc: 12, stss: 4, stco: 4, co64: 8 };

/**
 * Refuses a track whose sample tables claim more entries than their boxes hold (a sample count
 * of 2^32 in a few bytes): ffmpeg refuses such a file as damaged, so the job would only fail
 * later, and a reader that trusted the count would try to allocate it.
 */
export function requireConsistentSampleTables(trak: Box): void {
  const stbl = findPath(trak, ["mdia", "minf", "stbl"]);
  for (const table of stbl?.children ?? []) {
    const needed = tableBytes(table);
    if (needed !== null && needed > table.body.length) throw unreadable(DAMAGED_METADATA);
  }
}

/** The bytes a table's own counts say it holds, or null for a box that is no sample table. */
function tableBytes(table: Box): number | null {
  const { body, type } = table;
  if (!(type in ENTRY_BYTES) && type !== "stsz" && type !== "stz2") return null;
  if (body.length < 8) return Number.POSITIVE_INFINITY;
  const view = dataView(body);
  const entryBytes = ENTRY_BYTES[type];
  if (entryBytes !== undefined) return 8 + view.getUint32(4) * entryBytes;
  if (body.length < 12) return Number.POSITIVE_INFINITY;
  const count = view.getUint32(8);
  // stsz: one size for every sample (no table), or a 4-byte size per sample; stz2: field_size bits each.
  if (type === "stsz") return view.getUint32(4) === 0 ? 12 + count * 4 : 12;
  return 12 + Math.ceil((count * view.getUint8(7)) / 8);
}
