import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { APPEND_QUERY, appendBatchSizes, sendMessage } from './sendMessage.js';
import { conversations, messages, pushOutbox, visitors } from '../db/schema.js';
import { DomainEvents } from '../services/domainEvents.js';
import { buildChattingVisitor } from '../test/chatFactories.js';
import { buildAccount } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { rowsOf } from '../db/client.js';

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

    // They went in a few statements, not one each (14 alone). How many share the first depends on
    // how the sends' own awaits interleave, which a loaded machine spreads: 4-7 of 12 at load 12.
    const batches = appendBatchSizes(t.app.db).slice(before);
    expect(batches.length).toBeLessThanOrEqual(6);
    expect(Math.max(...batches)).toBeGreaterThanOrEqual(3);
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

describe('the append statement', () => {
  it('looks each conversation up by its index, however few conversations there are (planned once for every batch size)', async () => {
    const owner = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'first', 'Plan');
    const [visitor] = await t.app.db.select().from(visitors).where(eq(visitors.id, v.id));
    // The plan a prepared statement keeps for any batch (the generic plan), for a batch of one.
    const plan = await t.app.db.transaction(async (tx) => {
      await tx.execute(sql.raw('set local plan_cache_mode = force_generic_plan'));
      await tx.execute(sql.raw(`prepare parley_append_plan as ${APPEND_QUERY.sql}`));
      const quote = (x: string) => `'${x.replace(/'/g, "''")}'`;
      const args = [
        `array[${quote(visitor!.id)}]::uuid[]`, `array[${quote(visitor!.accountId)}]::uuid[]`, `array['plan-1']`, `array['visitor']`, 'array[null]::int[]',
        `array['hi']`, `array['']`, `array['']`, `array['']`, 'array[0]', `array['hi']`, 'array[true]', `array['[]']`, `'node'`,
      ];
      const res = await tx.execute(sql.raw(`explain execute parley_append_plan(${args.join(', ')})`));
      await tx.execute(sql.raw('deallocate parley_append_plan'));
      return rowsOf<Record<string, string>>(res).map((r) => Object.values(r)[0]).join('\n');
    });
    expect(plan).toMatch(/Index Scan using conversations_visitor_idx/);
    expect(plan).not.toMatch(/Seq Scan on conversations/);
  });
});

describe('what a chat message costs the database beyond its rows', () => {
  it('runs no conversation-counting trigger, while the counts still follow a status change', async () => {
    const owner = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'first', 'Counts');
    const [visitor] = await t.app.db.select().from(visitors).where(eq(visitors.id, v.id));
    const quote = (x: string) => `'${x.replace(/'/g, "''")}'`;
    const rows = async (tx: { execute: (q: ReturnType<typeof sql.raw>) => Promise<unknown> }, text: string) =>
      ((await tx.execute(sql.raw(text))) as { rows: Record<string, unknown>[] }).rows;
    const counted = await t.app.db.transaction(async (tx) => {
      await tx.execute(sql.raw("set local track_functions = 'pl'"));
      const calls = async () =>
        Number((await rows(tx, "select coalesce(sum(calls), 0) as n from pg_stat_xact_user_functions where funcname = 'parley_conversation_counts'"))[0]!.n);
      const counts = async () =>
        Object.fromEntries((await rows(tx, `select status, n from conversation_counts where account_id = ${quote(visitor!.accountId)}`)).map((r) => [r.status, Number(r.n)]));
      const args = [
        `array[${quote(visitor!.id)}]::uuid[]`, `array[${quote(visitor!.accountId)}]::uuid[]`, `array['counts-1']`, `array['visitor']`, 'array[null]::int[]',
        `array['hi']`, `array['']`, `array['']`, `array['']`, 'array[0]', `array['hi']`, 'array[true]', `array['[]']`, `'node'`,
      ];
      // The statement a chat message runs (the append), with its literal arguments.
      let text = APPEND_QUERY.sql;
      for (let i = args.length; i >= 1; i--) text = text.replaceAll(`$${i}`, args[i - 1]!);
      const appended = await rows(tx, text);
      const afterMessage = await calls();
      const before = await counts();
      await tx.execute(sql.raw(`update conversations set status = 'resolved' where visitor_id = ${quote(visitor!.id)}`));
      return { appended: appended.length, afterMessage, afterResolve: await calls(), before, after: await counts() };
    });
    expect(counted.appended).toBe(1);
    expect(counted.afterMessage).toBe(0);
    expect(counted.afterResolve).toBe(1);
    expect(counted.before).toMatchObject({ open: 1 });
    expect(counted.after).toMatchObject({ open: 0, resolved: 1 });
  });
});
