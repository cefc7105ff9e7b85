const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random base62 text from a CSPRNG; rejection sampling keeps every character equally likely. */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export type IdKind = "job" | "up" | "evt" | "req" | "ws" | "key" | "dlv" | "own";

/** A resource id: kind prefix, underscore, 24 opaque characters (about 143 bits). */
export function newId(kind: IdKind): string {
  return `${kind}_${randomToken(24)}`;
}
