import { z } from "zod";
import { base64Decode, base64Encode } from "../lib/crypto";

/** Dashboard passwords: at least 12 characters (no other composition rules). */
export const NewPassword = z.string().min(12, "password must be at least 12 characters").max(1024);

/**
 * PBKDF2-SHA256 through WebCrypto. workerd refuses more than 100,000 iterations (its cap on
 * PBKDF2), so that is the count; the iteration count is stored with each hash so it can change.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  return crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, HASH_BITS);
}

/** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`, with a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${base64Encode(salt)}$${base64Encode(new Uint8Array(hash))}`;
}

/** Stands in for a missing owner's hash, so an unknown address costs the same time as a wrong password. */
export const DUMMY_PASSWORD_HASH = `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${"A".repeat(24)}$${"A".repeat(44)}`;

/** Recomputes the hash with the stored salt and count; compares in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || !iterations || !salt || !hash) return false;
  const expected = base64Decode(hash);
  const actual = new Uint8Array(await derive(password, base64Decode(salt), Number(iterations)));
  return actual.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(actual, expected);
}
