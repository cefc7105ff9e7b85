import { sha256Hex } from "./crypto";

/** JSON with object keys sorted at every level, so equal bodies give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint an Idempotency-Key is bound to: the endpoint and the canonical body. */
export function requestFingerprint(endpoint: string, body: unknown): Promise<string> {
  return sha256Hex(`${endpoint}\n${canonicalJson(body)}`);
}
