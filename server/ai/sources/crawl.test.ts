import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlError, crawlSite } from './crawl.js';
import { startTestSite, type TestSite } from './testSite.js';

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
});
