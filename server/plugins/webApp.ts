import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CLIENT_DIST, WIDGET_DIST } from '../paths.js';

/** A Host header fit to appear in a header value: a name or [IPv6] with an optional port. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The socket origin (ws:// or wss://) of an http(s) origin. */
const socketOrigin = (origin: string): string => origin.replace(/^http/, 'ws');

/**
 * Where the console may connect: its own origin (as the browser reached it, and PUBLIC_URL when
 * a proxy rewrites the Host), over HTTP and WebSocket. Never `ws:`/`wss:` to any host.
 */
export function consoleConnectSources(request: Pick<FastifyRequest, 'protocol' | 'headers'>, publicUrl: string | undefined): string[] {
  const sources = ["'self'"];
  const host = request.headers.host;
  if (host && HOST.test(host)) sources.push(socketOrigin(`${request.protocol}://${host}`));
  if (publicUrl) {
    const origin = new URL(publicUrl).origin;
    sources.push(origin, socketOrigin(origin));
  }
  return [...new Set(sources)];
}

/**
 * The console's Content-Security-Policy: no inline scripts anywhere; styles may be inline (the
 * widget preview's Shadow DOM uses <style>); requests and sockets to this origin only; never framed.
 */
export function consoleCsp(connectSources: string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${connectSources.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves the built console (client/dist) with client-side routing fallback, and the widget
 * loader at /widget.js. Hashed assets are cached for a year; the loader and index.html briefly.
 */
export async function registerWebApp(app: FastifyInstance, dist = { client: CLIENT_DIST, widget: WIDGET_DIST }): Promise<void> {
  if (fs.existsSync(dist.widget)) {
    // The built files carry .br/.gz siblings (widget/precompress.mjs): sent as they are, by
    // Accept-Encoding, never compressed per request.
    const widgetFiles = {
      root: dist.widget,
      preCompressed: true,
      cacheControl: false,
      // Never fetched in ranges; the loader is revalidated by its ETag alone.
      lastModified: false,
      acceptRanges: false,
      setHeaders(res: { setHeader(name: string, value: string): unknown }, filePath: string) {
        const loader = path.basename(filePath).startsWith('widget.js');
        res.setHeader('Cache-Control', loader ? 'public, max-age=300' : 'max-age=31536000, immutable');
      },
    };
    await app.register(async (scope) => {
      // Public files, the same for every host page: `*` rather than the reflected origin and
      // `Vary: Origin` the API's CORS sets (one cached copy per site), varying by encoding only.
      scope.addHook('onSend', async (_request, reply) => {
        reply.header('Access-Control-Allow-Origin', '*').header('Vary', 'Accept-Encoding');
      });
      // Under /widget/ every file is content-hashed and immutable: never revalidated, so no ETag.
      await scope.register(fastifyStatic, { ...widgetFiles, prefix: '/widget/', decorateReply: false, index: false, etag: false });
      // The loader at /widget.js: its own scope, so its sendFile does not clash with the console's.
      await scope.register(async (loader) => {
        await loader.register(fastifyStatic, { ...widgetFiles, serve: false });
        loader.get('/widget.js', { schema: { hide: true } }, (_req, reply) => reply.sendFile('widget.js'));
      });
    });
  }

  const indexHtml = path.join(dist.client, 'index.html');
  if (!fs.existsSync(indexHtml)) return;
  await app.register(async (scope) => {
    // The API's CORS answers every request with Vary: Origin, which replaced the file's Vary:
    // the precompressed files vary by encoding too, or a cache could hand brotli to any client.
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('Vary', 'Origin, Accept-Encoding');
    });
    await scope.register(fastifyStatic, {
      root: dist.client,
      prefix: '/',
      decorateReply: true,
      index: false,
      wildcard: false,
      preCompressed: true,
      setHeaders(res, filePath) {
        const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
        res.setHeader('X-Content-Type-Options', 'nosniff');
      },
    });
  });
  // Any other GET that is not an API, storage or socket path is a console route: send the app shell.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const url = request.url.split('?')[0] ?? '/';
    if (/^\/(api|storage|socket\.io|widget|healthz|readyz|metrics)(\/|$)/.test(url) || url.includes('.')) return;
    return reply
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Content-Security-Policy', consoleCsp(consoleConnectSources(request, app.config.publicUrl)))
      .header('Referrer-Policy', 'strict-origin-when-cross-origin')
      .type('text/html; charset=utf-8')
      .send(await fs.promises.readFile(indexHtml));
  });
}
