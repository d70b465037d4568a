import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, conversationStretches, conversations, messages } from '../db/schema.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { buildChattingVisitor } from '../test/chatFactories.js';
import { autoResolve, wakeConversation } from './lifecycle.js';
import { DeferJob, type JobContext } from './types.js';

// The lifecycle jobs (issue 16): a snoozed conversation wakes at its time; open conversations
// silent for the account's hours are resolved. Called as the job runner calls them.
let t: TestApp;
let ctx: JobContext;
beforeAll(async () => {
  t = await createTestApp();
  ctx = { db: t.database.db, events: t.app.events, log: t.app.log } as unknown as JobContext;
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const conversationOf = async (visitorId: string) => (await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0]!;
const systemLines = async (conversationId: number) =>
  (await t.database.db.select().from(messages).where(and(eq(messages.conversationId, conversationId), eq(messages.senderType, 'system')))).map((m) => m.message);
const snooze = (owner: TestOwner, visitorId: string, until: Date) =>
  call(t.app, 'POST', `/api/vms/conversations/${visitorId}/status`, { token: owner.token, body: { status: 'pending', snoozed_until: until.toISOString() } });

describe('conversation.wake', () => {
  it('reopens a snoozed conversation at its time, with a system line; early or stale wake-ups change nothing', async () => {
    const owner = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const until = new Date(Date.now() + 2 * HOUR);
    expect((await snooze(owner, v.id, until)).status).toBe(200);
    const c = await conversationOf(v.id);
    const p = { accountId: c.accountId, conversationId: c.id };

    // Far too early (an older snooze's job): nothing, and no retry.
    await wakeConversation(p, ctx, new Date(until.getTime() - HOUR));
    expect((await conversationOf(v.id)).status).toBe('pending');
    // A little early: waits for its time.
    await expect(wakeConversation(p, ctx, new Date(until.getTime() - 30_000))).rejects.toBeInstanceOf(DeferJob);
    expect((await conversationOf(v.id)).status).toBe('pending');

    await wakeConversation(p, ctx, new Date(until.getTime() + 1000));
    const woke = await conversationOf(v.id);
    expect({ status: woke.status, snoozedUntil: woke.snoozedUntil }).toEqual({ status: 'open', snoozedUntil: null });
    expect(await systemLines(c.id)).toContain('The conversation reopened');

    // Run again (a duplicate delivery): no second line.
    const before = (await systemLines(c.id)).length;
    await wakeConversation(p, ctx, new Date(until.getTime() + 2000));
    expect((await systemLines(c.id)).length).toBe(before);
  });

  it('never touches another account’s conversation, nor one reopened meanwhile', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const until = new Date(Date.now() + HOUR);
    await snooze(owner, v.id, until);
    const c = await conversationOf(v.id);
    await wakeConversation({ accountId: other.user.account_id, conversationId: c.id }, ctx, new Date(until.getTime() + 1000));
    expect((await conversationOf(v.id)).status).toBe('pending');

    await call(t.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'open' } });
    const lines = (await systemLines(c.id)).length;
    await wakeConversation({ accountId: c.accountId, conversationId: c.id }, ctx, new Date(until.getTime() + 1000));
    expect((await systemLines(c.id)).length).toBe(lines);
  });
});

describe('conversations.autoResolve', () => {
  it('resolves open conversations silent for the account’s hours, with a system line and a past stretch, and waits for the next', async () => {
    const owner = await buildAccount(t.app);
    const stranger = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    await t.database.db.update(accounts).set({ autoResolveHours: 2 }).where(eq(accounts.id, accountId));
    const silent = await buildChattingVisitor(t.app, owner.widgetKey, 'Anyone there?');
    const recent = await buildChattingVisitor(t.app, owner.widgetKey, 'Just asked');
    const snoozed = await buildChattingVisitor(t.app, owner.widgetKey, 'Later please');
    const elsewhere = await buildChattingVisitor(t.app, stranger.widgetKey, 'Other shop');
    await snooze(owner, snoozed.id, new Date(Date.now() + 48 * HOUR));
    const threeHoursAgo = new Date(Date.now() - 3 * HOUR);
    for (const id of [silent.id, snoozed.id, elsewhere.id]) {
      await t.database.db.update(conversations).set({ lastMessageAt: threeHoursAgo, openedAt: threeHoursAgo }).where(eq(conversations.visitorId, id));
    }

    // The recent one is due in about 2 hours: the job waits until then.
    const deferred = await autoResolve({ accountId }, ctx).catch((e: unknown) => e);
    expect(deferred).toBeInstanceOf(DeferJob);
    expect((deferred as DeferJob).untilMs).toBeGreaterThan(Date.now() + HOUR);

    const s = await conversationOf(silent.id);
    expect(s.status).toBe('resolved');
    expect(s.resolvedAt).not.toBeNull();
    expect(await systemLines(s.id)).toContain('The conversation was resolved after 2 hours without messages');
    const stretches = await t.database.db.select().from(conversationStretches).where(eq(conversationStretches.conversationId, s.id));
    expect(stretches).toHaveLength(1);
    expect(stretches[0]).toMatchObject({ messageCount: 1, firstMessage: 'Anyone there?' });

    expect((await conversationOf(recent.id)).status).toBe('open');
    expect((await conversationOf(snoozed.id)).status).toBe('pending');
    expect((await conversationOf(elsewhere.id)).status).toBe('open');
  });

  it('does nothing when the setting is off', async () => {
    const owner = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    await t.database.db.update(conversations).set({ lastMessageAt: new Date(Date.now() - 500 * HOUR) }).where(eq(conversations.visitorId, v.id));
    await autoResolve({ accountId: owner.user.account_id }, ctx);
    expect((await conversationOf(v.id)).status).toBe('open');
  });
});
