import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STARTER_MONTHLY_CHATS } from '@parley/shared';
import { conversations, subscriptions, visitors } from '../../db/schema.js';
import { hashToken, newToken } from '../../services/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call } from '../../test/factories.js';
import { buildVisitor } from '../../test/chatFactories.js';

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
