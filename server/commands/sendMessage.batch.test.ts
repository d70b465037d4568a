import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { appendBatchSizes, sendMessage } from './sendMessage.js';
import { conversations, messages, pushOutbox, visitors } from '../db/schema.js';
import { DomainEvents } from '../services/domainEvents.js';
import { buildChattingVisitor } from '../test/chatFactories.js';
import { buildAccount } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';

/**
 * Group commit (issue 15): messages to conversations that exist, sent at once, are written by
 * one statement (commands/groupCommit.ts), each exactly as if alone.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS_WORKERS: 'false' });
});
afterAll(() => t.close());

/** Nobody listens: the push_outbox rows the writes made stay for the test to see. */
const send = (input: Parameters<typeof sendMessage>[1]) =>
  sendMessage({ db: t.app.db, storage: t.app.storage, events: new DomainEvents(t.app.log), jobs: { settings: t.app.jobs.settings, wake: () => {} } }, input);

describe('messages sent at once', () => {
  it('are written together, each to its own conversation, once per client_id, each with its push owed', async () => {
    const owner = await buildAccount(t.app);
    const built = await Promise.all(Array.from({ length: 12 }, (_, i) => buildChattingVisitor(t.app, owner.widgetKey, 'first', `Batch ${i}`)));
    const rows = await t.app.db.select().from(visitors).where(inArray(visitors.id, built.map((v) => v.id)));
    const byId = new Map(rows.map((r) => [r.id, r]));
    const vs = built.map((v) => byId.get(v.id)!);
    const before = appendBatchSizes(t.app.db).length;

    const sends = vs.map((visitor, i) => send({ visitor, senderType: 'visitor', author: null, text: `batch ${i}`, clientId: `b-${i}` }));
    // The first visitor again: a retry of the same client_id, and a second message.
    sends.push(send({ visitor: vs[0]!, senderType: 'visitor', author: null, text: 'batch 0', clientId: 'b-0' }));
    sends.push(send({ visitor: vs[0]!, senderType: 'visitor', author: null, text: 'batch 0 again', clientId: 'b-0-again' }));
    const results = await Promise.all(sends);

    // Most went in one statement.
    expect(Math.max(...appendBatchSizes(t.app.db).slice(before))).toBeGreaterThanOrEqual(10);
    results.slice(0, 12).forEach((r, i) => {
      expect(r.created).toBe(true);
      expect(r.message).toMatchObject({ message: `batch ${i}`, clientId: `b-${i}`, senderType: 'visitor' });
      expect(r.conversation).toMatchObject({ visitorId: vs[i]!.id, lastMessage: `batch ${i}` });
    });
    expect(results[12]).toMatchObject({ created: false, message: { id: results[0]!.message.id } });
    expect(results[13]).toMatchObject({ created: true, message: { message: 'batch 0 again' }, conversation: { unreadCount: 3 } });

    // The database holds exactly that: one row per client_id, each conversation's preview and count.
    for (const [i, v] of vs.entries()) {
      const [conv] = await t.app.db.select().from(conversations).where(eq(conversations.visitorId, v.id));
      const texts = (await t.app.db.select({ m: messages.message }).from(messages).where(eq(messages.conversationId, conv!.id))).map((r) => r.m);
      if (i === 0) {
        expect(texts.sort()).toEqual(['batch 0', 'batch 0 again', 'first']);
        expect(conv).toMatchObject({ lastMessage: 'batch 0 again', unreadCount: 3 });
      } else {
        expect(texts.sort()).toEqual([`batch ${i}`, 'first']);
        expect(conv).toMatchObject({ lastMessage: `batch ${i}`, unreadCount: 2, lastMessageAt: results[i]!.message.createdAt });
      }
    }
    const created = results.filter((r) => r.created).map((r) => r.message.id);
    const owed = await t.app.db.select({ id: pushOutbox.messageId }).from(pushOutbox).where(inArray(pushOutbox.messageId, created));
    expect(owed.map((r) => r.id).sort((a, b) => a - b)).toEqual(created.sort((a, b) => a - b));
  });
});
