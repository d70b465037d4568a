import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one way the server calls a URL someone else chose (webhooks, the assistant's crawler):
 * a guard against server-side request forgery.
 * - the host is resolved once and every address is classified (ipaddr.js); the connection goes
 *   to an address that passed, through the socket's own lookup, so a second DNS answer cannot
 *   swap in a private address (no DNS rebinding);
 * - private, loopback, unique-local and carrier-grade NAT addresses are refused unless the
 *   operator allows them (OUTBOUND_ALLOW_PRIVATE=true); link-local (cloud metadata),
 *   multicast, broadcast, unspecified and reserved ranges are refused always;
 * - IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 it carries;
 * - redirects are followed only when asked, each hop through the same checks;
 * - one deadline covers connect, headers and body; the body is capped.
 */

export interface OutboundPolicy {
  /** Let private, loopback, unique-local and CGNAT addresses through (operator setting; tests). */
  allowPrivate: boolean;
}

/** Ranges the operator may open with OUTBOUND_ALLOW_PRIVATE. */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

export type OutboundRefusal = 'scheme' | 'address' | 'dns' | 'redirect';

export class OutboundError extends Error {
  constructor(
    message: string,
    /** 'refused': the guard said no; 'timeout', 'too_large', 'network': the call failed. */
    readonly kind: 'refused' | 'timeout' | 'too_large' | 'network',
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** The ipaddr.js range name of an address, IPv4-mapped IPv6 judged as its IPv4. Throws on a non-address. */
export function addressRange(address: string): string {
  const parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  return parsed.range();
}

/** True when a connection to this literal address is allowed under the policy. */
export function isAllowedAddress(address: string, policy: OutboundPolicy): boolean {
  let range: string;
  try {
    range = addressRange(address);
  } catch {
    return false;
  }
  if (range === 'unicast') return true;
  return policy.allowPrivate && PRIVATE_RANGES.has(range);
}

/**
 * Checks a URL before any connection: http(s) only, no credentials in it, and a literal IP host
 * must be allowed (a name is checked when it resolves). Returns the parsed URL or a reason.
 */
export function checkUrl(raw: string, policy: OutboundPolicy, schemes: readonly string[] = ['http:', 'https:']): URL | { refused: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refused: 'The URL is not valid.' };
  }
  if (!schemes.includes(url.protocol)) return { refused: `The URL must start with ${schemes.map((s) => `${s}//`).join(' or ')}.` };
  if (url.username || url.password) return { refused: 'The URL must not contain a user name or password.' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) {
    if (!isAllowedAddress(host, policy)) return { refused: 'The URL points to a private or reserved address.' };
  } else if (host === '' || host === 'localhost' || host.endsWith('.localhost')) {
    if (!policy.allowPrivate) return { refused: 'The URL points to a private or reserved address.' };
  }
  return url;
}

/**
 * Resolves a host name and keeps only allowed addresses; the socket connects to the first of
 * them. When every address is refused the lookup fails with a refusal.
 */
function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family as number | undefined }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const pinned = addresses.find((a) => isAllowedAddress(a.address, policy));
      if (!pinned) {
        const refusal = Object.assign(new Error(`${hostname} resolves only to private or reserved addresses`), { code: 'EPARLEYREFUSED' });
        return callback(refusal, '', 4);
      }
      // Pinned: the socket connects to this checked address, never to a second resolution.
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [pinned]);
      callback(null, pinned.address, pinned.family);
    });
  };
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole call, connect to last byte. Default 10 s. */
  timeoutMs?: number;
  /** Body cap in bytes. Default 1 MiB. */
  maxBytes?: number;
  /** Past the cap: fail (default) or keep the first maxBytes (a webhook receiver's long answer). */
  truncate?: boolean;
  /** Redirects to follow (each hop checked again). Default 0: a 3xx is returned as is. */
  maxRedirects?: number;
  /** Accepted schemes. Default http and https. */
  schemes?: readonly string[];
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

/** Sends one request through the guard. Throws OutboundError when refused or failed. */
export async function outboundRequest(rawUrl: string, policy: OutboundPolicy, req: OutboundRequest = {}): Promise<OutboundResponse> {
  const deadline = Date.now() + (req.timeoutMs ?? 10_000);
  let current = rawUrl;
  let method = (req.method ?? 'GET').toUpperCase();
  let body = req.body;
  for (let hop = 0; ; hop++) {
    const checked = checkUrl(current, policy, req.schemes);
    if (!(checked instanceof URL)) throw new OutboundError(hop === 0 ? checked.refused : `Redirect refused: ${checked.refused}`, 'refused');
    const res = await once(checked, policy, { ...req, method, body }, deadline);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location && hop < (req.maxRedirects ?? 0)) {
      current = new URL(location, checked).toString();
      // 303 (and the browsers' habit for 301/302 on POST): the next hop is a GET without a body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return res;
  }
}

function once(url: URL, policy: OutboundPolicy, req: OutboundRequest, deadline: number): Promise<OutboundResponse> {
  const maxBytes = req.maxBytes ?? 1024 * 1024;
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new OutboundError('The request timed out.', 'timeout'));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (e: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(e);
    };
    const headers: Record<string, string> = { 'user-agent': 'Parley', ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const request = client.request(url, {
      method: req.method,
      headers,
      lookup: guardedLookup(policy),
      // A fresh socket per call: a kept-alive socket would skip the lookup above.
      agent: false,
    });
    const timer = setTimeout(() => fail(new OutboundError('The request timed out.', 'timeout')), remaining);
    request.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPARLEYREFUSED') fail(new OutboundError('The URL points to a private or reserved address.', 'refused'));
      else fail(new OutboundError(`The request failed: ${e.code ?? e.message}`, 'network'));
    });
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.toString() });
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (size + chunk.length > maxBytes) {
          if (!req.truncate) return fail(new OutboundError(`The response is larger than ${maxBytes} bytes.`, 'too_large'));
          chunks.push(chunk.subarray(0, maxBytes - size));
          size = maxBytes;
          finish();
          request.destroy();
          return;
        }
        size += chunk.length;
        chunks.push(chunk);
      });
      res.on('end', finish);
      res.on('error', () => fail(new OutboundError('The response was cut off.', 'network')));
    });
    request.end(req.body);
  });
}
