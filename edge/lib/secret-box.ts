import { base64Decode, base64Encode } from "./crypto";

/**
 * Seals secrets that must stay readable (webhook signing secrets) with AES-256-GCM under DATA_KEY,
 * so a copy of the database alone does not reveal them. Format: base64(iv || ciphertext).
 */
async function importKey(dataKey: string): Promise<CryptoKey> {
  const raw = base64Decode(dataKey);
  if (raw.length !== 32) throw new Error("DATA_KEY must be 32 bytes of base64");
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function seal(dataKey: string, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await importKey(dataKey);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return base64Encode(out);
}

export async function open(dataKey: string, box: string): Promise<string> {
  const bytes = base64Decode(box);
  const key = await importKey(dataKey);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12) },
    key,
    bytes.slice(12),
  );
  return new TextDecoder().decode(plain);
}
