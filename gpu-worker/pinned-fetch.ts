import { lookup as systemLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { checkResolvedAddress, type SafeFetchOptions, UrlNotAllowedError } from "../shared-lib/url-policy";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to its addresses (the system resolver by default; tests pass a stub). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/**
 * A `lookup` for node:http(s) that resolves the name when the connection is made and refuses it
 * when any answer is outside the policy, so the socket can only reach an address just checked: a
 * DNS server that answers a public address to the URL check and 169.254.169.254 to the connection
 * gets nowhere.
 */
export function checkedLookup(local: boolean, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((answers) => {
        if (answers.length === 0)
          throw new UrlNotAllowedError("This URL's host name does not resolve to any address.");
        for (const answer of answers) checkResolvedAddress(answer.address, local);
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = answers.filter((answer) => family === 0 || answer.family === family);
        const [first] = usable;
        if (!first) throw new UrlNotAllowedError(`No IPv${family} address for this URL's host name.`);
        if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      })
      .catch((error: Error) => callback(error, "", 0));
  };
}

/** Statuses whose answer has no body (fetch standard). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function headersOf(incoming: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, one);
  }
  return headers;
}

/**
 * fetch() for bodiless requests (GET, HEAD) over node:http(s) whose connections resolve through
 * `checkedLookup`. Redirects are returned as they are, for safeFetch to check and follow.
 */
export function pinnedFetch(local: boolean, resolve: Resolver = systemResolver): typeof fetch {
  const lookup = checkedLookup(local, resolve);
  return (input, init = {}) => {
    if (init.body !== undefined && init.body !== null) throw new Error("pinnedFetch sends no request body");
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init.method ?? "GET";
    const client = url.protocol === "https:" ? https : http;
    return new Promise<Response>((resolveResponse, reject) => {
      const request = client.request(
        url,
        {
          method,
          headers: Object.fromEntries(new Headers(init.headers)),
          lookup,
          // A connection of its own each time: a pooled socket would skip the lookup.
          agent: false,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (incoming) => {
          const status = incoming.statusCode ?? 502;
          const bodiless = NULL_BODY_STATUSES.has(status) || method === "HEAD";
          if (bodiless) incoming.resume();
          const body = bodiless ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
          resolveResponse(
            new Response(body, {
              status,
              statusText: incoming.statusMessage ?? "",
              headers: headersOf(incoming),
            }),
          );
        },
      );
      request.on("error", reject);
      request.end();
    });
  };
}

/**
 * The worker's address policy for a source URL: the URL check and every connection resolve with
 * the same resolver, and each connection checks the addresses it got again.
 */
export function sourceUrlPolicy(local: boolean, resolve: Resolver = systemResolver): SafeFetchOptions {
  return {
    local,
    resolve: async (hostname) => (await resolve(hostname)).map((answer) => answer.address),
    fetch: pinnedFetch(local, resolve),
  };
}
