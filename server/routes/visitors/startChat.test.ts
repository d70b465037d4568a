import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS, STARTER_MONTHLY_CHATS } from '@parley/shared';
import { conversations, subscriptions, visitors } from '../../db/schema.js';
import { hashToken, newToken } from '../../services/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { buildChattingVisitor, buildVisitor, postForm } from '../../test/chatFactories.js';
import { connect, connected, listen, next } from '../../test/sockets.js';

/** "Start Chat" (issue 16): an agent's first message to a visitor who never wrote. */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t.app);
});
afterAll(() => t.close());

const conversationOf = async (visitorId: string) => (await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0];

describe('an agent starts a chat', () => {
  it("opens the visitor's conversation and the message reaches the widget live; an Agent may start one too", async () => {
    const o = await buildAccount(t.app);
    const agent = await buildMember(t.app, o, 'Agent', { name: 'Alan Agent' });
    const browsing = await buildVisitor(t.app, o.widgetKey, { name: 'Bea' });
    const widget = connect(base, { widget_key: o.widgetKey, visitor_token: browsing.token });
    try {
      await connected(widget);
      const arrives = next(widget, EVENTS.messageCreated, (p: { message: { message: string } }) => p.message.message === 'Can I help you find something?');
      const sent = await postForm(t.app, '/api/vms/messages', agent.token, { visitor_id: browsing.id, message: 'Can I help you find something?' });
      expect(sent.status).toBe(201);
      const pushed = await arrives;
      expect(pushed.message).toMatchObject({ sender_type: 'user', message: 'Can I help you find something?' });
      expect(await conversationOf(browsing.id)).toMatchObject({ accountId: o.user.account_id });
      // The widget's own history has it too.
      const history = await call(t.app, 'GET', '/api/widget/messages', { token: browsing.token });
      expect(history.body.data.map((m: { message: string }) => m.message)).toEqual(['Can I help you find something?']);
    } finally {
      widget.disconnect();
    }
  });

  it("on Starter at the month's limit refuses a new chat (403, nothing stored) but replies in going chats", async () => {
    const o = await buildAccount(t.app);
    const accountId = o.user.account_id;
    const db = t.database.db;
    await db.update(subscriptions).set({ expiryDate: new Date(Date.now() - 86_400_000) }).where(eq(subscriptions.accountId, accountId));
    const going = await buildChattingVisitor(t.app, o.widgetKey);
    const rows = await db
      .insert(visitors)
      .values(Array.from({ length: STARTER_MONTHLY_CHATS - 1 }, () => ({ accountId, tokenHash: hashToken(newToken()) })))
      .returning({ id: visitors.id });
    await db.insert(conversations).values(rows.map((v) => ({ accountId, visitorId: v.id, lastMessageAt: new Date() })));

    const browsing = await buildVisitor(t.app, o.widgetKey);
    const refused = await postForm(t.app, '/api/vms/messages', o.token, { visitor_id: browsing.id, message: 'Hello there!' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ message: 'This account has reached its monthly chat limit', error: 'This account has reached its monthly chat limit' });
    expect(await conversationOf(browsing.id)).toBeUndefined();
    expect((await postForm(t.app, '/api/vms/messages', o.token, { visitor_id: going.id, message: 'Still here for you' })).status).toBe(201);
  });

  it('under the limit, an agent-started chat counts as one of the month', async () => {
    const o = await buildAccount(t.app);
    const accountId = o.user.account_id;
    await t.database.db.update(subscriptions).set({ expiryDate: new Date(Date.now() - 86_400_000) }).where(eq(subscriptions.accountId, accountId));
    const browsing = await buildVisitor(t.app, o.widgetKey);
    expect((await postForm(t.app, '/api/vms/messages', o.token, { visitor_id: browsing.id, message: 'Hi!' })).status).toBe(201);
    const me = await call(t.app, 'GET', '/api/vms/user', { token: o.token });
    expect(me.body.plan).toMatchObject({ plan: 'Starter', chats_this_month: 1 });
  });
});
