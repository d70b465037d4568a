import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { CLIENT_DIST, WIDGET_DIST } from '../paths.js';

/**
 * The console's Content-Security-Policy: no inline scripts anywhere; styles may be inline (the
 * widget preview's Shadow DOM uses <style>); sockets to this origin; never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the built console (client/dist) with client-side routing fallback, and the widget
 * loader at /widget.js. Hashed assets are cached for a year; the loader and index.html briefly.
 */
export async function registerWebApp(app: FastifyInstance): Promise<void> {
  if (fs.existsSync(WIDGET_DIST)) {
    await app.register(fastifyStatic, {
      root: WIDGET_DIST,
      prefix: '/widget/',
      decorateReply: false,
      index: false,
      setHeaders(res) {
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.setHeader('Access-Control-Allow-Origin', '*');
      },
    });
    const loader = path.join(WIDGET_DIST, 'widget.js');
    app.get('/widget.js', { schema: { hide: true } }, async (_req, reply) => {
      const body = await fs.promises.readFile(loader);
      return reply
        .header('Content-Type', 'text/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=300')
        .header('Access-Control-Allow-Origin', '*')
        .send(body);
    });
  }

  const indexHtml = path.join(CLIENT_DIST, 'index.html');
  if (!fs.existsSync(indexHtml)) return;
  await app.register(fastifyStatic, {
    root: CLIENT_DIST,
    prefix: '/',
    decorateReply: true,
    index: false,
    wildcard: false,
    setHeaders(res, filePath) {
      const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
      res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('X-Content-Type-Options', 'nosniff');
    },
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
      .header('Content-Security-Policy', CONSOLE_CSP)
      .header('Referrer-Policy', 'strict-origin-when-cross-origin')
      .type('text/html; charset=utf-8')
      .send(await fs.promises.readFile(indexHtml));
  });
}
