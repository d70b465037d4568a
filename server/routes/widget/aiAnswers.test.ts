import { eq, } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDOVER_MESSAGE, autoAnswerFigures, replyTimeText } from '../../ai/visitors.js';
import { aiAnswers, aiConversations, aiFeedback, aiPassages, aiPatterns, aiSources, conversations, messages, } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, everyoneOffline } from '../../test/factories.js';
import { buildChattingVisitor, type TestVisitor } from '../../test/chatFactories.js';
import { callMultipart } from '../../test/multipart.js';

// Issue 17 in the widget: the assistant's answers carry their citation and the visitor's vote;
// "Was this helpful?" records a vote that never re-weights; "Talk to a person" hands over.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Msg = { id: number; sender_type: string; message: string; ai?: { citation: { title: string; url: string | null } | null; vote: string | null } };
const widgetMessages = async (v: TestVisitor) => {
  await t.app.events.drain();
  return (await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data as Msg[];
};
const vote = (v: TestVisitor, id: number, value: string) => call(t.app, 'POST', `/api/widget/messages/${id}/vote`, { token: v.token, body: { vote: value } });
const handover = (v: TestVisitor) => call(t.app, 'POST', '/api/widget/handover', { token: v.token, body: {} });

/** An account whose assistant answers "Do you ship internationally?" to visitors, nobody online. */
async function answeringAccount() {
  const owner = await buildAccount(t.app);
  await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, fields: { message: 'remember: we ship worldwide in 3-5 days' } });
  await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.6 } });
  await everyoneOffline(t.app, owner);
  const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Do you ship internationally?');
  const msgs = await widgetMessages(visitor);
  const bot = msgs.at(-1)!;
  expect(bot).toMatchObject({ sender_type: 'bot', message: 'we ship worldwide in 3-5 days', ai: { citation: null, vote: null } });
  return { owner, visitor, bot };
}

describe('the assistant answer in the widget', () => {
  it('shows the passage it cites (page title and link), and visitor messages carry no ai field', async () => {
    const { owner, visitor, bot } = await answeringAccount();
    const db = t.database.db;
    const [source] = await db.insert(aiSources).values({ accountId: owner.user.account_id, kind: 'website', name: 'example.com', url: 'https://example.com/' }).returning();
    const [passage] = await db
      .insert(aiPassages)
      .values({ accountId: owner.user.account_id, sourceId: source!.id, url: 'https://example.com/shipping', title: 'Shipping', text: 'We ship worldwide.' })
      .returning();
    await db.update(aiAnswers).set({ passageId: passage!.id }).where(eq(aiAnswers.messageId, bot.id));
    const msgs = await widgetMessages(visitor);
    expect(msgs.at(-1)!.ai).toEqual({ citation: { title: 'Shipping', url: 'https://example.com/shipping' }, vote: null });
    expect(msgs[0]!.ai).toBeUndefined();
    // The console reads the same message with its citation.
    const consoleMsgs = await call(t.app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token });
    expect(consoleMsgs.body.data.at(-1).ai.citation.title).toBe('Shipping');
    // Removing the source removes the citation with what was learned from it.
    await db.delete(aiSources).where(eq(aiSources.id, source!.id));
    expect((await widgetMessages(visitor)).at(-1)!.ai).toEqual({ citation: null, vote: null });
  });
});

describe('Was this helpful?', () => {
  it('records the vote, shows it to the owner, and never re-weights the answer', async () => {
    const { owner, visitor, bot } = await answeringAccount();
    const db = t.database.db;
    const before = await db.select().from(aiPatterns).where(eq(aiPatterns.accountId, owner.user.account_id));

    const res = await vote(visitor, bot.id, 'not_helpful');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message_id: bot.id, vote: 'not_helpful' });
    expect((await widgetMessages(visitor)).at(-1)!.ai!.vote).toBe('not_helpful');
    // Changing one's mind replaces the vote.
    expect((await vote(visitor, bot.id, 'helpful')).status).toBe(200);
    const [row] = await db.select().from(aiAnswers).where(eq(aiAnswers.messageId, bot.id));
    expect(row!.vote).toBe('helpful');

    // Nothing re-weighted: the pattern's weight and counts are as they were, no feedback row.
    const after = await db.select().from(aiPatterns).where(eq(aiPatterns.accountId, owner.user.account_id));
    expect(after.map((p) => [p.weight, p.helpful, p.notHelpful])).toEqual(before.map((p) => [p.weight, p.helpful, p.notHelpful]));
    expect(await db.select().from(aiFeedback).where(eq(aiFeedback.accountId, owner.user.account_id))).toEqual([]);

    // Shown to the owner beside the auto-answer control.
    expect(await autoAnswerFigures(t.app.db, owner.user.account_id)).toMatchObject({ visitor_helpful: 1, visitor_not_helpful: 0, rated_answers: 0 });
    const settings = await call(t.app, 'GET', '/api/chatbot/settings', { token: owner.token });
    expect(settings.body.figures).toMatchObject({ visitor_helpful: 1, visitor_not_helpful: 0 });
  });

  it("refuses another visitor's answer, a message that is no answer, and a bad vote, changing nothing", async () => {
    const { owner, visitor, bot } = await answeringAccount();
    const stranger = await buildChattingVisitor(t.app, owner.widgetKey, 'Hello');
    expect((await vote(stranger, bot.id, 'helpful')).status).toBe(404);
    const own = (await widgetMessages(visitor))[0]!; // the visitor's own message: not an answer
    expect((await vote(visitor, own.id, 'helpful')).status).toBe(404);
    const bad = await vote(visitor, bot.id, 'great');
    expect(bad.status).toBe(422);
    expect((await vote(visitor, 0, 'helpful')).status).toBe(404);
    const [row] = await t.database.db.select().from(aiAnswers).where(eq(aiAnswers.messageId, bot.id));
    expect(row!.vote).toBeNull();
    expect((await call(t.app, 'POST', `/api/widget/messages/${bot.id}/vote`, { body: { vote: 'helpful' } })).status).toBe(401);
  });

  it('is rate limited per visitor', async () => {
    const { visitor, bot } = await answeringAccount();
    let refused = 0;
    for (let i = 0; i < 25; i++) {
      const res = await vote(visitor, bot.id, i % 2 ? 'helpful' : 'not_helpful');
      if (res.status === 429) refused++;
      else expect(res.status).toBe(200);
    }
    expect(refused).toBe(5); // 20 an hour
  });
});

describe('Talk to a person', () => {
  it('hands over, assigns as round robin says, and tells the visitor the typical reply time', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent', { name: 'Agent One' });
    await call(t.app, 'PATCH', '/api/vms/me/availability', { token: agent.token, body: { availability: 'away' } });
    expect((await call(t.app, 'POST', '/api/vms/conversation-settings', { token: owner.token, body: { round_robin: true } })).status).toBe(200);
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Can I change my order?');
    const db = t.database.db;
    const [before] = await db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
    expect(before!.assigneeId).toBeNull(); // nobody available when it opened

    // Earlier conversations of the month: first replies after 2, 4 and 30 minutes (median 4).
    const now = Date.now();
    for (const minutes of [2, 4, 30]) {
      const v = await buildChattingVisitor(t.app, owner.widgetKey, 'Hi');
      await db
        .update(conversations)
        .set({ firstVisitorMessageAt: new Date(now - 3_600_000), firstReplyAt: new Date(now - 3_600_000 + minutes * 60_000) })
        .where(eq(conversations.visitorId, v.id));
    }
    await call(t.app, 'PATCH', '/api/vms/me/availability', { token: agent.token, body: { availability: 'online' } });

    const res = await handover(visitor);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ handover: true, reply_time: 'Our team usually replies in a few minutes.', typical_reply_seconds: 240, back_at: null });
    const [after] = await db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
    expect(after!.assigneeId).toBe(agent.id);
    const [state] = await db.select().from(aiConversations).where(eq(aiConversations.conversationId, after!.id));
    expect(state!.handover).toBe(true);
    const msgs = await widgetMessages(visitor);
    // The widget words it in the visitor's language from `ai.handover` (no vote, no citation on it).
    expect(msgs.at(-1)).toMatchObject({ sender_type: 'bot', message: `${HANDOVER_MESSAGE} Our team usually replies in a few minutes.`, ai: { citation: null, vote: null, handover: { back_at: null, reply_seconds: 240 } } });
    expect((await vote(visitor, msgs.at(-1)!.id, 'helpful')).status).toBe(404); // a hand-over is no answer to vote on
    const lines = await db.select({ m: messages.message }).from(messages).where(eq(messages.conversationId, after!.id));
    expect(lines.map((l) => l.m)).toContain('The conversation was assigned to Agent One (round robin)');

    // Twice: nothing more (no second message, no re-assignment).
    expect((await handover(visitor)).status).toBe(200);
    expect((await widgetMessages(visitor)).length).toBe(msgs.length);
  });

  it('keeps an assigned conversation with its assignee; the typed "human" path hands over too and silences the assistant', async () => {
    const { owner, visitor } = await answeringAccount();
    const agent = await buildMember(t.app, owner, 'Agent', { name: 'Agent Two' });
    await t.database.db.update(conversations).set({ assigneeId: agent.id }).where(eq(conversations.visitorId, visitor.id));
    await everyoneOffline(t.app, owner);
    await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'I want to talk to a human please' } });
    const msgs = await widgetMessages(visitor);
    // No reply of the account to go by: the general line.
    expect(msgs.at(-1)!.message).toBe(`${HANDOVER_MESSAGE} ${replyTimeText(null)}`);
    const [conv] = await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
    expect(conv!.assigneeId).toBe(agent.id);
    await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'Do you ship internationally?' } });
    expect((await widgetMessages(visitor)).at(-1)!.sender_type).toBe('visitor');
  });

  it('needs a conversation and the visitor token', async () => {
    expect((await call(t.app, 'POST', '/api/widget/handover', { body: {} })).status).toBe(401);
  });

  it('words the typical reply time', () => {
    expect(replyTimeText(90)).toBe('Our team usually replies in a few minutes.');
    expect(replyTimeText(10 * 60)).toBe('Our team usually replies in a few minutes.');
    expect(replyTimeText(22 * 60)).toBe('Our team usually replies in under an hour.');
    expect(replyTimeText(3 * 3600)).toBe('Our team usually replies in a few hours.');
    expect(replyTimeText(25 * 3600)).toBe('Our team usually replies in a day.');
    expect(replyTimeText(3 * 86400)).toBe('Our team usually replies in a few days.');
  });
});

describe('which source answered what (console)', () => {
  it("sums each source's answers, the team's feedback and the visitors' votes; Agents may not; another account's source has none", async () => {
    const { owner, visitor, bot } = await answeringAccount();
    const db = t.database.db;
    const accountId = owner.user.account_id;
    const [site, faq] = await db
      .insert(aiSources)
      .values([
        { accountId, kind: 'website', name: 'example.com', url: 'https://example.com/' },
        { accountId, kind: 'faq', name: 'faq.csv' },
      ])
      .returning();
    const [p1] = await db
      .insert(aiPassages)
      .values([
        { accountId, sourceId: site!.id, title: 'Shipping', text: 'a', uses: 3, helpful: 2, notHelpful: 0 },
        { accountId, sourceId: site!.id, title: 'Returns', text: 'b', uses: 1, helpful: 0, notHelpful: 1 },
      ])
      .returning();
    await db.update(aiAnswers).set({ passageId: p1!.id }).where(eq(aiAnswers.messageId, bot.id));
    expect((await vote(visitor, bot.id, 'not_helpful')).status).toBe(200);

    const other = await buildAccount(t.app);
    const [foreign] = await db.insert(aiSources).values({ accountId: other.user.account_id, kind: 'faq', name: 'x.csv' }).returning();
    await db.insert(aiPassages).values({ accountId: other.user.account_id, sourceId: foreign!.id, title: 'X', text: 'x', uses: 9 });

    const res = await call(t.app, 'GET', `/api/chatbot/source-usage?ids=${site!.id},${faq!.id},${foreign!.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data[site!.id]).toEqual({ uses: 4, helpful: 2, not_helpful: 1, visitor_helpful: 0, visitor_not_helpful: 1 });
    expect(res.body.data[faq!.id]).toEqual({ uses: 0, helpful: 0, not_helpful: 0, visitor_helpful: 0, visitor_not_helpful: 0 });
    expect(res.body.data[foreign!.id].uses).toBe(0);

    const agent = await buildMember(t.app, owner, 'Agent', { name: 'Agent Three' });
    expect((await call(t.app, 'GET', `/api/chatbot/source-usage?ids=${site!.id}`, { token: agent.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/chatbot/source-usage?ids=nope', { token: owner.token })).status).toBe(422);
  });
});
