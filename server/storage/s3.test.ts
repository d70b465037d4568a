import { eq } from 'drizzle-orm';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiPassages, aiSources, messages, storedFiles } from '../db/schema.js';
import { buildVisitor, multipart } from '../test/chatFactories.js';
import { bearer, buildAccount } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { freePort } from '../test/sockets.js';
import { LocalBackend, S3Backend, type StorageBackend, parseStorageUrl } from './backend.js';
import { sweepAccount } from './cleanup.js';
import { thumbnailPathOf } from './paths.js';

/**
 * Uploads on shared storage (issue 15, PRODUCT.md section 11): one storage interface, the local
 * folder by default and an S3-compatible bucket with STORAGE_URL, here a real S3 wire-protocol
 * server (s3rver) on 127.0.0.1 driven by the AWS SDK.
 */

let s3: S3rver;
let s3Dir: string;
let storageUrl: string;
let t: TestApp;

beforeAll(async () => {
  s3Dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-s3-'));
  const port = await freePort();
  s3 = new S3rver({ port, address: '127.0.0.1', directory: s3Dir, silent: true, configureBuckets: [{ name: 'parley-files', configs: [] }] });
  await s3.run();
  // s3rver's fixed test credentials, as an operator's AWS_* variables would be.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  storageUrl = `s3://parley-files/uploads?endpoint=http://127.0.0.1:${port}&region=us-east-1`;
  t = await createTestApp({ STORAGE_URL: storageUrl });
});

afterAll(async () => {
  await t?.close();
  await s3?.close();
  await fs.rm(s3Dir, { recursive: true, force: true });
});

function png(w: number, h: number): Buffer {
  const img = new PNG({ width: w, height: h });
  for (let i = 0; i < img.data.length; i += 4) img.data.set([(i / 4) % 256, Math.floor(i / 4 / w) % 256, 128, 255], i);
  return PNG.sync.write(img);
}

const collect = async (it: AsyncIterable<{ rel: string; size: number }>) => {
  const out: { rel: string; size: number }[] = [];
  for await (const f of it) out.push(f);
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
};

describe('the storage interface, on the local folder and on S3', () => {
  const backends: [string, () => Promise<StorageBackend>][] = [
    ['local', async () => new LocalBackend(await fs.mkdtemp(path.join(os.tmpdir(), 'parley-local-')))],
    ['s3', async () => new S3Backend(parseStorageUrl(storageUrl.replace('/uploads?', '/contract?')))],
  ];
  for (const [name, open] of backends) {
    it(`${name}: saves, reads, streams, sizes, copies, lists, deletes one file and a whole account`, async () => {
      const files = await open();
      const bytes = Buffer.from('hello storage');
      expect(await files.size('acc-1/missing.txt')).toBeUndefined();
      expect(await files.read('acc-1/missing.txt')).toBeUndefined();
      await files.put('acc-1/a.txt', bytes, 'text/plain');
      await files.put('acc-2/b.txt', Buffer.from('other account'));
      await files.copy('acc-1/a.txt', 'acc-1/a-t.txt');
      expect(await files.read('acc-1/a.txt')).toEqual(bytes);
      expect(await files.size('acc-1/a-t.txt')).toBe(bytes.length);
      const opened = await files.open('acc-1/a.txt');
      expect(opened?.size).toBe(bytes.length);
      const chunks: Buffer[] = [];
      for await (const c of opened!.body) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('hello storage');
      expect(await collect(files.list('acc-1/'))).toEqual([
        { rel: 'acc-1/a-t.txt', size: 13 },
        { rel: 'acc-1/a.txt', size: 13 },
      ]);
      await files.delete('acc-1/a-t.txt');
      await files.delete('acc-1/never-there.txt'); // a missing file is fine
      expect(await files.size('acc-1/a-t.txt')).toBeUndefined();
      await files.deletePrefix('acc-1/');
      expect(await collect(files.list('acc-1/'))).toEqual([]);
      expect(await collect(files.list())).toEqual([{ rel: 'acc-2/b.txt', size: 13 }]);
    });
  }

  it('refuses paths that leave their folder', async () => {
    const local = new LocalBackend(await fs.mkdtemp(path.join(os.tmpdir(), 'parley-local-')));
    await expect(local.put('../escape.txt', Buffer.from('x'))).rejects.toThrow(/outside/);
    await expect(new S3Backend(parseStorageUrl(storageUrl)).put('a/../../b.txt', Buffer.from('x'))).rejects.toThrow(/not allowed/);
  });

  it('reads STORAGE_URL: bucket, key prefix, endpoint (path-style), region', () => {
    expect(parseStorageUrl('s3://files/parley?endpoint=http://127.0.0.1:9000&region=eu-west-3')).toEqual({
      bucket: 'files',
      prefix: 'parley/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-3',
      forcePathStyle: true,
    });
    expect(parseStorageUrl('s3://files?region=us-east-1')).toMatchObject({ bucket: 'files', prefix: '', endpoint: undefined, forcePathStyle: false });
  });
});

describe('STORAGE_URL=s3://...: uploads, thumbnails, downloads and cleanup in the bucket', () => {
  it('stores a widget image and its thumbnail in the bucket, serves them from /storage/, and the sweep and account removal delete them there', async () => {
    const owner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const image = png(900, 600);
    const { payload, headers } = multipart({}, { field: 'image', filename: 'photo.png', contentType: 'image/png', bytes: image });
    const res = await t.app.inject({ method: 'POST', url: '/api/widget/messages', payload, headers: { ...headers, ...bearer(visitor.token) } });
    expect(res.statusCode).toBe(201);
    const [stored] = await t.app.db.select({ filePath: messages.filePath }).from(messages).where(eq(messages.accountId, accountId));
    const rel = stored!.filePath!;
    expect(rel.startsWith(`${accountId}/`)).toBe(true);

    // In the bucket under the URL's prefix, not on the local folder.
    const bucket = new S3Backend(parseStorageUrl(storageUrl));
    const inBucket = await collect(bucket.list(`${accountId}/`));
    expect(inBucket.map((f) => f.rel).sort()).toEqual([rel, thumbnailPathOf(rel)].sort());
    expect(inBucket.find((f) => f.rel === rel)?.size).toBe(image.length);
    await expect(fs.stat(path.join(t.app.storage.root, accountId))).rejects.toThrow();

    // Downloads: the same bytes and headers as from the local folder.
    const got = await t.app.inject({ method: 'GET', url: `/storage/${rel}` });
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(image)).toBe(true);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers['content-disposition']).toBe('inline');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    const thumb = await t.app.inject({ method: 'GET', url: `/storage/${thumbnailPathOf(rel)}` });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/png');
    expect(thumb.rawPayload.length).toBeLessThan(image.length); // a bounded thumbnail, not a copy
    expect((await t.app.inject({ method: 'GET', url: `/storage/${accountId}/nothing.png` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/storage/${accountId}/..%2F..%2Fetc.png` })).statusCode).toBe(404);
    expect(await t.app.storage.read(rel)).toEqual(image);

    // An upload nothing refers to is swept from the bucket; the message's file stays.
    const abandoned = await t.app.storage.save(accountId, png(50, 50), 'png');
    const later = new Date(Date.now() + t.config.uploads.abandonedAfterMs + 60_000);
    const swept = await sweepAccount(t.app.db, t.app.storage.root, accountId, t.config.uploads.abandonedAfterMs, later);
    expect(swept.removed).toEqual([abandoned]);
    expect((await collect(bucket.list(`${accountId}/`))).map((f) => f.rel).sort()).toEqual([rel, thumbnailPathOf(rel)].sort());
    expect((await t.app.db.select().from(storedFiles).where(eq(storedFiles.accountId, accountId))).map((f) => f.path)).toEqual([rel]);

    // A deleted account's files go with it.
    await t.app.storage.removeAccount(accountId);
    expect(await collect(bucket.list(`${accountId}/`))).toEqual([]);
  });
});

describe('STORAGE_URL=s3://...: knowledge sources', () => {
  it("an FAQ uploaded for the assistant is kept in the bucket and read from there by the source's refresh", async () => {
    const owner = await buildAccount(t.app);
    const csv = Buffer.from('question,answer\nDo you repair bikes?,Yes: bring it in any weekday before noon.\n');
    const { payload, headers } = multipart({}, { field: 'file', filename: 'faq.csv', contentType: 'text/csv', bytes: csv });
    const res = await t.app.inject({ method: 'POST', url: '/api/chatbot/sources/upload', payload, headers: { ...headers, ...bearer(owner.token) } });
    expect(res.statusCode).toBe(201);
    const id = res.json().data.id as string;
    const [source] = await t.app.db.select().from(aiSources).where(eq(aiSources.id, id));
    const bucket = new S3Backend(parseStorageUrl(storageUrl));
    expect(await bucket.read(source!.filePath!)).toEqual(csv);
    await expect(fs.stat(path.join(t.app.storage.root, source!.filePath!))).rejects.toThrow();

    const until = Date.now() + 20_000;
    let status = source!.status;
    while (status !== 'ready' && status !== 'failed' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      [{ status }] = (await t.app.db.select({ status: aiSources.status }).from(aiSources).where(eq(aiSources.id, id))) as [{ status: typeof status }];
    }
    expect(status).toBe('ready');
    const passages = await t.app.db.select().from(aiPassages).where(eq(aiPassages.sourceId, id));
    expect(passages.map((p) => [p.question, p.text])).toEqual([['Do you repair bikes?', 'Yes: bring it in any weekday before noon.']]);
  });
});
