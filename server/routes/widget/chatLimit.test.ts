import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STARTER_MONTHLY_CHATS } from '@parley/shared';
import { conversations, subscriptions, visitors } from '../../db/schema.js';
import { hashToken, newToken } from '../../services/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call } from '../../test/factories.js';
import { buildVisitor } from '../../test/chatFactories.js';
import type { TestOwner } from '../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('Starter monthly chat limit through the widget', () => {
  it('refuses the 101st new chat of the month once the trial is over, but lets going chats continue', async () => {
    const owner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    const db = t.database.db;
    // The trial ended yesterday: Starter limits apply.
    await db.update(subscriptions).set({ expiryDate: new Date(Date.now() - 86_400_000) }).where(eq(subscriptions.accountId, accountId));
    const going = await buildVisitor(t.app, owner.widgetKey);
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: going.token, body: { message: 'first chat' } })).status).toBe(201);
    // 99 more chats this month, straight in the database.
    for (let i = 1; i < STARTER_MONTHLY_CHATS; i++) {
      const [v] = await db.insert(visitors).values({ accountId, tokenHash: hashToken(newToken()) }).returning({ id: visitors.id });
      await db.insert(conversations).values({ accountId, visitorId: v!.id, lastMessageAt: new Date() });
    }
    const late = await buildVisitor(t.app, owner.widgetKey);
    const refused = await call(t.app, 'POST', '/api/widget/messages', { token: late.token, body: { message: 'hello?' } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('This account has reached its monthly chat limit');
    expect((await call(t.app, 'GET', '/api/widget/messages', { token: late.token })).body.data).toEqual([]);
    // The chat that already exists goes on.
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: going.token, body: { message: 'still here' } })).status).toBe(201);
  });

  it('does not limit an account in its trial', async () => {
    const owner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    for (let i = 0; i < STARTER_MONTHLY_CHATS; i++) {
      const [v] = await t.database.db.insert(visitors).values({ accountId, tokenHash: hashToken(newToken()) }).returning({ id: visitors.id });
      await t.database.db.insert(conversations).values({ accountId, visitorId: v!.id, lastMessageAt: new Date() });
    }
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'hi' } })).status).toBe(201);
    const me = await call(t.app, 'GET', '/api/vms/user', { token: owner.token });
    expect(me.body.plan).toMatchObject({ plan: 'Professional', trial: true });
  });
});

/** A Starter account (trial over) with `n` chats opened this month straight in the database. */
async function starterWithChats(n: number): Promise<TestOwner> {
  const owner = await buildAccount(t.app);
  const accountId = owner.user.account_id;
  const db = t.database.db;
  await db.update(subscriptions).set({ expiryDate: new Date(Date.now() - 86_400_000) }).where(eq(subscriptions.accountId, accountId));
  if (n > 0) {
    const rows = await db
      .insert(visitors)
      .values(Array.from({ length: n }, () => ({ accountId, tokenHash: hashToken(newToken()) })))
      .returning({ id: visitors.id });
    await db.insert(conversations).values(rows.map((v) => ({ accountId, visitorId: v.id, lastMessageAt: new Date() })));
  }
  return owner;
}

describe('the Starter limit under concurrency', () => {
  it('lets exactly the remaining chats through when 60 first messages arrive at once at 95/100', async () => {
    const owner = await starterWithChats(STARTER_MONTHLY_CHATS - 5);
    const crowd = await Promise.all(Array.from({ length: 60 }, () => buildVisitor(t.app, owner.widgetKey)));
    const answers = await Promise.all(crowd.map((v, i) => say(v.token, `hello ${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 403)).toHaveLength(55);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: STARTER_MONTHLY_CHATS, limit_reached: true });
    // The five let through go on; nobody else got in afterwards.
    const going = crowd.filter((_, i) => answers[i]!.status === 201);
    for (const v of going) expect((await say(v.token, 'and on')).status).toBe(201);
    expect((await say((await buildVisitor(t.app, owner.widgetKey)).token, 'late')).status).toBe(403);
  });
});

const planOf = async (owner: TestOwner) => (await call(t.app, 'GET', '/api/vms/user', { token: owner.token })).body.plan;
const say = (token: string, message: string) => call(t.app, 'POST', '/api/widget/messages', { token, body: { message } });
const leaveOffline = (token: string, message: string) =>
  call(t.app, 'POST', '/api/widget/offline', { token, body: { email: 'late@example.com', message } });

describe('the plan on GET /api/vms/user', () => {
  it('shows this month\'s chats against the Starter limit, and limit_reached at 100', async () => {
    const owner = await starterWithChats(STARTER_MONTHLY_CHATS - 1);
    expect(await planOf(owner)).toEqual({
      plan: 'Starter', trial: false, expires_at: null, chats_this_month: 99, chat_limit: 100, limit_reached: false,
    });
    expect((await say((await buildVisitor(t.app, owner.widgetKey)).token, 'the 100th')).status).toBe(201);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 100, chat_limit: 100, limit_reached: true });
  });

  it('has no limit in the trial', async () => {
    const owner = await buildAccount(t.app);
    expect(await planOf(owner)).toMatchObject({ plan: 'Professional', trial: true, chats_this_month: 0, chat_limit: null, limit_reached: false });
  });
});

describe('the offline form for a visitor refused by the limit', () => {
  it('takes the message, does not count it, and does not open a live chat behind the limit', async () => {
    const owner = await starterWithChats(STARTER_MONTHLY_CHATS);
    const late = await buildVisitor(t.app, owner.widgetKey);
    expect((await say(late.token, 'hello?')).status).toBe(403);
    const left = await leaveOffline(late.token, 'Please call me back');
    expect(left.status).toBe(201);
    expect(left.body.data).toMatchObject({ message: 'Please call me back', sender_type: 'visitor', visitor_id: late.id });
    expect((await call(t.app, 'GET', '/api/widget/messages', { token: late.token })).body.data).toHaveLength(1);
    // The owner sees it in the console, and it is not one of the month's chats.
    const list = await call(t.app, 'GET', '/api/vms/conversations', { token: owner.token });
    expect(list.body.data.some((c: { visitor_id: string }) => c.visitor_id === late.id)).toBe(true);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 100, limit_reached: true });
    // Leaving a message is no way around the limit: a live message is still refused...
    const again = await say(late.token, 'now let me chat');
    expect(again.status).toBe(403);
    expect(again.body.message).toBe('This account has reached its monthly chat limit');
    // ...a second offline message is fine...
    expect((await leaveOffline(late.token, 'Still here')).status).toBe(201);
    // ...and once an agent answers, the conversation goes on.
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: late.id, message: 'Hi! Calling you now.' } });
    expect(reply.status).toBe(201);
    expect((await say(late.token, 'Thanks!')).status).toBe(201);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 100 });
  });

  it('an offline message under the limit leaves the month\'s chats for live visitors; a live reply then counts', async () => {
    const owner = await starterWithChats(STARTER_MONTHLY_CHATS - 1);
    const away = await buildVisitor(t.app, owner.widgetKey);
    expect((await leaveOffline(away.token, 'Nobody online?')).status).toBe(201);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 99, limit_reached: false });
    // The 100th chat is still there for a live visitor...
    expect((await say((await buildVisitor(t.app, owner.widgetKey)).token, 'live')).status).toBe(201);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 100, limit_reached: true });
    // ...and the offline visitor, now writing live and unanswered, would be the 101st.
    expect((await say(away.token, 'Hello again')).status).toBe(403);
  });

  it('turns an offline conversation into one of the month\'s chats when its visitor writes live under the limit', async () => {
    const owner = await starterWithChats(STARTER_MONTHLY_CHATS - 1);
    const away = await buildVisitor(t.app, owner.widgetKey);
    expect((await leaveOffline(away.token, 'first offline')).status).toBe(201);
    expect((await say(away.token, 'now live')).status).toBe(201);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 100, limit_reached: true });
    expect((await say(away.token, 'and on')).status).toBe(201);
    expect((await say((await buildVisitor(t.app, owner.widgetKey)).token, 'the 101st')).status).toBe(403);
  });

  it('counts an offline conversation of last month in this month once its visitor writes live', async () => {
    const owner = await starterWithChats(5);
    const away = await buildVisitor(t.app, owner.widgetKey);
    expect((await leaveOffline(away.token, 'left a note last month')).status).toBe(201);
    const lastMonth = new Date(Date.now() - 40 * 86_400_000);
    await t.database.db.update(conversations).set({ createdAt: lastMonth }).where(eq(conversations.visitorId, away.id));
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 5 });
    expect((await say(away.token, 'back, and live now')).status).toBe(201);
    expect(await planOf(owner)).toMatchObject({ chats_this_month: 6 });
  });
});
