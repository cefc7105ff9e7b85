/**
 * Address policy for customer-supplied URLs (video_url, webhook URLs): which hosts the service may contact,
 * and a fetch that follows redirects by hand so that every hop is checked again.
 * Web-standard APIs only (URL, fetch, Response): it runs in the Worker and in Node.
 */

export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "unspecified"
  | "multicast"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "unique_local"
  | "broadcast";

interface Prefix {
  readonly network: bigint;
  readonly prefixLength: number;
}

interface Range extends Prefix {
  readonly kind: AddressKind;
}

const IPV4_BITS = 32;
const IPV6_BITS = 128;
const LOW_32_BITS = 0xffffffffn;

/** Parses "a.b.c.d" in canonical dotted-decimal form (no leading zeros, which some parsers read as octal). */
function parseIPv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

/** Parses the colon-separated 16-bit groups of one side of "::"; a dotted IPv4 may end the address. */
function parseIPv6Groups(text: string, mayEndWithIPv4: boolean): number[] | null {
  if (text === "") return [];
  const pieces = text.split(":");
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (mayEndWithIPv4 && index === pieces.length - 1 && piece.includes(".")) {
      const ipv4 = parseIPv4(piece);
      if (ipv4 === null) return null;
      groups.push(Number(ipv4 >> 16n), Number(ipv4 & 0xffffn));
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}

/** Parses an IPv6 address (with "::" compression and an optional trailing dotted IPv4) to 128 bits. */
function parseIPv6(text: string): bigint | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const head = parseIPv6Groups(halves[0] ?? "", !compressed);
  const tail = compressed ? parseIPv6Groups(halves[1] ?? "", true) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

function parsePrefix(cidr: string, parse: (text: string) => bigint | null): Prefix {
  const [address = "", length = ""] = cidr.split("/");
  const network = parse(address);
  if (network === null) throw new Error(`Bad range in the address table: ${cidr}`);
  return { network, prefixLength: Number(length) };
}

function parseRanges(table: [string, AddressKind][], parse: (text: string) => bigint | null): Range[] {
  return table.map(([cidr, kind]) => ({ ...parsePrefix(cidr, parse), kind }));
}

function inPrefix(value: bigint, bits: number, prefix: Prefix): boolean {
  const hostBits = BigInt(bits - prefix.prefixLength);
  return value >> hostBits === prefix.network >> hostBits;
}

// First match wins: narrower ranges come before the wider ones that contain them.
const IPV4_RANGES = parseRanges(
  [
    ["0.0.0.0/8", "unspecified"],
    ["10.0.0.0/8", "private"],
    ["100.64.0.0/10", "cgnat"],
    ["127.0.0.0/8", "loopback"],
    ["169.254.0.0/16", "link_local"],
    ["172.16.0.0/12", "private"],
    ["192.0.0.0/24", "reserved"],
    ["192.0.2.0/24", "documentation"],
    ["192.88.99.0/24", "reserved"], // deprecated 6to4 relay anycast
    ["192.168.0.0/16", "private"],
    ["198.18.0.0/15", "benchmarking"],
    ["198.51.100.0/24", "documentation"],
    ["203.0.113.0/24", "documentation"],
    ["224.0.0.0/4", "multicast"],
    ["255.255.255.255/32", "broadcast"],
    ["240.0.0.0/4", "reserved"],
  ],
  parseIPv4,
);

// Addresses outside every range here are "reserved": only 2000::/3 is handed out as global unicast.
const IPV6_RANGES = parseRanges(
  [
    ["::/128", "unspecified"],
    ["::1/128", "loopback"],
    ["64:ff9b:1::/48", "reserved"], // local-use NAT64, its own network's translator
    ["100::/64", "reserved"], // discard-only
    ["2001:2::/48", "benchmarking"],
    ["2001::/23", "reserved"], // IETF protocol assignments, Teredo among them
    ["2001:db8::/32", "documentation"],
    ["2002::/16", "reserved"], // 6to4 tunnels to an embedded IPv4; deprecated
    ["3fff::/20", "documentation"],
    ["2000::/3", "public"],
    ["fc00::/7", "unique_local"],
    ["fe80::/10", "link_local"],
    ["ff00::/8", "multicast"],
  ],
  parseIPv6,
);

// IPv4-mapped, NAT64 and IPv4-compatible addresses carry an IPv4 address in their low 32 bits.
const IPV4_CARRIERS = ["::ffff:0:0/96", "64:ff9b::/96", "::/96"].map((cidr) => parsePrefix(cidr, parseIPv6));

function matchRange(value: bigint, bits: number, ranges: Range[]): AddressKind | undefined {
  return ranges.find((range) => inPrefix(value, bits, range))?.kind;
}

function classifyIPv4(value: bigint): AddressKind {
  return matchRange(value, IPV4_BITS, IPV4_RANGES) ?? "public";
}

function embeddedIPv4(value: bigint): bigint | null {
  // :: and ::1 lie in ::/96 but are IPv6's own unspecified and loopback addresses.
  if (value <= 1n) return null;
  const carried = IPV4_CARRIERS.some((prefix) => inPrefix(value, IPV6_BITS, prefix));
  return carried ? value & LOW_32_BITS : null;
}

function classifyIPv6(value: bigint): AddressKind {
  const ipv4 = embeddedIPv4(value);
  if (ipv4 !== null) return classifyIPv4(ipv4);
  return matchRange(value, IPV6_BITS, IPV6_RANGES) ?? "reserved";
}

/** Splits "fe80::1%eth0" into address and zone; a zone must be non-empty. */
function withoutZone(text: string): string | null {
  const [address = "", zone, ...rest] = text.split("%");
  if (zone === undefined) return address;
  return /^[\w.-]+$/.test(zone) && rest.length === 0 ? address : null;
}

/**
 * Kind of an IPv4 or IPv6 address given as text (IPv6 with or without brackets, optionally with a zone such as
 * %eth0; IPv4-mapped / NAT64 / IPv4-compatible IPv6 are judged by their embedded IPv4).
 * Returns null if the text is not an IP address. IPv4 must be canonical dotted decimal, as the URL parser
 * and DNS answers write it: "0177.0.0.1" or "127.1" are not addresses here.
 */
export function classifyAddress(address: string): AddressKind | null {
  const bracketed = address.startsWith("[") && address.endsWith("]");
  const unbracketed = bracketed ? address.slice(1, -1) : address;
  const ipv4 = bracketed ? null : parseIPv4(unbracketed);
  if (ipv4 !== null) return classifyIPv4(ipv4);
  const ipv6Text = withoutZone(unbracketed);
  const ipv6 = ipv6Text === null ? null : parseIPv6(ipv6Text);
  return ipv6 === null ? null : classifyIPv6(ipv6);
}

export interface UrlPolicy {
  /** Local mode (wrangler dev, tests): only loopback hosts are allowed. Production: only public addresses. */
  local: boolean;
  /** Resolves a DNS name to its A/AAAA addresses (production only). Default: DNS-over-HTTPS JSON API of cloudflare-dns.com via fetch. */
  resolve?: (hostname: string) => Promise<string[]>;
}

export class UrlNotAllowedError extends Error {
  override readonly name = "UrlNotAllowedError";
}

const MAX_URL_LENGTH = 2048;
const ALLOWED_PROTOCOLS = new Set(["http:", "https:"]);
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };
// Production reaches customers' servers only on the web ports: 80 and 443 plus the usual alternates 8080 and
// 8443. Any other port (22, 25, 6379...) would let a URL probe services that are not web servers.
const PRODUCTION_PORTS = new Set([80, 443, 8080, 8443]);
// Names that never lead to a customer's public server: RFC 6761 / 6762 / 8375 special-use names and the
// .internal names of cloud metadata services (metadata.google.internal).
const INTERNAL_NAME_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"];

const MESSAGES = {
  tooLong: `This URL is longer than ${MAX_URL_LENGTH} characters.`,
  invalid: "This is not a valid URL.",
  protocol: "Only http and https URLs are allowed.",
  credentials: "URLs with a username or password are not allowed.",
  noHost: "This URL has no host name.",
  port: "Only ports 80, 443, 8080 and 8443 are allowed.",
  privateAddress: "This URL points to a private or reserved address.",
  localOnly: "In local mode only loopback URLs (localhost, 127.0.0.0/8, ::1) are allowed.",
  internalName: "This URL points to an internal host name.",
  unresolved: "This URL's host name does not resolve to any address.",
  noLocation: "A redirect answer had no Location header.",
  badLocation: "A redirect pointed to an invalid URL.",
} as const;

function parseHttpUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) throw new UrlNotAllowedError(MESSAGES.tooLong);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowedError(MESSAGES.invalid);
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) throw new UrlNotAllowedError(MESSAGES.protocol);
  if (url.username !== "" || url.password !== "") throw new UrlNotAllowedError(MESSAGES.credentials);
  if (url.hostname === "") throw new UrlNotAllowedError(MESSAGES.noHost);
  return url;
}

function checkProductionPort(url: URL): void {
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (port === undefined || !PRODUCTION_PORTS.has(port)) throw new UrlNotAllowedError(MESSAGES.port);
}

function checkAddressKind(kind: AddressKind, local: boolean): void {
  if (kind === (local ? "loopback" : "public")) return;
  throw new UrlNotAllowedError(kind === "public" ? MESSAGES.localOnly : MESSAGES.privateAddress);
}

/**
 * Checks an address a name resolved to, at the moment of connecting (the GPU worker's lookup hook):
 * public only in production, loopback only in local mode.
 */
export function checkResolvedAddress(address: string, local: boolean): void {
  const kind = classifyAddress(address);
  if (kind === null) throw new UrlNotAllowedError(MESSAGES.privateAddress);
  checkAddressKind(kind, local);
}

function isLocalhostName(name: string): boolean {
  return name === "localhost" || name.endsWith(".localhost");
}

function isInternalName(name: string): boolean {
  const singleLabel = !name.includes(".");
  return (
    singleLabel || INTERNAL_NAME_SUFFIXES.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix))
  );
}

const DOH_ENDPOINT = "https://cloudflare-dns.com/dns-query";
const DNS_RECORD_TYPES = { A: 1, AAAA: 28 } as const;
const DNS_NOERROR = 0;

interface DohAnswer {
  type: number;
  data: string;
}

interface DohResponse {
  Status: number;
  Answer?: DohAnswer[];
}

/**
 * One DNS-over-HTTPS JSON query. A DNS failure (NXDOMAIN, SERVFAIL...) yields no addresses, which refuses
 * the URL; an unreachable DoH service throws a plain Error, as it is the service's fault, not the customer's.
 */
async function queryDoh(hostname: string, type: keyof typeof DNS_RECORD_TYPES): Promise<string[]> {
  const query = new URL(DOH_ENDPOINT);
  query.searchParams.set("name", hostname);
  query.searchParams.set("type", type);
  const response = await fetch(query.href, { headers: { accept: "application/dns-json" } });
  if (!response.ok) throw new Error(`DNS-over-HTTPS lookup failed with HTTP status ${response.status}.`);
  const answer = (await response.json()) as DohResponse;
  if (answer.Status !== DNS_NOERROR) return [];
  // CNAME records of the chain are skipped: the A/AAAA records at its end are what a fetch would reach.
  return (answer.Answer ?? []).filter((record) => record.type === DNS_RECORD_TYPES[type]).map((r) => r.data);
}

async function resolveWithDoh(hostname: string): Promise<string[]> {
  const [ipv4, ipv6] = await Promise.all([queryDoh(hostname, "A"), queryDoh(hostname, "AAAA")]);
  return [...ipv4, ...ipv6];
}

/**
 * Production check of a DNS name. In the Worker, fetch resolves the name again itself and workerd offers
 * no lookup hook, so a DNS server that answers differently the second time (rebinding) is not caught
 * there (README, Security review). The GPU worker closes that gap: its connections resolve through a
 * lookup that checks each address again (gpu-worker/pinned-fetch.ts).
 */
async function checkPublicName(
  name: string,
  resolve: (hostname: string) => Promise<string[]>,
): Promise<void> {
  if (isInternalName(name)) throw new UrlNotAllowedError(MESSAGES.internalName);
  const addresses = await resolve(name);
  if (addresses.length === 0) throw new UrlNotAllowedError(MESSAGES.unresolved);
  if (!addresses.every((address) => classifyAddress(address) === "public")) {
    throw new UrlNotAllowedError(MESSAGES.privateAddress);
  }
}

async function checkHost(hostname: string, policy: UrlPolicy): Promise<void> {
  const kind = classifyAddress(hostname);
  if (kind !== null) return checkAddressKind(kind, policy.local);
  const name = hostname.replace(/\.+$/, ""); // "example.com." is the same name as "example.com"
  if (!policy.local) return checkPublicName(name, policy.resolve ?? resolveWithDoh);
  if (!isLocalhostName(name)) throw new UrlNotAllowedError(MESSAGES.localOnly);
}

/** Parses and checks one URL; returns the normalised URL or throws UrlNotAllowedError. */
export async function checkUrl(raw: string, policy: UrlPolicy): Promise<URL> {
  const url = parseHttpUrl(raw);
  if (!policy.local) checkProductionPort(url);
  await checkHost(url.hostname, policy);
  return url;
}

export interface SafeFetchOptions extends UrlPolicy {
  maxRedirects?: number; // default 5
  fetch?: typeof fetch; // default globalThis.fetch; tests inject
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw new UrlNotAllowedError(MESSAGES.badLocation);
  }
}

/** As in the fetch standard: a 303, or a 301/302 answering a POST, is followed by a GET without body. */
function switchesToGet(method: string, status: number): boolean {
  if (status === 303) return method !== "GET" && method !== "HEAD";
  return (status === 301 || status === 302) && method === "POST";
}

/** The request for the next hop: maybe a bodiless GET, and credentials are not carried to another origin. */
function nextHopInit(init: RequestInit, status: number, from: URL, to: URL): RequestInit {
  const headers = new Headers(init.headers);
  const method = (init.method ?? "GET").toUpperCase();
  const toGet = switchesToGet(method, status);
  const dropped = [...(toGet ? BODY_HEADERS : []), ...(from.origin === to.origin ? [] : CREDENTIAL_HEADERS)];
  for (const name of dropped) headers.delete(name);
  return toGet ? { ...init, method: "GET", body: null, headers } : { ...init, headers };
}

/**
 * fetch() that checks the URL, follows redirects by hand (redirect: "manual"), re-checking every hop; a 3xx
 * without Location, or more than maxRedirects hops, throws UrlNotAllowedError. Returns the final non-redirect
 * Response. For a POST whose answer is a redirect (webhooks) callers pass maxRedirects: 0: then a redirect
 * answer is returned as is, not followed. A 307/308 sends init.body again, so callers that follow redirects
 * with a body must give one that can be read twice (a string or buffer, not a stream).
 */
export async function safeFetch(
  raw: string,
  init: RequestInit,
  options: SafeFetchOptions,
): Promise<Response> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const send = options.fetch ?? globalThis.fetch;
  let url = await checkUrl(raw, options);
  let hopInit: RequestInit = { ...init, redirect: "manual" };
  for (let redirects = 0; ; redirects++) {
    const response = await send(url.href, hopInit);
    if (!REDIRECT_STATUSES.has(response.status) || maxRedirects === 0) return response;
    await response.body?.cancel(); // frees the connection; a redirect's body is never read
    const location = response.headers.get("location");
    if (location === null) throw new UrlNotAllowedError(MESSAGES.noLocation);
    if (redirects >= maxRedirects)
      throw new UrlNotAllowedError(`Too many redirects (more than ${maxRedirects}).`);
    const next = await checkUrl(resolveLocation(location, url), options);
    hopInit = nextHopInit(hopInit, response.status, url, next);
    url = next;
  }
}
