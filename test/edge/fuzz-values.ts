/** Seeded, deterministic generators of hostile request parts for the /v1 fuzz test. */

export type Random = () => number;

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: Random, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)] as T;

const STRINGS = [
  "",
  " ",
  "a",
  "job_",
  "up_",
  "evt_",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u200b",
  "𝔞𝔡𝔠𝔩𝔢𝔞𝔫",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection payload, meant literally
  "${jndi:ldap://127.0.0.1/x}",
  "__proto__",
  "constructor",
  "video/mp4",
  "http://127.0.0.1:1/x.mp4",
  "http://169.254.169.254/latest/meta-data",
  "http://2130706433/",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "1e309",
  "-0",
  "NaN",
  "Infinity",
  "0x10",
];

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  10,
  900,
  900.0001,
  2_000_000_000,
  2_000_000_001,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  5e-324,
];

/** Any JSON value, biased towards boundaries and the wrong type; `depth` bounds nesting. */
export function jsonValue(random: Random, depth = 3): unknown {
  const roll = random();
  if (roll < 0.25) return pick(random, STRINGS);
  if (roll < 0.45) return pick(random, NUMBERS);
  if (roll < 0.55) return pick(random, [null, true, false]);
  if (roll < 0.6) return "x".repeat(pick(random, [199, 200, 201, 255, 256, 500, 501, 10_000]));
  if (depth <= 0) return null;
  if (roll < 0.75)
    return Array.from({ length: Math.floor(random() * 4) }, () => jsonValue(random, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 4); i > 0; i--)
    object[pick(random, [...STRINGS, "a", "b"])] = jsonValue(random, depth - 1);
  return object;
}

/** An object with the endpoint's own field names (so validation gets past "unknown field"), values hostile. */
export function fieldsObject(random: Random, fields: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) if (random() < 0.7) body[field] = jsonValue(random);
  if (random() < 0.1) body[pick(random, STRINGS)] = jsonValue(random);
  return body;
}

/** A request body as bytes: JSON of `value`, or one of the malformed forms a hostile client sends. */
export function bodyBytes(random: Random, value: unknown): Uint8Array | string {
  const roll = random();
  if (roll < 0.6) return JSON.stringify(value);
  return pick(random, [
    () => new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), // UTF-16LE with BOM
    () => new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), // invalid UTF-8 inside a key
    () => new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(JSON.stringify(value))]), // UTF-8 BOM
    () => "[".repeat(100_000), // nesting no parser should recurse into
    () => `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`, // deep but valid
    () => JSON.stringify({ filename: "x".repeat(3_000_000) }), // 3 MB
    () => "",
    () => "null",
    () => "{",
    () => '{"a":1,"a":2}',
    () => "NaN",
    () => JSON.stringify(value).slice(0, -1),
  ])();
}

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "application/json; charset=iso-8859-1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
];

/** Idempotency-Key values, including ones that try to smuggle a second header or overflow the limit. */
export const IDEMPOTENCY_KEYS = [
  "k",
  "x".repeat(255),
  "x".repeat(256),
  "x".repeat(8_000),
  "a\r\nX-API-Key: sk_live_stolen",
  "a\nSet-Cookie: x=1",
  "a\u0000b",
  "\u00e9\u00ff",
  " spaced ",
  "\t",
  "%0d%0aInjected: 1",
];

/** Path segments for {id}: wrong prefixes, traversal, broken percent-encoding, overlong. */
export const PATH_IDS = [
  "job_doesnotexist",
  "evt_doesnotexist",
  "up_1",
  "..",
  "..%2F..%2Fadmin",
  "%",
  "%E0%A4%A",
  "%FF%FE",
  "%00",
  "%20",
  "job_%F0%9F%92%A9",
  `job_${"a".repeat(5_000)}`,
  "null",
  "0",
];

/** Query values for numbers, enums and cursors. */
export const QUERY_VALUES = [
  "",
  "0",
  "-1",
  "1",
  "1.5",
  "100",
  "101",
  "1e309",
  "NaN",
  "Infinity",
  "0x10",
  " 5",
  "5,5",
  "abc",
  "%FF",
  "%",
  "queued",
  "QUEUED",
  "job_x",
  "x".repeat(5_000),
];
