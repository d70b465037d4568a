/**
 * A small website served on 127.0.0.1 for the crawler and ingestion tests (issue 17): a
 * sitemap, robots rules, a redirect loop, a huge page, a binary file, a link to another host,
 * a page found only through links, a noindex page. `hits` counts the requests per path.
 * With `gzip`, the sitemaps are gzipped (.xml.gz): named by robots.txt ('robots') or only found at
 * /sitemap.xml.gz ('guess'); their index also names a gzip bomb (BOMB_BYTES of zeros, packed).
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

export interface TestSite {
  origin: string;
  hits: Map<string, number>;
  /** Replace or add a page (path -> HTML) between crawls. */
  pages: Map<string, string>;
  close(): Promise<void>;
}

export const page = (title: string, body: string, nav = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><header><nav>${nav}</nav></header><main>${body}</main><footer><p>Footer text</p></footer></body></html>`;

export const HUGE_PAGE_BYTES = 300 * 1024;
/** What the gzip bomb of the gzipped site unpacks to (it is about 5 KB packed). */
export const BOMB_BYTES = 5 * 1024 * 1024;
let bomb: Buffer | undefined;

export async function startTestSite(options: { sitemap?: boolean; gzip?: 'robots' | 'guess' } = {}): Promise<TestSite> {
  const hits = new Map<string, number>();
  const pages = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    if (pages.has(path)) return html(pages.get(path)!);
    const gz = (xml: string) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(gzipSync(xml));
    };
    if (options.gzip) {
      switch (path) {
        case '/robots.txt':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(`User-agent: *\nDisallow: /private/\n${options.gzip === 'robots' ? `\nSitemap: ${origin}/sitemap-index.xml.gz\n` : ''}`);
        case '/sitemap-index.xml.gz':
        case '/sitemap.xml.gz':
          if ((path === '/sitemap.xml.gz') !== (options.gzip === 'guess')) break;
          return gz(
            `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/bomb.xml.gz</loc></sitemap><sitemap><loc>${origin}/sitemap-pages.xml.gz</loc></sitemap></sitemapindex>`,
          );
        case '/sitemap-pages.xml.gz':
          return gz(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/hours.html', '/prices.html', '/only-in-sitemap.html'].map((p) => `<url><loc>${origin}${p}</loc></url>`).join('')}</urlset>`);
        case '/bomb.xml.gz':
          bomb ??= gzipSync(Buffer.alloc(BOMB_BYTES, 0x20), { level: 9 });
          res.writeHead(200, { 'content-type': 'application/x-gzip' });
          return res.end(bomb);
      }
      // Only the gzipped sitemaps: /sitemap.xml and the rest answer 404.
      if (path.startsWith('/sitemap') || path === '/bomb.xml.gz') {
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<p>Not found</p>');
      }
    }
    switch (path) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`User-agent: *\nDisallow: /private/\n\nUser-agent: OtherBot\nDisallow: /\n${options.sitemap === false ? '' : `\nSitemap: ${origin}/sitemap.xml\n`}`);
      case '/sitemap.xml':
        if (options.sitemap === false) break;
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(
          `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
        );
      case '/sitemap-pages.xml':
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(
          `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/', '/hours.html', '/prices.html', '/private/staff.html', '/loop-a', '/huge.html', '/download']
            .map((p) => `<url><loc>${origin}${p}</loc></url>`)
            .join('')}</urlset>`,
        );
      case '/':
        return html(
          page(
            'Corner Bakery',
            '<h1>Corner Bakery</h1><p>Fresh bread every morning from 7 am.</p><p><a href="/about.html">About us</a> <a href="/brochure.pdf">Brochure</a> <a href="http://other.example/elsewhere">Partner</a> <a href="/secret.html">Secret</a></p>',
            '<a href="/hours.html">Hours</a><a href="/prices.html">Prices</a>',
          ),
        );
      case '/hours.html':
        return html(page('Opening hours | Corner Bakery', '<h1>Opening hours</h1><p>We open Monday to Saturday from 7 am to 6 pm.</p><h2>Holidays</h2><p>Closed on public holidays.</p>'));
      case '/prices.html':
        return html(page('Prices | Corner Bakery', '<h1>Prices</h1><p>A sourdough loaf costs 4 euros.</p>'));
      case '/only-in-sitemap.html':
        return html(page('Delivery | Corner Bakery', '<h1>Delivery</h1><p>We deliver within 5 km on Saturdays.</p>'));
      case '/about.html':
        return html(page('About | Corner Bakery', '<h1>About us</h1><p>Family run since 1982, with flour from the mill next door.</p>'));
      case '/secret.html':
        return html(page('Secret', '<meta name="robots" content="noindex"><p>Not for search engines.</p>'));
      case '/private/staff.html':
        return html(page('Staff only', '<p>Staff rota.</p>'));
      case '/loop-a':
        res.writeHead(302, { location: '/loop-b' });
        return res.end();
      case '/loop-b':
        res.writeHead(301, { location: `${origin}/loop-a` });
        return res.end();
      case '/huge.html':
        return html(page('Huge page', `<h1>Huge</h1><p>The start of a huge page.</p><p>${'filler words here '.repeat(HUGE_PAGE_BYTES / 18)}</p><p>The very end.</p>`));
      case '/download':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.alloc(4096, 7));
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<p>Not found</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    pages,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
