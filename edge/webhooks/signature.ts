/**
 * Webhook signatures (spec, Events): header `Service-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`,
 * where each <hex> is the lowercase hex HMAC-SHA256 of `<unix>.<raw body>` keyed with a signing
 * secret (the whole `whsec_…` string as UTF-8). Web Crypto only, so the same code signs in the
 * Worker and verifies in a receiver's Node or browser code.
 */
export const SIGNATURE_HEADER = "Service-Signature";
/** Receivers refuse signatures older or newer than this (seconds). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The header value for a body: one v1 per secret (two during a rotation's overlap). */
export async function signatureHeader(secrets: string[], body: string, timestamp: number): Promise<string> {
  const signatures = await Promise.all(secrets.map((secret) => hmacHex(secret, `${timestamp}.${body}`)));
  return [`t=${timestamp}`, ...signatures.map((hex) => `v1=${hex}`)].join(",");
}

/** Equal-length strings compared without an early exit, so timing says nothing about where they differ. */
function timingSafeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export interface VerifyOptions {
  /** The raw request body, exactly as received (not re-serialised JSON). */
  payload: string;
  /** The Service-Signature header. */
  header: string | null | undefined;
  /** The signing secret, or several while a rotation is in progress. */
  secret: string | string[];
  toleranceSeconds?: number;
  /** Unix seconds; defaults to now. */
  now?: number;
}

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/**
 * Checks a delivery before its body is trusted: the timestamp is within the tolerance and at least
 * one v1 signature matches one of the secrets. Throws WebhookVerificationError otherwise.
 */
export async function verifyWebhook(options: VerifyOptions): Promise<void> {
  const parts = (options.header ?? "").split(",").map((part) => part.trim());
  const timestamp = Number(parts.find((part) => part.startsWith("t="))?.slice(2));
  const candidates = parts.filter((part) => part.startsWith("v1=")).map((part) => part.slice(3));
  if (!Number.isInteger(timestamp) || candidates.length === 0) {
    throw new WebhookVerificationError("The Service-Signature header is missing or malformed.");
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError("The signature's timestamp is outside the tolerance.");
  }
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  for (const secret of secrets) {
    const expected = await hmacHex(secret, `${timestamp}.${options.payload}`);
    // Check every candidate, so the time taken does not depend on which one matches.
    const matches = candidates.map((candidate) => timingSafeEqualText(candidate, expected));
    if (matches.includes(true)) return;
  }
  throw new WebhookVerificationError("No signature matches the signing secret.");
}
