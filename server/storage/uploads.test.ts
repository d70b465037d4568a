import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { imageSize } from 'image-size';
import jpeg from 'jpeg-js';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_QUOTA_REACHED } from '@parley/shared';
import { conversations, messages, plans, storedFiles, subscriptions } from '../db/schema.js';
import { jobs } from '../db/tables/jobs.js';
import { buildVisitor, multipart, type FilePart } from '../test/chatFactories.js';
import { bearer, buildAccount, buildMember, call, insertVisitorWithConversation, type TestOwner } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { ADOPTED_MARKER, recordExistingFiles } from './adopt.js';
import { sweepAccount } from './cleanup.js';
import { THUMBNAIL_MAX_SIDE } from './images.js';
import { GifReader, GifWriter } from 'omggif';
import { encodeWebpRgba } from './webp.js';
import { thumbnailPathOf } from './paths.js';

/**
 * Issue 11 finding 4, "Anyone can fill the disk": upload budgets per visitor and per account,
 * the plan's storage quota, the cleanup of files nothing refers to, the pixel limit read from
 * the image header and the bounded thumbnail the console shows.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    UPLOADS_PER_VISITOR_HOUR: '3',
    UPLOAD_MB_PER_VISITOR_HOUR: '1',
    UPLOADS_PER_ACCOUNT_HOUR: '5',
    IMAGE_MAX_MEGAPIXELS: '40',
    IMAGE_MAX_SIDE: '12000',
  });
});
afterAll(() => t.close());

/** A PNG of `w` x `h` pixels; `noise` makes it incompressible (about w*h*4 bytes). */
function png(w: number, h: number, noise = false): Buffer {
  const img = new PNG({ width: w, height: h });
  for (let i = 0; i < img.data.length; i += 4) {
    const p = i / 4;
    img.data[i] = noise ? Math.floor(Math.random() * 256) : p % 256;
    img.data[i + 1] = noise ? Math.floor(Math.random() * 256) : Math.floor(p / w) % 256;
    img.data[i + 2] = noise ? Math.floor(Math.random() * 256) : 128;
    img.data[i + 3] = 255;
  }
  return PNG.sync.write(img);
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A tiny PNG whose IHDR claims w x h pixels (a "pixel bomb": drawing it needs w*h*4 bytes). */
function pixelBomb(w: number, h: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const idat = zlib.deflateSync(Buffer.alloc(1024));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

const CONTENT_TYPES = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const;
const part = (bytes: Buffer, ext: keyof typeof CONTENT_TYPES = 'png'): FilePart => ({
  field: 'image',
  filename: `photo.${ext}`,
  contentType: CONTENT_TYPES[ext],
  bytes,
});

/** An animated GIF of `w` x `h` pixels: two frames of stripes in a 4-colour palette, one transparent. */
function gif(w: number, h: number): Buffer {
  const out = Buffer.alloc(w * h * 3 + 4096);
  const writer = new GifWriter(out, w, h, { palette: [0xff0000, 0x00ff00, 0x0000ff, 0xffffff], loop: 0 });
  for (let f = 0; f < 2; f++) {
    const indices = Array.from({ length: w * h }, (_, p) => (Math.floor((p % w) / 40) + f) % 4);
    writer.addFrame(0, 0, w, h, indices, { delay: 10, transparent: 3 });
  }
  return out.subarray(0, writer.end());
}

async function upload(app: FastifyInstance, url: string, token: string, file: FilePart, fields: Record<string, string> = {}) {
  const { payload, headers } = multipart(fields, file);
  const res = await app.inject({ method: 'POST', url, payload, headers: { ...headers, ...bearer(token) } });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

const widgetUpload = (token: string, file: FilePart) => upload(t.app, '/api/widget/messages', token, file);

/** Files on disk under the account's folder (originals and thumbnails). */
async function filesOf(accountId: string): Promise<string[]> {
  return fs.readdir(path.join(t.app.storage.root, accountId)).catch(() => []);
}

async function messageCount(accountId: string): Promise<number> {
  const [row] = await t.app.db.select({ n: sql<number>`count(*)::int` }).from(messages).where(eq(messages.accountId, accountId));
  return row?.n ?? 0;
}

describe('upload budgets', () => {
  it("refuses a visitor's uploads beyond the count per hour with 429, Retry-After and nothing stored", async () => {
    const owner = await buildAccount(t.app);
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    for (let i = 0; i < 3; i++) expect((await widgetUpload(visitor.token, part(png(8, 8)))).status).toBe(201);
    const files = await filesOf(owner.user.account_id);
    const count = await messageCount(owner.user.account_id);

    const res = await widgetUpload(visitor.token, part(png(8, 8)));
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: 'Too many uploads. Please try again later.', error: 'Too many uploads. Please try again later.', code: 'rate_limited' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await filesOf(owner.user.account_id)).toEqual(files);
    expect(await messageCount(owner.user.account_id)).toBe(count);
    // A text message still goes through: only uploads are budgeted.
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'still here' } })).status).toBe(201);
  });

  it("refuses a visitor's uploads beyond the bytes per hour", async () => {
    const owner = await buildAccount(t.app);
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const big = png(350, 350, true); // ~370 KB, incompressible
    expect(big.length).toBeGreaterThan(350_000);
    expect((await widgetUpload(visitor.token, part(big))).status).toBe(201);
    expect((await widgetUpload(visitor.token, part(png(350, 350, true)))).status).toBe(201);
    const files = await filesOf(owner.user.account_id);
    const res = await widgetUpload(visitor.token, part(png(350, 350, true))); // over 1 MB this hour
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await filesOf(owner.user.account_id)).toEqual(files);
    // Another visitor of the account has their own budget.
    const other = await buildVisitor(t.app, owner.widgetKey);
    expect((await widgetUpload(other.token, part(png(8, 8)))).status).toBe(201);
  });

  it("counts every visitor's (and the team's) uploads against the account's budget", async () => {
    const owner = await buildAccount(t.app);
    const elsewhere = await buildAccount(t.app);
    for (let i = 0; i < 4; i++) {
      const v = await buildVisitor(t.app, owner.widgetKey);
      expect((await widgetUpload(v.token, part(png(8, 8)))).status).toBe(201);
    }
    // The owner's own upload in the console is the fifth of the account's five.
    const v0 = await buildVisitor(t.app, owner.widgetKey);
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: v0.token, body: { message: 'hi' } })).status).toBe(201);
    const consoleSend = await upload(t.app, '/api/vms/messages', owner.token, part(png(8, 8)), { visitor_id: v0.id });
    expect(consoleSend.status).toBe(201);

    const fresh = await buildVisitor(t.app, owner.widgetKey);
    const res = await widgetUpload(fresh.token, part(png(8, 8)));
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await messageCount(owner.user.account_id)).toBe(6);
    // Another account is not touched by this one's budget.
    const theirs = await buildVisitor(t.app, elsewhere.widgetKey);
    expect((await widgetUpload(theirs.token, part(png(8, 8)))).status).toBe(201);
  });
});

describe('storage quota per plan', () => {
  it("refuses uploads beyond the plan's quota with 413, and shows the usage to the owner only", async () => {
    // The new account is on the Professional trial: give that plan a 1 MB quota for this test.
    await t.app.db.update(plans).set({ storageQuotaMb: 1 }).where(eq(plans.code, 'professional'));
    await t.app.db.update(plans).set({ storageQuotaMb: 3 }).where(eq(plans.code, 'starter'));
    try {
      const owner = await buildAccount(t.app);
      const accountId = owner.user.account_id;
      const sent: number[] = [];
      let refused: Awaited<ReturnType<typeof widgetUpload>> | undefined;
      for (let i = 0; i < 4 && !refused; i++) {
        const v = await buildVisitor(t.app, owner.widgetKey);
        const image = png(350, 350, true);
        const res = await widgetUpload(v.token, part(image));
        if (res.status === 201) sent.push(image.length);
        else refused = res;
      }
      expect(sent.length).toBe(2);
      expect(refused?.status).toBe(413);
      expect(refused?.body.message).toBe(STORAGE_QUOTA_REACHED);
      expect((await filesOf(accountId)).filter((f) => !f.includes('-t.')).length).toBe(2);

      const usage = await call(t.app, 'GET', '/api/vms/storage', { token: owner.token });
      expect(usage.status).toBe(200);
      expect(usage.body.data).toEqual({
        used_bytes: sent[0]! + sent[1]!, // small images are their own thumbnail (a hard link)
        files: 2,
        quota_bytes: 1024 * 1024,
        quota_reached: false,
      });
      const agent = await buildMember(t.app, owner, 'Agent');
      expect((await call(t.app, 'GET', '/api/vms/storage', { token: agent.token })).status).toBe(403);

      // The quota is the plan's: once the trial is over the account is on Starter (3 MB here).
      await t.app.db.delete(subscriptions).where(eq(subscriptions.accountId, accountId));
      const after = await call(t.app, 'GET', '/api/vms/storage', { token: owner.token });
      expect(after.body.data.quota_bytes).toBe(3 * 1024 * 1024);
      const v = await buildVisitor(t.app, owner.widgetKey);
      expect((await widgetUpload(v.token, part(png(350, 350, true)))).status).toBe(201);
    } finally {
      await t.app.db.update(plans).set({ storageQuotaMb: 10240 }).where(eq(plans.code, 'professional'));
      await t.app.db.update(plans).set({ storageQuotaMb: 500 }).where(eq(plans.code, 'starter'));
    }
  });
});

describe('cleanup of uploads nothing refers to', () => {
  it("removes an abandoned visitor's file after the grace period and keeps a chat's, until its conversation goes", async () => {
    const owner: TestOwner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    // Visitor B chats with an image.
    const b = await buildVisitor(t.app, owner.widgetKey);
    const sent = await widgetUpload(b.token, part(png(600, 400)));
    expect(sent.status).toBe(201);
    const kept: string = sent.body.data.file_path;
    // Visitor A's upload was stored but never became a message (no chat ever started).
    const a = await buildVisitor(t.app, owner.widgetKey);
    expect(a.id).not.toBe(b.id);
    const abandoned = await t.app.storage.save(accountId, png(600, 400), 'png');
    expect(await filesOf(accountId)).toHaveLength(4); // two files and their thumbnails

    // Each stored file queued the account's sweep (once).
    const queued = await t.app.db.select().from(jobs).where(eq(jobs.name, 'storage.sweep'));
    expect(queued.filter((j) => (j.payload as { accountId: string }).accountId === accountId)).toHaveLength(1);

    const before = (await call(t.app, 'GET', '/api/vms/storage', { token: owner.token })).body.data;
    const grace = t.config.uploads.abandonedAfterMs;
    // Within the grace period nothing is judged.
    const early = await sweepAccount(t.app.db, t.app.storage.root, accountId, grace);
    expect(early.removed).toEqual([]);
    expect(early.nextAt).not.toBeNull();

    const later = new Date(Date.now() + grace + 60_000);
    const swept = await sweepAccount(t.app.db, t.app.storage.root, accountId, grace, later);
    expect(swept.removed).toEqual([abandoned]);
    expect(swept.nextAt).toBeNull();
    expect((await filesOf(accountId)).sort()).toEqual([path.basename(kept), path.basename(thumbnailPathOf(kept))].sort());
    const after = (await call(t.app, 'GET', '/api/vms/storage', { token: owner.token })).body.data;
    expect(after.files).toBe(before.files - 1);
    expect(after.used_bytes).toBeLessThan(before.used_bytes);
    expect((await t.app.inject({ method: 'GET', url: `/storage/${kept}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/storage/${abandoned}` })).statusCode).toBe(404);

    // The chat's conversation is deleted: its file goes at the next sweep.
    await t.app.db.delete(conversations).where(eq(conversations.visitorId, b.id));
    const gone = await sweepAccount(t.app.db, t.app.storage.root, accountId, grace, later);
    expect(gone.removed).toEqual([kept]);
    expect(await filesOf(accountId)).toEqual([]);
    expect(await t.app.db.select().from(storedFiles).where(eq(storedFiles.accountId, accountId))).toEqual([]);
    expect((await call(t.app, 'GET', '/api/vms/storage', { token: owner.token })).body.data).toMatchObject({ used_bytes: 0, files: 0 });
  });
});

describe('image dimensions', () => {
  it('refuses a small PNG whose header claims 16000x16000 pixels, on every upload route, storing nothing', async () => {
    const owner = await buildAccount(t.app);
    const bomb = pixelBomb(16000, 16000);
    expect(bomb.length).toBeLessThan(2000);
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const res = await widgetUpload(visitor.token, part(bomb));
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Images can be at most 12000 pixels on a side and 40 megapixels');
    expect(res.body.errors).toEqual({ image: ['Images can be at most 12000 pixels on a side and 40 megapixels'] });
    // Within each side's limit but over the megapixels (10000 x 8000 = 80 MP): refused too.
    const wide = await widgetUpload(visitor.token, part(pixelBomb(10_000, 8_000)));
    expect(wide.status).toBe(422);
    // The console's send and the widget avatar take the same path.
    const v2 = await buildVisitor(t.app, owner.widgetKey);
    await call(t.app, 'POST', '/api/widget/messages', { token: v2.token, body: { message: 'hi' } });
    expect((await upload(t.app, '/api/vms/messages', owner.token, part(bomb), { visitor_id: v2.id })).status).toBe(422);
    const avatar = await upload(t.app, '/api/vms/widget-settings', owner.token, { ...part(bomb), field: 'avatar' }, { name: 'A', color: '#112233' });
    expect(avatar.status).toBe(422);
    expect(await filesOf(owner.user.account_id)).toEqual([]);
    expect(await t.app.db.select().from(storedFiles).where(eq(storedFiles.accountId, owner.user.account_id))).toEqual([]);
  });
});

describe('thumbnails', () => {
  it('stores a bounded thumbnail beside each chat image (PNG and JPEG), and a small image is its own', async () => {
    const owner = await buildAccount(t.app);
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const big = await widgetUpload(visitor.token, part(png(1600, 1000)));
    expect(big.status).toBe(201);
    const original = await t.app.inject({ method: 'GET', url: `/storage/${big.body.data.file_path}` });
    expect(imageSize(original.rawPayload)).toMatchObject({ width: 1600, height: 1000 });
    const thumb = await t.app.inject({ method: 'GET', url: `/storage/${thumbnailPathOf(big.body.data.file_path)}` });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/png');
    const dims = imageSize(thumb.rawPayload);
    expect(Math.max(dims.width, dims.height)).toBe(THUMBNAIL_MAX_SIDE);
    expect(dims).toMatchObject({ width: 480, height: 300 });
    expect(thumb.rawPayload.length).toBeLessThan(original.rawPayload.length);

    const rgba = Buffer.alloc(1000 * 700 * 4, 200);
    const photo = jpeg.encode({ width: 1000, height: 700, data: rgba }, 80).data;
    const v2 = await buildVisitor(t.app, owner.widgetKey);
    const sentJpeg = await widgetUpload(v2.token, part(photo, 'jpg'));
    expect(sentJpeg.status).toBe(201);
    const jthumb = await t.app.inject({ method: 'GET', url: `/storage/${thumbnailPathOf(sentJpeg.body.data.file_path)}` });
    expect(jthumb.headers['content-type']).toBe('image/jpeg');
    expect(imageSize(jthumb.rawPayload)).toMatchObject({ width: 480, height: 336 });

    const v3 = await buildVisitor(t.app, owner.widgetKey);
    const small = await widgetUpload(v3.token, part(png(40, 30)));
    const sthumb = await t.app.inject({ method: 'GET', url: `/storage/${thumbnailPathOf(small.body.data.file_path)}` });
    expect(imageSize(sthumb.rawPayload)).toMatchObject({ width: 40, height: 30 });
  });

  it('GIF and WebP get a bounded thumbnail of their own format too (a GIF animation: its first frame)', async () => {
    const owner = await buildAccount(t.app);
    const animated = gif(1200, 800);
    const sentGif = await widgetUpload((await buildVisitor(t.app, owner.widgetKey)).token, part(animated, 'gif'));
    expect(sentGif.status).toBe(201);
    const gthumb = await t.app.inject({ method: 'GET', url: `/storage/${thumbnailPathOf(sentGif.body.data.file_path)}` });
    expect(gthumb.statusCode).toBe(200);
    expect(gthumb.headers['content-type']).toBe('image/gif');
    expect(imageSize(gthumb.rawPayload)).toMatchObject({ type: 'gif', width: 480, height: 320 });
    const still = new GifReader(gthumb.rawPayload);
    expect(still.numFrames()).toBe(1);
    // The first frame's colours: its left edge is red (palette index 0), drawn from the same palette.
    const pixels = new Uint8Array(480 * 320 * 4);
    still.decodeAndBlitFrameRGBA(0, pixels);
    expect([...pixels.subarray(0, 4)]).toEqual([255, 0, 0, 255]);

    const rgba = new Uint8Array(1000 * 600 * 4).fill(90);
    const webp = await encodeWebpRgba({ width: 1000, height: 600, data: rgba }, 80);
    const sentWebp = await widgetUpload((await buildVisitor(t.app, owner.widgetKey)).token, part(webp, 'webp'));
    expect(sentWebp.status).toBe(201);
    const wthumb = await t.app.inject({ method: 'GET', url: `/storage/${thumbnailPathOf(sentWebp.body.data.file_path)}` });
    expect(wthumb.headers['content-type']).toBe('image/webp');
    expect(imageSize(wthumb.rawPayload)).toMatchObject({ type: 'webp', width: 480, height: 288 });
  });
});

describe('uploads stored before usage was recorded', () => {
  it('count against their account once, keep what holds them, and are never swept as orphans', async () => {
    const owner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    const dir = path.join(t.app.storage.root, accountId);
    await fs.mkdir(dir, { recursive: true });
    // As an earlier release left them: a chat image with its own thumbnail, a small one whose
    // thumbnail is a hard link, and a file nothing refers to; none has a stored_files row.
    const held = `${accountId}/older-chat-image.png`;
    const small = `${accountId}/older-small.png`;
    const orphan = `${accountId}/older-orphan.png`;
    await fs.writeFile(path.join(t.app.storage.root, held), Buffer.alloc(3000, 1));
    await fs.writeFile(path.join(t.app.storage.root, thumbnailPathOf(held)), Buffer.alloc(700, 2));
    await fs.writeFile(path.join(t.app.storage.root, small), Buffer.alloc(500, 3));
    await fs.link(path.join(t.app.storage.root, small), path.join(t.app.storage.root, thumbnailPathOf(small)));
    await fs.writeFile(path.join(t.app.storage.root, orphan), Buffer.alloc(200, 4));
    const { conversationId } = await insertVisitorWithConversation(t.app, accountId);
    const [message] = await t.app.db
      .insert(messages)
      .values({ accountId, conversationId, senderType: 'visitor', message: '', filePath: held })
      .returning({ id: messages.id });
    // Another account's folder that no longer has an account is nobody's usage.
    await fs.mkdir(path.join(t.app.storage.root, '00000000-0000-4000-8000-000000000000'), { recursive: true });
    await fs.writeFile(path.join(t.app.storage.root, '00000000-0000-4000-8000-000000000000/gone.png'), Buffer.alloc(100));

    const before = (await call(t.app, 'GET', '/api/vms/storage', { token: owner.token })).body.data;
    await fs.rm(path.join(t.app.storage.root, ADOPTED_MARKER), { force: true });
    await recordExistingFiles(t.app.db, t.app.storage.root);
    const after = (await call(t.app, 'GET', '/api/vms/storage', { token: owner.token })).body.data;
    expect(after.used_bytes - before.used_bytes).toBe(3000 + 700 + 500 + 200);
    expect(after.files - before.files).toBe(3);
    const rows = await t.app.db.select().from(storedFiles).where(eq(storedFiles.accountId, accountId));
    expect(rows.find((r) => r.path === held)).toMatchObject({ heldBy: 'message', messageId: message!.id });
    expect(rows.find((r) => r.path === orphan)).toMatchObject({ heldBy: null });
    expect(await t.app.db.select().from(storedFiles).where(sql`${storedFiles.path} like '00000000-%'`)).toEqual([]);

    // Once: the marker ends it, and a second walk (marker removed) counts nothing twice.
    await recordExistingFiles(t.app.db, t.app.storage.root);
    await fs.rm(path.join(t.app.storage.root, ADOPTED_MARKER));
    await recordExistingFiles(t.app.db, t.app.storage.root);
    expect((await call(t.app, 'GET', '/api/vms/storage', { token: owner.token })).body.data).toEqual(after);

    // The sweep never takes a user's older upload for garbage.
    const swept = await sweepAccount(t.app.db, t.app.storage.root, accountId, 1, new Date(Date.now() + 3_600_000));
    expect(swept.removed).toEqual([]);
    await fs.access(path.join(t.app.storage.root, orphan));
  });
});
