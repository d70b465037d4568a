/**
 * The website crawler of the assistant's sources (issue 17). From the URL the owner gave, it
 * reads the site within its own host (the same host name, with or without "www.", http or https):
 * - robots.txt is read first and obeyed for the user agent "ParleyBot" (else "*"), its
 *   Crawl-delay too (at most 10 s); a robots.txt that answers 5xx or cannot be reached stops the
 *   crawl (RFC 9309: the site is taken as disallowed), a 4xx one allows everything;
 * - sitemap.xml (the robots.txt Sitemap lines, else /sitemap.xml, else /sitemap.xml.gz; sitemap
 *   indexes followed; gzipped sitemaps inflated up to 50 MB, the protocol's cap, so a gzip bomb
 *   is cut off) gives the first pages, then links are followed breadth-first;
 * - a page budget, a size cap per page (a longer page is cut and says so), text/html only,
 *   redirects followed by hand (each hop on the host, allowed by robots.txt, and a loop stopped),
 *   two requests at a time with a polite delay, and one deadline for the whole crawl;
 * - every request goes through the SSRF guard (services/outbound.ts).
 * It returns the pages read (parsed) and every URL it left out with the reason.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type robotsParserModule from 'robots-parser';
import { type OutboundPolicy, OutboundError, outboundRequest } from '../../services/outbound.js';
import { htmlToDocument, type SourceDocument } from './extract.js';

export const CRAWLER_USER_AGENT = 'ParleyBot';

/**
 * The XML and robots.txt parsers, loaded at the first crawl, not at start. robots-parser is
 * CommonJS (module.exports = fn) while its types declare a default export.
 */
async function parsers() {
  const [{ XMLParser }, robotsModule] = await Promise.all([import('fast-xml-parser'), import('robots-parser')]);
  const loaded = robotsModule as unknown as { default?: unknown };
  const robotsParser = ((loaded.default as { default?: unknown } | undefined)?.default ?? loaded.default ?? loaded) as unknown as typeof robotsParserModule.default;
  return { XMLParser, robotsParser };
}

export interface CrawlOptions {
  policy: OutboundPolicy;
  /** Pages read at most (default 200). */
  maxPages?: number;
  /** Bytes read of one page (default 2 MiB): a longer page is cut there. */
  maxPageBytes?: number;
  /** Requests in flight at once (default 2). */
  concurrency?: number;
  /** Pause of each worker between two requests (default 250 ms; robots.txt Crawl-delay may raise it). */
  delayMs?: number;
  /** The whole crawl (default 10 minutes). */
  deadlineMs?: number;
  /** One request (default 15 s). */
  requestTimeoutMs?: number;
  /** Redirect hops followed for one URL (default 5). */
  maxRedirects?: number;
  /** One sitemap unpacked (default 50 MB, the sitemap protocol's cap). */
  maxSitemapBytes?: number;
}

export interface CrawledPage {
  /** The URL that answered (after redirects). */
  url: string;
  document: SourceDocument;
  /** Longer than maxPageBytes: only its beginning was read. */
  truncated: boolean;
}

export type SkipReason =
  | 'robots' // robots.txt disallows it
  | 'off_host' // another host (a link or a redirect)
  | 'not_html' // a file, an image, a binary
  | 'http_error' // status other than 200
  | 'redirect_loop'
  | 'too_many_redirects'
  | 'failed' // network error, timeout, refused by the SSRF guard
  | 'noindex' // <meta name="robots" content="noindex">
  | 'duplicate'; // the same text as a page already read

export interface SkippedUrl {
  url: string;
  reason: SkipReason;
  /** Human readable detail: the disallowed path, the status, the content type... */
  detail: string;
}

export interface CrawlResult {
  pages: CrawledPage[];
  skipped: SkippedUrl[];
  /** URLs found but not read because the page budget or the deadline ran out. */
  notRead: number;
  deadlineReached: boolean;
  /** The sitemap URLs read (empty when the site has none). */
  sitemaps: string[];
}

/** A crawl that cannot start: the URL is refused, robots.txt forbids the site or cannot be read. */
export class CrawlError extends Error {}

const BINARY_EXTENSION =
  /\.(pdf|docx?|xlsx?|pptx?|odt|zip|gz|tgz|rar|7z|tar|exe|dmg|msi|apk|iso|bin|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|wav|ogg|webm|mov|avi|mkv|woff2?|ttf|otf|eot|css|js|json|xml|rss|atom|csv|txt)$/i;

/** The sitemap protocol's cap on one sitemap, unpacked (sitemaps.org): a gzipped one inflating past it is refused. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
const inflate = promisify(gunzip);

/** A sitemap's XML: gzip bytes (a .xml.gz file, whatever its content type) inflated, at most `maxBytes` of them. */
export async function sitemapText(body: Buffer, maxBytes = MAX_SITEMAP_BYTES): Promise<string> {
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) return (await inflate(body, { maxOutputLength: maxBytes })).toString('utf8');
  return body.toString('utf8');
}

const bareHost = (host: string) => host.toLowerCase().replace(/^www\./, '');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Decodes a body by the charset its content type names (UTF-8 by default). */
function decode(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Crawls the site of startUrl. Throws CrawlError when the crawl cannot start. */
export async function crawlSite(startUrl: string, options: CrawlOptions): Promise<CrawlResult> {
  const maxPages = options.maxPages ?? 200;
  const maxPageBytes = options.maxPageBytes ?? 2 * 1024 * 1024;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const maxRedirects = options.maxRedirects ?? 5;
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const deadline = Date.now() + (options.deadlineMs ?? 10 * 60_000);
  const policy = options.policy;

  let start: URL;
  try {
    start = new URL(startUrl);
  } catch {
    throw new CrawlError('The website address is not a valid URL.');
  }
  start.hash = '';
  const host = bareHost(start.hostname);
  const port = start.port;
  const onHost = (u: URL) => (u.protocol === 'http:' || u.protocol === 'https:') && bareHost(u.hostname) === host && u.port === port;
  const headers = { 'user-agent': `${CRAWLER_USER_AGENT}/1.0 (+Parley assistant)`, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' };
  const timeLeft = () => deadline - Date.now();
  const get = (url: string, extra: { maxBytes?: number; maxRedirects?: number } = {}) =>
    outboundRequest(url, policy, {
      headers,
      timeoutMs: Math.max(1, Math.min(requestTimeoutMs, timeLeft())),
      maxBytes: extra.maxBytes ?? maxPageBytes,
      truncate: true,
      maxRedirects: extra.maxRedirects ?? 0,
    });

  // robots.txt
  const robotsUrl = new URL('/robots.txt', start).toString();
  let robotsText = '';
  try {
    const res = await get(robotsUrl, { maxBytes: 512 * 1024, maxRedirects: 5 });
    if (res.status >= 500) throw new CrawlError(`The site's robots.txt answered ${res.status}: crawling is put off until it answers.`);
    if (res.status === 200) robotsText = res.body.toString('utf8');
  } catch (e) {
    if (e instanceof CrawlError) throw e;
    if (e instanceof OutboundError && e.kind === 'refused') throw new CrawlError(e.message);
    throw new CrawlError(`The site could not be reached (${(e as Error).message})`);
  }
  const { XMLParser, robotsParser } = await parsers();
  const robots = robotsParser(robotsUrl, robotsText);
  const allowed = (u: string) => robots.isAllowed(u, CRAWLER_USER_AGENT) !== false;
  const crawlDelay = Math.min(10, Number(robots.getCrawlDelay(CRAWLER_USER_AGENT) ?? 0) || 0) * 1000;
  const delayMs = Math.max(options.delayMs ?? 250, crawlDelay);
  if (!allowed(start.toString())) throw new CrawlError(`The site's robots.txt does not allow crawling ${start.pathname}.`);

  const skipped: SkippedUrl[] = [];
  const skippedSet = new Set<string>();
  const skip = (url: string, reason: SkipReason, detail: string) => {
    if (skippedSet.has(url)) return;
    skippedSet.add(url);
    skipped.push({ url, reason, detail });
  };

  // The queue: every URL once, in discovery order.
  const seen = new Set<string>();
  const queue: string[] = [];
  const maxQueue = maxPages * 20;
  const enqueue = (raw: string) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return;
    }
    u.hash = '';
    const key = u.toString();
    if (seen.has(key)) return;
    seen.add(key);
    if (!onHost(u)) return skip(key, 'off_host', u.host);
    if (!allowed(key)) return skip(key, 'robots', u.pathname);
    if (BINARY_EXTENSION.test(u.pathname)) return skip(key, 'not_html', u.pathname.slice(u.pathname.lastIndexOf('.')));
    if (queue.length < maxQueue) queue.push(key);
  };
  enqueue(start.toString());

  // Sitemaps: those robots.txt names (on this host), else /sitemap.xml; indexes followed.
  const sitemaps: string[] = [];
  const xml = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, processEntities: true });
  const sitemapQueue = robots.getSitemaps().filter((s) => {
    try {
      return onHost(new URL(s));
    } catch {
      return false;
    }
  });
  // No Sitemap line: /sitemap.xml, else (when that is missing) the gzipped /sitemap.xml.gz.
  const guessed = !sitemapQueue.length;
  if (guessed) sitemapQueue.push(new URL('/sitemap.xml', start).toString());
  const sitemapSeen = new Set<string>();
  const maxSitemapBytes = options.maxSitemapBytes ?? MAX_SITEMAP_BYTES;
  while (sitemapQueue.length && sitemapSeen.size < 20 && timeLeft() > 0) {
    const sm = sitemapQueue.shift()!;
    if (sitemapSeen.has(sm)) continue;
    sitemapSeen.add(sm);
    try {
      const res = await get(sm, { maxBytes: 10 * 1024 * 1024, maxRedirects: 3 });
      if (res.status !== 200) {
        if (guessed && sitemapSeen.size === 1) sitemapQueue.push(new URL('/sitemap.xml.gz', start).toString());
        continue;
      }
      let text: string;
      try {
        text = await sitemapText(res.body, maxSitemapBytes);
      } catch (e) {
        const tooBig = (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError;
        const cap = maxSitemapBytes >= 1024 * 1024 ? `${Math.round(maxSitemapBytes / 1024 / 1024)} MB` : `${Math.round(maxSitemapBytes / 1024)} KB`;
        skip(sm, 'failed', tooBig ? `the sitemap unpacks to more than ${cap}` : 'the gzipped sitemap is damaged');
        continue;
      }
      const parsed = xml.parse(text) as Record<string, unknown>;
      const list = (v: unknown): { loc?: unknown }[] => (Array.isArray(v) ? v : v ? [v] : []) as { loc?: unknown }[];
      const urlset = parsed.urlset as { url?: unknown } | undefined;
      const index = parsed.sitemapindex as { sitemap?: unknown } | undefined;
      if (!urlset && !index) continue;
      sitemaps.push(sm);
      for (const entry of list(urlset?.url)) if (typeof entry.loc === 'string') enqueue(entry.loc.trim());
      for (const entry of list(index?.sitemap)) {
        if (typeof entry.loc !== 'string') continue;
        try {
          if (onHost(new URL(entry.loc.trim()))) sitemapQueue.push(entry.loc.trim());
        } catch {
          /* not a URL */
        }
      }
    } catch {
      /* no sitemap: links are followed */
    }
  }

  const pages: CrawledPage[] = [];
  const texts = new Set<string>();
  let inFlight = 0;
  let deadlineReached = false;

  /** Reads one URL, following its redirects by hand; returns the page or records the skip. */
  const visit = async (url: string) => {
    const chain = new Set<string>([url]);
    let current = url;
    for (let hop = 0; ; hop++) {
      let res: Awaited<ReturnType<typeof get>>;
      try {
        res = await get(current);
      } catch (e) {
        if (timeLeft() <= 0) deadlineReached = true;
        return skip(url, 'failed', (e as Error).message);
      }
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return skip(url, 'http_error', `redirect to an invalid address (${res.status})`);
        }
        next.hash = '';
        const nextKey = next.toString();
        if (chain.has(nextKey)) return skip(url, 'redirect_loop', `${new URL(url).pathname} redirects in a loop`);
        if (hop >= maxRedirects) return skip(url, 'too_many_redirects', `more than ${maxRedirects} redirects`);
        if (!onHost(next)) return skip(url, 'off_host', `redirects to ${next.host}`);
        if (!allowed(nextKey)) return skip(url, 'robots', next.pathname);
        // A redirect to a page queued or read already is that page: nothing more to do here.
        if (seen.has(nextKey) && nextKey !== url) return;
        seen.add(nextKey);
        chain.add(nextKey);
        current = nextKey;
        continue;
      }
      if (res.status !== 200) return skip(url, 'http_error', `status ${res.status}`);
      const type = String(res.headers['content-type'] ?? '');
      if (!/^\s*(text\/html|application\/xhtml\+xml)\b/i.test(type)) return skip(url, 'not_html', type.split(';')[0]!.trim() || 'no content type');
      const document = htmlToDocument(decode(res.body, type), current);
      if (!document.nofollow) for (const link of document.links) enqueue(link);
      if (document.noindex) return skip(url, 'noindex', 'the page asks not to be indexed');
      const text = document.sections.map((s) => s.text).join('\n');
      if (text && texts.has(text)) return skip(url, 'duplicate', 'the same text as another page');
      texts.add(text);
      if (pages.length < maxPages) pages.push({ url: current, document, truncated: res.body.length >= maxPageBytes });
      return;
    }
  };

  const worker = async (n: number) => {
    let first = true;
    while (true) {
      if (timeLeft() <= 0) {
        if (queue.length) deadlineReached = true;
        return;
      }
      if (pages.length + inFlight >= maxPages) return;
      const url = queue.shift();
      if (!url) {
        // Another worker's page may still add links.
        if (!inFlight) return;
        await sleep(20);
        continue;
      }
      if (!first || n > 0) await sleep(delayMs);
      first = false;
      inFlight++;
      try {
        await visit(url);
      } finally {
        inFlight--;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, n) => worker(n)));
  return { pages, skipped, notRead: queue.length, deadlineReached, sitemaps };
}
