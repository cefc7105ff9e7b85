import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { SignatureV4 } from "@smithy/signature-v4";

/** s3rver's default (and only) key pair. */
export const S3RVER_KEY = "S3RVER";

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)("s3rver") as S3rverClass;

/** AWS's URI encoding (SigV4): RFC 3986 unreserved characters stay, everything else is %XX. */
const uriEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/**
 * Checks a query-presigned SigV4 request the way S3 does (docs.aws.amazon.com, "Authenticating
 * Requests: Using Query Parameters"): rebuilds the canonical request from what actually arrived
 * (method, path, query, every signed header's value) and compares signatures. Written from the
 * spec, not with the SDK's signer, so a mismatch between what was signed and what was sent shows.
 * Expiry is left to s3rver, which checks it.
 */
export function presignedSignatureMatches(
  method: string,
  rawUrl: string,
  headers: IncomingHttpHeaders,
  secretFor: (accessKeyId: string) => string | undefined,
): boolean {
  const [rawPath = "", rawQuery = ""] = rawUrl.split("?", 2);
  const params = rawQuery
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf("=");
      const [key, value] = at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)];
      return [decodeURIComponent(key), decodeURIComponent(value)] as const;
    });
  const query = new Map(params);
  const credential = query.get("X-Amz-Credential")?.split("/") ?? [];
  const [accessKeyId = "", date = "", region = "", service = ""] = credential;
  const secret = secretFor(accessKeyId);
  const provided = query.get("X-Amz-Signature") ?? "";
  const amzDate = query.get("X-Amz-Date") ?? "";
  const signedHeaders = query.get("X-Amz-SignedHeaders") ?? "";
  if (!secret || query.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256" || credential.length !== 5) return false;

  const canonicalUri = rawPath
    .split("/")
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join("/");
  const canonicalQuery = params
    .filter(([key]) => key !== "X-Amz-Signature")
    .map(([key, value]) => `${uriEncode(key)}=${uriEncode(value)}`)
    .sort()
    .join("&");
  const canonicalHeaders = signedHeaders
    .split(";")
    .map((name) => {
      const value = headers[name];
      return `${name}:${(Array.isArray(value) ? value.join(",") : (value ?? "")).trim().replace(/\s+/g, " ")}\n`;
    })
    .join("");
  const canonicalRequest = [
    method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    query.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD",
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
  const expected = Buffer.from(hmac(key, stringToSign).toString("hex"));
  const given = Buffer.from(provided);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Passes a request through to s3rver as it came. */
function forward(port: number, incoming: IncomingMessage, outgoing: ServerResponse): void {
  const upstream = httpRequest(
    { host: "127.0.0.1", port, method: incoming.method, path: incoming.url, headers: incoming.headers },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  upstream.on("error", () => outgoing.destroy());
  incoming.pipe(upstream);
}

/**
 * `If-None-Match: *` on a PUT, which s3rver 3.7.1 ignores, as R2 and S3 document it: the write
 * happens only while the key holds no object, else 412 PreconditionFailed.
 */
async function putIfAbsent(port: number, incoming: IncomingMessage, outgoing: ServerResponse) {
  const objectPath = (incoming.url ?? "").split("?", 1)[0];
  const existing = await fetch(`http://127.0.0.1:${port}${objectPath}`, { method: "HEAD" });
  if (existing.status === 200) {
    incoming.resume();
    outgoing.writeHead(412, { "Content-Type": "application/xml" });
    outgoing.end("<Error><Code>PreconditionFailed</Code></Error>");
    return;
  }
  forward(port, incoming, outgoing);
}

const bytes = (data: string | ArrayBuffer | ArrayBufferView) =>
  typeof data === "string"
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** Node's SHA-256 (an HMAC when given a key), in the shape @smithy/signature-v4 asks for. */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret ? createHmac("sha256", bytes(secret)) : createHash("sha256");
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
  reset() {}
}

/** The query parameters a presigner adds; everything else in the query is part of what is signed. */
const PRESIGN_PARAMS = [
  "X-Amz-Algorithm",
  "X-Amz-Credential",
  "X-Amz-Date",
  "X-Amz-Expires",
  "X-Amz-SignedHeaders",
  "X-Amz-Signature",
];

/**
 * The second, independent verdict on a presigned request: AWS's own SigV4 implementation
 * (@smithy/signature-v4) presigns the request as it arrived (method, path, query, the signed
 * headers' values, the same date and expiry) and the two signatures are compared. The front
 * requires both verdicts to agree, so a fault in either verifier shows instead of deciding a test.
 */
export async function sdkPresignedSignatureMatches(
  method: string,
  rawUrl: string,
  headers: IncomingHttpHeaders,
  secretFor: (accessKeyId: string) => string | undefined,
): Promise<boolean> {
  const url = new URL(rawUrl, `http://${headers.host}`);
  const params = Object.fromEntries(url.searchParams);
  const [accessKeyId = "", , region = "", service = ""] = (params["X-Amz-Credential"] ?? "").split("/");
  const secretAccessKey = secretFor(accessKeyId);
  // X-Amz-Date is ISO 8601's basic form, 20261125T203520Z.
  const iso = (params["X-Amz-Date"] ?? "").replace(
    /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
    "$1-$2-$3T$4:$5:$6Z",
  );
  const signingDate = new Date(iso);
  if (
    !secretAccessKey ||
    Number.isNaN(signingDate.getTime()) ||
    params["X-Amz-Algorithm"] !== "AWS4-HMAC-SHA256"
  )
    return false;
  const signed = (params["X-Amz-SignedHeaders"] ?? "").split(";");
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service,
    sha256: NodeSha256,
    uriEscapePath: false, // S3's paths arrive encoded once and are signed as they are
  });
  const headerValue = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(",") : (value ?? "");
  };
  const presigned = await signer.presign(
    {
      method,
      protocol: "http:",
      hostname: url.hostname,
      path: url.pathname,
      query: Object.fromEntries(Object.entries(params).filter(([key]) => !PRESIGN_PARAMS.includes(key))),
      // The payload hash travels in the query already; as a header it only tells the signer its value.
      headers: {
        ...Object.fromEntries(signed.map((name) => [name, headerValue(name)])),
        "x-amz-content-sha256": params["X-Amz-Content-Sha256"] ?? "UNSIGNED-PAYLOAD",
      },
    },
    {
      signingDate,
      expiresIn: Number(params["X-Amz-Expires"]),
      signableHeaders: new Set(signed),
      unsignableHeaders: new Set(["x-amz-content-sha256"]),
      unhoistableHeaders: new Set(["x-amz-content-sha256"]),
    },
  );
  return (
    presigned.query?.["X-Amz-SignedHeaders"] === params["X-Amz-SignedHeaders"] &&
    presigned.query?.["X-Amz-Signature"] === params["X-Amz-Signature"]
  );
}

export interface S3TestServer {
  /** The checking front: use this as the S3 endpoint. */
  endpoint: string;
  /** s3rver itself, without the signature check in front. */
  s3rverEndpoint: string;
  /** Presigned requests on which the two verifiers disagreed (should stay empty). */
  disagreements: string[];
  close(): Promise<void>;
}

/**
 * s3rver (a real S3-compatible server on disk: stores and serves objects, checks the access key,
 * presigned expiry and required query parameters) on 127.0.0.1, with `bucket` made. s3rver 3.7.1
 * does not verify SigV4 signatures themselves (its code: "Signature version 4 calculation is
 * unimplemented"), so a small front checks them as S3 does, twice (a check written from the
 * specification here, and AWS's own signer), and passes good requests through.
 */
export async function startS3Server(bucket: string): Promise<S3TestServer> {
  const directory = await mkdtemp(path.join(tmpdir(), "adclean-s3rver-"));
  const s3rver = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await s3rver.run();
  const disagreements: string[] = [];
  const secretFor = (id: string) => (id === S3RVER_KEY ? S3RVER_KEY : undefined);
  /** Both verdicts on a presigned request: refused unless both accept it; a split is recorded. */
  const accepted = async (method: string, url: string, headers: IncomingHttpHeaders) => {
    const ours = presignedSignatureMatches(method, url, headers, secretFor);
    const sdk = await sdkPresignedSignatureMatches(method, url, headers, secretFor).catch(() => false);
    if (ours !== sdk) disagreements.push(`${method} ${url}: ours ${ours}, AWS's ${sdk}`);
    return ours && sdk;
  };
  const front: Server = createServer(async (incoming, outgoing) => {
    const presigned = incoming.url?.includes("X-Amz-Signature=");
    incoming.pause(); // the body waits in the socket while the signature is checked
    if (presigned && !(await accepted(incoming.method ?? "", incoming.url ?? "", incoming.headers))) {
      incoming.resume();
      outgoing.writeHead(403, { "Content-Type": "application/xml" });
      outgoing.end("<Error><Code>SignatureDoesNotMatch</Code></Error>");
      return;
    }
    if (incoming.method === "PUT" && incoming.headers["if-none-match"] === "*") {
      void putIfAbsent(port, incoming, outgoing);
      return;
    }
    forward(port, incoming, outgoing);
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    s3rverEndpoint: `http://127.0.0.1:${port}`,
    disagreements,
    async close() {
      await new Promise((resolve) => front.close(resolve));
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
