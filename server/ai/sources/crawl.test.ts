import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { CrawlError, MAX_SITEMAP_BYTES, crawlSite, sitemapText } from './crawl.js';
import { BOMB_BYTES, startTestSite, type TestSite } from './testSite.js';

// Issue 17: the crawler reads the owner's site within its host, as robots.txt and the sitemap say,
// through the SSRF guard; tests serve the site on 127.0.0.1 (allowed the way the guard's own tests do).
const policy = { allowPrivate: true };
const fast = { policy, delayMs: 0, maxPageBytes: 64 * 1024 };

describe('crawlSite', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(() => site.close());

  it('reads the sitemap pages and the linked ones, and says why it left the others out', async () => {
    const result = await crawlSite(`${site.origin}/`, fast);
    const urls = result.pages.map((p) => new URL(p.url).pathname).sort();
    expect(urls).toEqual(['/', '/about.html', '/hours.html', '/huge.html', '/prices.html']);
    expect(result.sitemaps).toEqual([`${site.origin}/sitemap.xml`, `${site.origin}/sitemap-pages.xml`]);
    const why = Object.fromEntries(result.skipped.map((s) => [s.url.replace(site.origin, ''), `${s.reason}: ${s.detail}`]));
    expect(why).toEqual({
      '/private/staff.html': 'robots: /private/staff.html',
      '/loop-a': 'redirect_loop: /loop-a redirects in a loop',
      '/download': 'not_html: application/octet-stream',
      '/brochure.pdf': 'not_html: .pdf',
      'http://other.example/elsewhere': 'off_host: other.example',
      '/secret.html': 'noindex: the page asks not to be indexed',
    });
    // robots.txt was obeyed before any request: the disallowed page was never asked for.
    expect(site.hits.get('/private/staff.html')).toBeUndefined();
    expect(site.hits.get('/brochure.pdf')).toBeUndefined();
    // The huge page is cut at the cap, its beginning kept.
    const huge = result.pages.find((p) => p.url.endsWith('/huge.html'))!;
    expect(huge.truncated).toBe(true);
    expect(huge.document.sections[0]!.text).toContain('The start of a huge page.');
    expect(huge.document.sections.map((s) => s.text).join(' ')).not.toContain('The very end.');
    const hours = result.pages.find((p) => p.url.endsWith('/hours.html'))!;
    expect(hours.truncated).toBe(false);
    expect(hours.document.title).toBe('Opening hours | Corner Bakery');
    expect(hours.document.sections.map((s) => s.heading)).toEqual(['Opening hours', 'Holidays']);
    expect(result.notRead).toBe(0);
  });

  it('keeps to the page budget and reports what it did not read', async () => {
    const result = await crawlSite(`${site.origin}/`, { ...fast, maxPages: 2 });
    expect(result.pages).toHaveLength(2);
    expect(result.notRead).toBeGreaterThan(0);
  });

  it('follows links breadth-first when the site has no sitemap', async () => {
    const bare = await startTestSite({ sitemap: false });
    try {
      const result = await crawlSite(`${bare.origin}/`, fast);
      expect(result.sitemaps).toEqual([]);
      expect(result.pages.map((p) => new URL(p.url).pathname)).toEqual(['/', '/hours.html', '/prices.html', '/about.html']);
    } finally {
      await bare.close();
    }
  });

  it('stops at the deadline', async () => {
    const result = await crawlSite(`${site.origin}/`, { ...fast, delayMs: 200, deadlineMs: 300 });
    expect(result.deadlineReached).toBe(true);
    expect(result.pages.length).toBeLessThan(5);
  });

  it('goes through the SSRF guard: a private address is refused unless the operator allows it', async () => {
    await expect(crawlSite(`${site.origin}/`, { policy: { allowPrivate: false } })).rejects.toThrow(new CrawlError('The URL points to a private or reserved address.'));
  });

  it('does not crawl a site whose robots.txt forbids it or cannot be read', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(503);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>hi</p>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(crawlSite(`${origin}/`, fast)).rejects.toThrow(/robots\.txt answered 503/);
    } finally {
      server.close();
    }
    const blocked = await startTestSite();
    blocked.pages.set('/robots.txt', 'User-agent: ParleyBot\nDisallow: /\n');
    try {
      await expect(crawlSite(`${blocked.origin}/`, fast)).rejects.toThrow("The site's robots.txt does not allow crawling /.");
    } finally {
      await blocked.close();
    }
  });

  it('reads gzipped sitemaps named by robots.txt and gzipped index entries; a gzip bomb is cut off and reported', async () => {
    const gz = await startTestSite({ gzip: 'robots' });
    try {
      const cap = 1024 * 1024;
      expect(BOMB_BYTES).toBeGreaterThan(cap);
      const result = await crawlSite(`${gz.origin}/`, { ...fast, maxSitemapBytes: cap });
      expect(result.sitemaps).toEqual([`${gz.origin}/sitemap-index.xml.gz`, `${gz.origin}/sitemap-pages.xml.gz`]);
      // A page linked from nowhere, found only in the gzipped sitemap, was read.
      const delivery = result.pages.find((p) => p.url.endsWith('/only-in-sitemap.html'));
      expect(delivery?.document.title).toBe('Delivery | Corner Bakery');
      expect(result.pages.map((p) => new URL(p.url).pathname)).toEqual(expect.arrayContaining(['/', '/hours.html', '/prices.html', '/about.html']));
      expect(result.skipped).toContainEqual({ url: `${gz.origin}/bomb.xml.gz`, reason: 'failed', detail: 'the sitemap unpacks to more than 1 MB' });
    } finally {
      await gz.close();
    }
  });

  it('tries /sitemap.xml.gz when the site has no /sitemap.xml and robots.txt names none', async () => {
    const gz = await startTestSite({ gzip: 'guess' });
    try {
      const result = await crawlSite(`${gz.origin}/`, fast);
      expect(result.sitemaps).toEqual([`${gz.origin}/sitemap.xml.gz`, `${gz.origin}/sitemap-pages.xml.gz`]);
      expect(gz.hits.get('/sitemap.xml')).toBe(1);
      expect(result.pages.some((p) => p.url.endsWith('/only-in-sitemap.html'))).toBe(true);
      // Under the default 50 MB cap the 5 MB bomb unpacks (it is only spaces: no sitemap in it).
      expect(result.skipped.find((s) => s.url.endsWith('/bomb.xml.gz'))).toBeUndefined();
    } finally {
      await gz.close();
    }
  });

  it('unpacks gzip bytes whatever the name, up to the cap; plain XML passes through; a damaged file throws', async () => {
    const xml = '<urlset><url><loc>https://shop.example.com/</loc></url></urlset>';
    expect(await sitemapText(gzipSync(xml))).toBe(xml);
    expect(await sitemapText(Buffer.from(xml))).toBe(xml);
    expect(MAX_SITEMAP_BYTES).toBe(50 * 1024 * 1024);
    await expect(sitemapText(gzipSync(Buffer.alloc(2048, 0x20)), 1024)).rejects.toThrow();
    await expect(sitemapText(gzipSync(xml).subarray(0, 20))).rejects.toThrow();
  });
});
