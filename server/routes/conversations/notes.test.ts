
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { EVENTS, NOTE_REQUIRED } from '@parley/shared';
import { conversations, messages } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { assignConversation, buildChattingVisitor, type TestVisitor } from '../../test/chatFactories.js';
import { callMultipart } from '../../test/multipart.js';
import { settleJobs } from '../../test/jobs.js';
import { connect, connected, next, silence, liveTestApp } from '../../test/sockets.js';

// Private notes (issue 16): in the team's thread, never anywhere a visitor can see.
const t = liveTestApp();
const { track } = t;

const note = (token: string, visitorId: string, body: unknown) => call(t.app, 'POST', `/api/vms/conversations/${visitorId}/notes`, { token, body });
const widgetMessages = async (v: TestVisitor) => (await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data as { id: number; sender_type: string; message: string }[];
const consoleMessages = async (token: string, visitorId: string) =>
  (await call(t.app, 'GET', `/api/vms/messages/${visitorId}`, { token })).body.data as { id: number; sender_type: string; message: string; author_name: string | null }[];
const conversationOf = async (visitorId: string) => (await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0]!;

async function chat(owner: TestOwner, text = 'Where is my parcel?') {
  return buildChattingVisitor(t.app, owner.widgetKey, text, 'Vera');
}

describe('POST /api/vms/conversations/:visitorId/notes', () => {
  it('stores a note the console shows with its author, and changes nothing the visitor sees', async () => {
    const owner = await buildAccount(t.app, { name: 'Ada Owner' });
    const v = await chat(owner);
    const before = await conversationOf(v.id);

    const res = await note(owner.token, v.id, { message: '  Refund approved by finance  ' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('success');
    expect(res.body.data).toMatchObject({ visitor_id: v.id, message: 'Refund approved by finance', sender_type: 'note', author_id: owner.user.id, author_name: 'Ada Owner', file_path: '' });
    expect(before.unreadCount).toBe(1);
    // The conversation is as it was: last message (the list and widget preview), time, unread (still 1), status.
    const after = await conversationOf(v.id);
    expect({ last: after.lastMessage, at: after.lastMessageAt, unread: after.unreadCount, status: after.status }).toEqual({
      last: before.lastMessage,
      at: before.lastMessageAt,
      unread: before.unreadCount,
      status: before.status,
    });

    // The console's thread has it...
    const thread = await consoleMessages(owner.token, v.id);
    expect(thread.map((m) => [m.sender_type, m.message])).toEqual([
      ['visitor', 'Where is my parcel?'],
      ['note', 'Refund approved by finance'],
    ]);
    // ...the widget's never, not even asked since the note's id - 1 or by cursor.
    expect((await widgetMessages(v)).map((m) => m.sender_type)).toEqual(['visitor']);
    const since = await call(t.app, 'GET', `/api/widget/messages?since_id=${res.body.data.id - 1}`, { token: v.token });
    expect(since.body.data).toEqual([]);
    const first = await call(t.app, 'GET', '/api/widget/messages', { token: v.token });
    await note(owner.token, v.id, { message: 'Second thought' });
    const byCursor = await call(t.app, 'GET', `/api/widget/messages?cursor=${first.body.next_cursor}`, { token: v.token });
    expect(byCursor.status).toBe(200);
    expect(byCursor.body.data).toEqual([]);

    const list = await call(t.app, 'GET', '/api/vms/conversations', { token: owner.token });
    expect(list.body.data[0].last_message).toBe('Where is my parcel?');
    // Still waiting for a reply: a note is none (waiting_since and first_reply_at unchanged).
    expect(list.body.data[0].waiting_since).not.toBeNull();
    expect((await conversationOf(v.id)).firstReplyAt).toBeNull();
  });

  it('does not reopen a closed conversation nor count as the first reply', async () => {
    const owner = await buildAccount(t.app);
    const v = await chat(owner);
    await t.database.db.update(conversations).set({ status: 'resolved' }).where(eq(conversations.visitorId, v.id));
    expect((await note(owner.token, v.id, { message: 'Closed on purpose' })).status).toBe(201);
    expect((await conversationOf(v.id)).status).toBe('resolved');
    // Stats' first response time looks for the first 'user' message: a note is none.
    const conv = await conversationOf(v.id);
    const replies = await t.database.db.select().from(messages).where(sql`${messages.conversationId} = ${conv.id} and ${messages.senderType} = 'user'`);
    expect(replies).toHaveLength(0);
  });

  it('returns the stored note for a repeated client_id, once', async () => {
    const owner = await buildAccount(t.app);
    const v = await chat(owner);
    const a = await note(owner.token, v.id, { message: 'Once', client_id: 'n_1' });
    const b = await note(owner.token, v.id, { message: 'Once', client_id: 'n_1' });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect((await consoleMessages(owner.token, v.id)).filter((m) => m.sender_type === 'note')).toHaveLength(1);
  });

  it('refuses bad input in the envelope, storing nothing', async () => {
    const owner = await buildAccount(t.app);
    const v = await chat(owner);
    for (const body of [{}, { message: '   ' }, { message: 42 }, { message: 'x'.repeat(5001) }, { message: 'ok', client_id: 'bad id!' }]) {
      const res = await note(owner.token, v.id, body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(res.body.error);
      expect(Object.keys(res.body.errors).length).toBeGreaterThan(0);
    }
    expect((await note(owner.token, v.id, {})).body.errors).toEqual({ message: [NOTE_REQUIRED] });
    expect((await consoleMessages(owner.token, v.id)).filter((m) => m.sender_type === 'note')).toHaveLength(0);
  });

  it('lets an Agent note only conversations they may see; another account gets 404; no token 401', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent', { name: 'Alan Agent' });
    const otherAgent = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    const stranger = await buildAccount(t.app);
    const v = await chat(owner);

    expect((await note(agent.token, v.id, { message: 'unassigned: visible' })).status).toBe(201);
    await assignConversation(t.app, v.id, otherAgent.id);
    const hidden = await note(agent.token, v.id, { message: 'not mine' });
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe('Visitor not found');
    expect((await note(otherAgent.token, v.id, { message: 'mine' })).status).toBe(201);
    expect((await note(admin.token, v.id, { message: 'admin sees all' })).status).toBe(201);
    expect((await note(stranger.token, v.id, { message: 'other account' })).status).toBe(404);
    expect((await note(owner.token, 'not-a-uuid', { message: 'x' })).status).toBe(404);
    expect((await call(t.app, 'POST', `/api/vms/conversations/${v.id}/notes`, { body: { message: 'x' } })).status).toBe(401);
    expect((await consoleMessages(owner.token, v.id)).filter((m) => m.sender_type === 'note').map((m) => m.message)).toEqual(['unassigned: visible', 'mine', 'admin sees all']);
  });

  it('answers 404 for a visitor who has no conversation yet', async () => {
    const owner = await buildAccount(t.app);
    const created = await call(t.app, 'POST', '/api/widget/visitors', { body: { unique_code: owner.widgetKey } });
    const res = await note(owner.token, created.body.data.visitor_id, { message: 'too early' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Conversation not found');
  });
});

describe('live: notes reach the team, never the widget', () => {
  it("pushes a note to the consoles that may see the conversation and not to the visitor's widget", async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const otherAgent = await buildMember(t.app, owner, 'Agent');
    const v = await chat(owner);
    await assignConversation(t.app, v.id, agent.id);

    const ownerSocket = track(connect(t.base, { token: owner.token }));
    const agentSocket = track(connect(t.base, { token: agent.token }));
    const otherSocket = track(connect(t.base, { token: otherAgent.token }));
    const widget = track(connect(t.base, { widget_key: owner.widgetKey, visitor_token: v.token }));
    await Promise.all([ownerSocket, agentSocket, otherSocket, widget].map(connected));

    const widgetHeard: unknown[] = [];
    widget.onAny((event, payload) => widgetHeard.push([event, payload]));
    const atOwner = next(ownerSocket, EVENTS.messageCreated);
    const atAgent = next(agentSocket, EVENTS.messageCreated);
    const otherQuiet = silence(otherSocket, EVENTS.messageCreated);
    const res = await note(agent.token, v.id, { message: 'VIP customer, be nice' });
    expect(res.status).toBe(201);
    const [o, a] = await Promise.all([atOwner, atAgent, otherQuiet]);
    expect(o.message).toMatchObject({ id: res.body.data.id, sender_type: 'note', message: 'VIP customer, be nice' });
    expect(o.conversation).toBeUndefined(); // a note changes nothing of the conversation
    expect(a.message.id).toBe(res.body.data.id);

    // An agent reply right after goes to the widget: the widget heard that one, and only that one.
    // Listening before the call: the push may arrive before the HTTP answer.
    const replyPushed = next(widget, EVENTS.messageCreated, (p: { message: { id: number; message: string } }) => p.message.message === 'Hello Vera');
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: agent.token, body: { visitor_id: v.id, message: 'Hello Vera' } });
    expect((await replyPushed).message.id).toBe(reply.body.data.id);
    await silence(widget, EVENTS.messageCreated, 300);
    expect(JSON.stringify(widgetHeard)).not.toContain('VIP customer');
    expect(JSON.stringify(widgetHeard)).not.toContain('"note"');
  });
});

describe('AI learning ignores notes', () => {
  const settle = async () => {
    await settleJobs(t.app, 'ai.learnFromReply');
  };

  it('never learns a note, and a note between question and reply does not hide the question', async () => {
    const owner = await buildAccount(t.app);
    const v = await chat(owner, 'Do you offer gift wrapping for presents?');
    await note(owner.token, v.id, { message: 'Gift wrapping costs $4, internal price list attached' });
    await settle();
    let progress = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    expect(progress.body.ai_learning_progress.learned_patterns).toBe(0);

    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Yes, gift wrapping costs $4 per item.' } });
    await settle();
    progress = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    expect(progress.body.ai_learning_progress.learned_patterns).toBe(1);
    const asked = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, fields: { message: 'Can you gift wrap it for me?' } });
    expect(asked.body.data[1].content).toBe('Yes, gift wrapping costs $4 per item.');
    expect(JSON.stringify(asked.body)).not.toContain('internal price list');
  });
});
