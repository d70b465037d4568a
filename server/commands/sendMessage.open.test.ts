import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { conversations, messages } from '../db/schema.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { statementsOf } from '../test/statements.js';

/**
 * A visitor's first message opens their conversation (issue 11: new chats are what an anonymous
 * flood is made of). The conversation is written once, already carrying the message: its
 * preview, time, unread count and the inbox's first-message and waiting times, which the
 * messages trigger (0017) would otherwise write in a second version of the row.
 */
let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp({ JOBS_WORKERS: 'false' });
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

/** Statements that read or write a conversation or a message. */
const CHAT_TABLES = /"conversations"|"messages"/;

describe("a visitor's first message", () => {
  it('opens the conversation complete with the message, in one write of the row', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey, { name: 'Nadia' });
    const { result: res, statements } = await statementsOf(
      t.app,
      CHAT_TABLES,
      () => call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Do you ship to Lagos?' } }),
      'sql',
    );
    expect(res.status).toBe(201);
    // The visitor's authentication (is a chat under way?), the plan check's look for a
    // conversation, the conversation's insert, the message's insert. Before: also the
    // one-statement append (which found no conversation), a second look in the transaction and
    // the update after the message (7).
    expect(statements).toBe(4);

    const [conv] = await t.app.database.db.select().from(conversations).where(eq(conversations.visitorId, v.id));
    const [msg] = await t.app.database.db.select().from(messages).where(eq(messages.conversationId, conv!.id));
    expect(conv).toMatchObject({ lastMessage: 'Do you ship to Lagos?', unreadCount: 1, status: 'open', assigneeId: null });
    for (const at of [conv!.lastMessageAt, conv!.firstVisitorMessageAt, conv!.waitingSince]) expect(new Date(at!).getTime()).toBe(msg!.createdAt.getTime());

    // The next message joins it as before (the one-statement append).
    const next = await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Or to Accra?' } });
    expect(next.status).toBe(201);
    const [after] = await t.app.database.db.select().from(conversations).where(eq(conversations.id, conv!.id));
    expect(after).toMatchObject({ lastMessage: 'Or to Accra?', unreadCount: 2 });
    expect(after!.waitingSince!.getTime()).toBe(msg!.createdAt.getTime());
  });

  it('joins the conversation a concurrent first message opened', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey, { name: 'Tunde' });
    const sends = await Promise.all(
      ['one', 'two', 'three'].map((text) => call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: text } })),
    );
    expect(sends.map((s) => s.status)).toEqual([201, 201, 201]);
    const convs = await t.app.database.db.select().from(conversations).where(eq(conversations.visitorId, v.id));
    expect(convs).toHaveLength(1);
    const texts = await t.app.database.db.select({ m: messages.message }).from(messages).where(eq(messages.conversationId, convs[0]!.id));
    expect(texts.map((r) => r.m).sort()).toEqual(['one', 'three', 'two']);
    expect(convs[0]!.unreadCount).toBe(3);
  });
});
