import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_INVALID } from '@parley/shared';
import { aiPatterns, conversations, messages, visitors } from '../../db/schema.js';
import { buildAccount, buildMember, call, insertVisitorWithConversation } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

// The smallest valid PNG (1x1).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A visitor with a conversation, a text and an image message, and knowledge learned from the conversation. */
async function seed(accountId: string, opts: { createdAt?: Date } = {}) {
  const { visitorId, conversationId } = await insertVisitorWithConversation(t.app, accountId, { name: 'Gina Gdpr', email: 'gina@example.com', message: 'My order 1234 is late' });
  const filePath = await t.app.storage.save(accountId, PNG, 'png');
  const [image] = await t.app.db
    .insert(messages)
    .values({ accountId, conversationId, senderType: 'visitor', message: '', filePath, fileName: 'receipt.png', fileType: 'image/png', fileSize: PNG.length, ...(opts.createdAt ? { createdAt: opts.createdAt } : {}) })
    .returning();
  await t.app.db.insert(aiPatterns).values({ accountId, source: 'conversation', status: 'approved', conversationId, question: 'Where is my order?', answer: 'Orders ship in 2 days.' });
  return { visitorId, conversationId, filePath, imageId: image!.id };
}

describe('visitor export (GDPR)', () => {
  it('owner and Admin download one visitor’s profile, conversations, messages and file URLs as JSON; audited', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const { visitorId, filePath } = await seed(owner.user.account_id);
    for (const token of [owner.token, admin.token]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/vms/visitor/${visitorId}/export`, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="visitor-${visitorId}.json"`);
      const doc = res.json();
      expect(doc.visitor).toMatchObject({ id: visitorId, name: 'Gina Gdpr', email: 'gina@example.com' });
      expect(JSON.stringify(doc)).not.toContain('token_hash');
      expect(doc.conversations).toHaveLength(1);
      expect(doc.conversations[0].messages.map((m: { message: string }) => m.message)).toEqual(['My order 1234 is late', '']);
      expect(doc.files).toEqual([expect.objectContaining({ name: 'receipt.png', url: expect.stringMatching(new RegExp(`/storage/${filePath}$`)) })]);
    }
    const log = (await call(t.app, 'GET', '/api/vms/audit-log?action=visitor.exported', { token: owner.token })).body.data;
    expect(log.map((e: { target: string }) => e.target)).toEqual([`visitor:${visitorId}`, `visitor:${visitorId}`]);
  });

  it('Agents get 403; another account’s or an unknown visitor is 404', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const other = await buildAccount(t.app);
    const { visitorId } = await seed(owner.user.account_id);
    for (const method of ['GET', 'DELETE'] as const) {
      const url = method === 'GET' ? `/api/vms/visitor/${visitorId}/export` : `/api/vms/visitor/${visitorId}`;
      expect((await call(t.app, method, url, { token: agent.token })).status).toBe(403);
      const foreign = await call(t.app, method, url, { token: other.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ message: 'Visitor not found', error: 'Visitor not found' });
    }
    expect((await call(t.app, 'GET', '/api/vms/visitor/not-a-uuid/export', { token: owner.token })).status).toBe(404);
    expect((await t.app.db.select().from(visitors).where(eq(visitors.id, visitorId)))).toHaveLength(1);
  });
});

describe('visitor erasure (GDPR)', () => {
  it('erases the visitor’s rows, files and the knowledge learned from their conversation; audited', async () => {
    const owner = await buildAccount(t.app);
    const { visitorId, conversationId, filePath } = await seed(owner.user.account_id);
    const keep = await seed(owner.user.account_id);
    expect(fs.existsSync(t.app.storage.fullPath(filePath))).toBe(true);

    const res = await call(t.app, 'DELETE', `/api/vms/visitor/${visitorId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success', data: { conversations: 1, messages: 2, files: 1, knowledge: 1 } });
    expect(await t.app.db.select().from(visitors).where(eq(visitors.id, visitorId))).toEqual([]);
    expect(await t.app.db.select().from(conversations).where(eq(conversations.id, conversationId))).toEqual([]);
    expect(await t.app.db.select().from(messages).where(eq(messages.conversationId, conversationId))).toEqual([]);
    expect(await t.app.db.select().from(aiPatterns).where(eq(aiPatterns.conversationId, conversationId))).toEqual([]);
    expect(fs.existsSync(t.app.storage.fullPath(filePath))).toBe(false);
    // The other visitor keeps everything.
    expect(await t.app.db.select().from(aiPatterns).where(eq(aiPatterns.conversationId, keep.conversationId))).toHaveLength(1);
    expect(fs.existsSync(t.app.storage.fullPath(keep.filePath))).toBe(true);

    expect((await call(t.app, 'DELETE', `/api/vms/visitor/${visitorId}`, { token: owner.token })).status).toBe(404);
    const log = (await call(t.app, 'GET', '/api/vms/audit-log?action=visitor.erased', { token: owner.token })).body.data;
    expect(log).toEqual([expect.objectContaining({ target: `visitor:${visitorId}`, detail: { conversations: 1, messages: 2, files: 1, knowledge: 1 } })]);
  });
});

describe('retention', () => {
  it('deletes messages (and files) older than N months through the job; newer ones stay', async () => {
    const owner = await buildAccount(t.app);
    const old = new Date(Date.now() - 400 * 86_400_000);
    const { conversationId, filePath, imageId } = await seed(owner.user.account_id, { createdAt: old });
    const bad = await call(t.app, 'PUT', '/api/vms/retention', { token: owner.token, body: { retention_months: 0 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ retention_months: [RETENTION_INVALID] });

    const set = await call(t.app, 'PUT', '/api/vms/retention', { token: owner.token, body: { retention_months: 12 } });
    expect(set.body).toEqual({ message: 'success', data: { retention_months: 12 } });
    expect((await call(t.app, 'GET', '/api/vms/retention', { token: owner.token })).body.data).toEqual({ retention_months: 12 });
    const until = Date.now() + 10_000;
    const done = async () => (await t.app.db.select().from(messages).where(eq(messages.id, imageId))).length === 0 && !fs.existsSync(t.app.storage.fullPath(filePath));
    while (!(await done()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await t.app.db.select().from(messages).where(eq(messages.id, imageId))).toEqual([]);
    expect(fs.existsSync(t.app.storage.fullPath(filePath))).toBe(false);
    expect((await t.app.db.select().from(messages).where(eq(messages.conversationId, conversationId))).map((m) => m.message)).toEqual(['My order 1234 is late']);
    // The job records its audit entry after the deletions the loop above waited for.
    const audited = async () => (await call(t.app, 'GET', '/api/vms/audit-log?action=retention.deleted', { token: owner.token })).body.data;
    let log = await audited();
    while (log.length === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      log = await audited();
    }
    expect(log[0]).toMatchObject({ actor: { id: null }, detail: { messages: 1, files: 1 } });
  });

  it('only owner and Admin change it', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    expect((await call(t.app, 'PUT', '/api/vms/retention', { token: agent.token, body: { retention_months: 6 } })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/retention', { token: owner.token })).body.data).toEqual({ retention_months: null });
  });
});
