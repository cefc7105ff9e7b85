import { DAMAGED_STRUCTURE, TOO_DEEP, TOO_MANY_BOXES, unreadable } from "./probe-error";

/** Size field value meaning "this box carries a 64-bit largesize after its type". */
const LARGESIZE_MARKER = 1;
/** Size field value meaning "this box runs to the end of its container". */
const TO_END_MARKER = 0;
const TWO_POW_32 = 0x1_0000_0000;

/** Boxes whose payload is nothing but child boxes: the only ones the moov walk descends into. */
const CONTAINER_TYPES = new Set(["moov", "trak", "mdia", "minf", "stbl", "mvex", "edts", "dinf", "tref"]);

export interface BoxHeader {
  type: string;
  headerSize: number;
  /** Total size including the header; null when the box runs to the end of its container. */
  size: number | null;
}

/** A box read from memory: its payload, and its children when it is a container. */
export interface Box {
  type: string;
  body: Uint8Array;
  children: Box[];
}

/** Counts boxes and nesting across a whole probe, so a hostile file is refused before it costs much. */
export class BoxBudget {
  private boxesSeen = 0;

  constructor(
    private readonly maxBoxes: number,
    private readonly maxDepth: number,
  ) {}

  countBox(): void {
    this.boxesSeen += 1;
    if (this.boxesSeen > this.maxBoxes) throw unreadable(TOO_MANY_BOXES);
  }

  checkDepth(depth: number): void {
    if (depth > this.maxDepth) throw unreadable(TOO_DEEP);
  }
}

export function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function fourcc(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

export function isPrintableFourcc(bytes: Uint8Array, offset: number): boolean {
  const code = bytes.subarray(offset, offset + 4);
  return code.length === 4 && code.every((byte) => byte >= 0x20 && byte <= 0x7e);
}

/** An unsigned 64-bit big-endian value, or null when a JavaScript number cannot hold it exactly. */
export function safeUint64(view: DataView, offset: number): number | null {
  const value = view.getUint32(offset) * TWO_POW_32 + view.getUint32(offset + 4);
  return value > Number.MAX_SAFE_INTEGER ? null : value;
}

/** Decodes the header at `offset`; `bytes` must hold it whole (8 bytes, 16 with a largesize). */
export function decodeBoxHeader(bytes: Uint8Array, offset: number): BoxHeader {
  if (bytes.length - offset < 8) throw unreadable(DAMAGED_STRUCTURE);
  const view = dataView(bytes);
  const sizeField = view.getUint32(offset);
  const type = fourcc(bytes, offset + 4);
  if (sizeField === TO_END_MARKER) return { type, headerSize: 8, size: null };
  if (sizeField !== LARGESIZE_MARKER) return { type, headerSize: 8, size: sizeField };
  const largesize = bytes.length - offset >= 16 ? safeUint64(view, offset + 8) : null;
  if (largesize === null) throw unreadable(DAMAGED_STRUCTURE);
  return { type, headerSize: 16, size: largesize };
}

/**
 * The box's total size, given where it starts and where its container ends. Every size returned is at
 * least the header size, so a walk over boxes always advances.
 */
export function resolveBoxSize(header: BoxHeader, start: number, containerEnd: number): number {
  const size = header.size ?? containerEnd - start;
  if (size < header.headerSize || start + size > containerEnd) throw unreadable(DAMAGED_STRUCTURE);
  return size;
}

/** Parses `bytes` as a run of sibling boxes, descending into containers down to the budget's depth. */
export function parseBoxes(bytes: Uint8Array, depth: number, budget: BoxBudget): Box[] {
  budget.checkDepth(depth);
  const boxes: Box[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    budget.countBox();
    const header = decodeBoxHeader(bytes, offset);
    const size = resolveBoxSize(header, offset, bytes.length);
    boxes.push(parseBox(header, bytes.subarray(offset + header.headerSize, offset + size), depth, budget));
    offset += size;
  }
  return boxes;
}

function parseBox(header: BoxHeader, body: Uint8Array, depth: number, budget: BoxBudget): Box {
  const children = CONTAINER_TYPES.has(header.type) ? parseBoxes(body, depth + 1, budget) : [];
  return { type: header.type, body, children };
}

export function findChild(box: Box, type: string): Box | undefined {
  return box.children.find((child) => child.type === type);
}

export function findPath(box: Box, types: string[]): Box | undefined {
  let current: Box | undefined = box;
  for (const type of types) current = current && findChild(current, type);
  return current;
}
