import { base64Encode, sha256Hex } from "./crypto";
import { randomToken } from "./ids";

/** Keys look like `sk_live_` + 40 base62 characters (about 238 bits). */
const KEY_PATTERN = /^sk_live_[0-9A-Za-z]{40}$/;
const DISPLAY_PREFIX_LENGTH = 12;

export interface NewApiKey {
  key: string;
  hash: string;
  prefix: string;
}

export async function generateApiKey(): Promise<NewApiKey> {
  const key = `sk_live_${randomToken(40)}`;
  return { key, hash: await sha256Hex(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export function looksLikeApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}

/** Webhook signing secrets: `whsec_` + base64 of 32 random bytes (the Standard Webhooks shape). */
export function generateSigningSecret(): string {
  return `whsec_${base64Encode(crypto.getRandomValues(new Uint8Array(32)))}`;
}
