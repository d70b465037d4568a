import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, testConfig, type TestApp } from '../test/harness.js';
import { buildAccount, call } from '../test/factories.js';
import { registerWebApp } from './webApp.js';

/** Issue 15: text answers compressed by Accept-Encoding; built files sent precompressed as they are. */
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-compress-'));
});
afterAll(async () => {
  await t.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('API JSON', () => {
  it('above 1 KB goes out brotli or gzip by Accept-Encoding with Vary; small answers and clients without them stay plain', async () => {
    const owner = await buildAccount(t.app);
    const url = '/api/openapi.json';
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    // A small answer is not worth compressing.
    const small = await call(t.app, 'GET', '/api/vms/user', { token: owner.token, headers: { 'accept-encoding': 'br' } });
    expect(small.status).toBe(200);
    const raw = await t.app.inject({ method: 'GET', url: '/api/vms/user', headers: { authorization: `Bearer ${owner.token}`, 'accept-encoding': 'br' } });
    expect(raw.headers['content-encoding']).toBeUndefined();
  });
});

describe('built console and widget files', () => {
  it('are sent from their .br/.gz siblings by Accept-Encoding, with Vary, and plain to clients that take neither', async () => {
    const widgetDir = path.join(dir, 'widget');
    const clientDir = path.join(dir, 'client');
    await fs.mkdir(widgetDir, { recursive: true });
    await fs.mkdir(path.join(clientDir, 'assets'), { recursive: true });
    const loader = Buffer.from(`(()=>{${'/* loader */'.repeat(200)}})();`);
    // Marked siblings: the test knows the server sent the file from disk, not compressed it again.
    await fs.writeFile(path.join(widgetDir, 'widget.js'), loader);
    await fs.writeFile(path.join(widgetDir, 'widget.js.br'), brotliCompressSync(Buffer.concat([loader, Buffer.from('//br')])));
    await fs.writeFile(path.join(widgetDir, 'widget.js.gz'), gzipSync(Buffer.concat([loader, Buffer.from('//gz')])));
    await fs.writeFile(path.join(widgetDir, 'ui-abc.js'), loader);
    await fs.writeFile(path.join(widgetDir, 'ui-abc.js.br'), brotliCompressSync(Buffer.concat([loader, Buffer.from('//ui-br')])));
    await fs.writeFile(path.join(clientDir, 'index.html'), '<!doctype html><div id="root"></div>');
    await fs.writeFile(path.join(clientDir, 'assets', 'app-1.js'), loader);
    await fs.writeFile(path.join(clientDir, 'assets', 'app-1.js.gz'), gzipSync(Buffer.concat([loader, Buffer.from('//app-gz')])));

    const app = Fastify();
    app.decorate('config', testConfig(dir));
    await app.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip'], globalDecompression: false });
    // The API's CORS, as app.ts sets it: the request's origin reflected, with Vary: Origin.
    await app.register(cors, () => (_req: unknown, cb: (e: Error | null, o: { origin: boolean }) => void) => cb(null, { origin: true }));
    await registerWebApp(app, { client: clientDir, widget: widgetDir });
    try {
      // The widget's files are fetched from other sites (an Origin header); the console's from its own.
      const get = (url: string, enc?: string) =>
        app.inject({ method: 'GET', url, headers: { ...(url.includes('widget') ? { origin: 'https://shop.example' } : {}), ...(enc ? { 'accept-encoding': enc } : {}) } });
      const br = await get('/widget.js', 'gzip, deflate, br');
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(br.headers['cache-control']).toBe('public, max-age=300');
      // Public files, the same for every site: `*`, varying by encoding only (one cached copy, not one per site).
      expect(br.headers['access-control-allow-origin']).toBe('*');
      expect(br.headers.vary).toBe('Accept-Encoding');
      expect(brotliDecompressSync(br.rawPayload).toString().endsWith('//br')).toBe(true);
      const gz = await get('/widget.js', 'gzip');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString().endsWith('//gz')).toBe(true);
      const plain = await get('/widget.js');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.equals(loader)).toBe(true);

      const ui = await get('/widget/ui-abc.js', 'br');
      expect(ui.headers['content-encoding']).toBe('br');
      expect(ui.headers['cache-control']).toBe('max-age=31536000, immutable');
      expect(ui.headers['access-control-allow-origin']).toBe('*');
      expect(ui.headers.vary).toBe('Accept-Encoding');
      // Hashed and immutable: never revalidated nor fetched in ranges; the loader is revalidated by its ETag.
      for (const name of ['etag', 'last-modified', 'accept-ranges']) expect(ui.headers[name]).toBeUndefined();
      expect(br.headers.etag).toBeTruthy();
      const again = await app.inject({ method: 'GET', url: '/widget.js', headers: { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) } });
      expect(again.statusCode).toBe(304);
      expect(brotliDecompressSync(ui.rawPayload).toString().endsWith('//ui-br')).toBe(true);

      const asset = await get('/assets/app-1.js', 'gzip, br');
      expect(asset.headers['content-encoding']).toBe('gzip'); // only a .gz sibling was built
      expect(asset.headers.vary).toMatch(/accept-encoding/i);
      expect(gunzipSync(asset.rawPayload).toString().endsWith('//app-gz')).toBe(true);
    } finally {
      await app.close();
    }
  });
});
