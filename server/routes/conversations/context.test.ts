
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { EVENTS, type VisitorContextDto } from '@parley/shared';
import { conversations, visitors } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { assignConversation, buildVisitor, type TestVisitor } from '../../test/chatFactories.js';
import { connect, connected, emitAck, next, liveTestApp } from '../../test/sockets.js';

// Issue 16, "Visitor context beside the chat": the side panel's call and the team's edit of a
// visitor's name/email; seen ticks (the visitor's read marker kept and pushed).
const t = liveTestApp();
const { track } = t;

const context = (token: string, visitorId: string) => call(t.app, 'GET', `/api/vms/conversations/${visitorId}/context`, { token });
const editVisitor = (token: string, visitorId: string, body: unknown) => call(t.app, 'PATCH', `/api/vms/conversations/${visitorId}/visitor`, { token, body });
const widgetPage = (v: TestVisitor, page_url: string) => call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { page_url } });
const widgetSay = async (v: TestVisitor, message: string) => {
  const res = await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number };
};
const visitorRow = async (id: string) => (await t.database.db.select().from(visitors).where(eq(visitors.id, id)))[0]!;
const setStatus = (token: string, visitorId: string, status: string) => call(t.app, 'POST', `/api/vms/conversations/${visitorId}/status`, { token, body: { status } });

async function chattingVisitor(owner: TestOwner, text = 'Where is my parcel?') {
  const v = await buildVisitor(t.app, owner.widgetKey, { name: 'Vera', email: 'vera@example.com', page_url: 'https://shop.test/', referrer: 'https://search.test/?q=parcel' });
  await widgetSay(v, text);
  return v;
}

describe('GET /api/vms/conversations/:visitorId/context', () => {
  it("gives the visitor, this visit's pages newest first, visits, past stretches and notes", async () => {
    const owner = await buildAccount(t.app, { name: 'Ada Owner' });
    const v = await chattingVisitor(owner);
    expect((await widgetPage(v, 'https://shop.test/pricing')).status).toBe(200);
    expect((await widgetPage(v, 'https://shop.test/checkout')).status).toBe(200);
    // A resolved stretch, then the visitor writes again (a new stretch starts).
    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'On its way!' } });
    expect((await setStatus(owner.token, v.id, 'resolved')).status).toBe(200);
    await widgetSay(v, 'It arrived broken');
    await call(t.app, 'POST', `/api/vms/conversations/${v.id}/notes`, { token: owner.token, body: { message: 'VIP customer' } });
    await call(t.app, 'POST', `/api/vms/conversations/${v.id}/notes`, { token: owner.token, body: { message: 'Prefers email' } });

    const res = await context(owner.token, v.id);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    const data = res.body.data as VisitorContextDto;
    expect(data.visitor).toMatchObject({ id: v.id, name: 'Vera', email: 'vera@example.com', current_page: 'https://shop.test/checkout', referrer: 'https://search.test/?q=parcel' });
    expect(data.visitor).not.toHaveProperty('token_hash');
    expect(data.pages.map((p) => p.url)).toEqual(['https://shop.test/checkout', 'https://shop.test/pricing', 'https://shop.test/']);
    expect(data.visit_count).toBe(1);
    expect(data.time_zone).toBe('');
    expect(data.past_conversations).toHaveLength(1);
    expect(data.past_conversations[0]).toMatchObject({ message_count: 2, first_message: 'Where is my parcel?' });
    expect(Date.parse(data.past_conversations[0]!.resolved_at)).toBeGreaterThanOrEqual(Date.parse(data.past_conversations[0]!.opened_at));
    expect(data.notes.map((n) => [n.message, n.sender_type, n.author_name])).toEqual([
      ['Prefers email', 'note', 'Ada Owner'],
      ['VIP customer', 'note', 'Ada Owner'],
    ]);
  });

  it('starts a new visit after 30 minutes unseen: the count grows and only its pages are listed', async () => {
    const owner = await buildAccount(t.app);
    const v = await chattingVisitor(owner);
    await widgetPage(v, 'https://shop.test/old');
    const longAgo = new Date(Date.now() - 31 * 60_000);
    await t.database.db.update(visitors).set({ lastSeenAt: longAgo, visitStartedAt: longAgo }).where(eq(visitors.id, v.id));
    // Moving the pages' times back too, as if they were opened then.
    await t.database.db.execute(`update visitor_pages set created_at = now() - interval '31 minutes' where visitor_id = '${v.id}'`);
    expect((await visitorRow(v.id)).visitCount).toBe(1);

    await widgetPage(v, 'https://shop.test/back-again');
    const data = (await context(owner.token, v.id)).body.data as VisitorContextDto;
    expect(data.visit_count).toBe(2);
    expect(data.pages.map((p) => p.url)).toEqual(['https://shop.test/back-again']);
    // Within the same visit the count stays.
    await widgetPage(v, 'https://shop.test/next');
    expect(((await context(owner.token, v.id)).body.data as VisitorContextDto).visit_count).toBe(2);
  });

  it('follows the audience rule: an Agent sees unassigned and their own, 404 for a colleague’s and for other accounts', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const colleague = await buildMember(t.app, owner, 'Agent');
    const admin = await buildMember(t.app, owner, 'Admin');
    const v = await chattingVisitor(owner);

    expect((await context(agent.token, v.id)).status).toBe(200);
    await assignConversation(t.app, v.id, colleague.id);
    const hidden = await context(agent.token, v.id);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: 'Visitor not found', error: 'Visitor not found' });
    expect((await context(colleague.token, v.id)).status).toBe(200);
    expect((await context(admin.token, v.id)).status).toBe(200);

    const stranger = await buildAccount(t.app);
    expect((await context(stranger.token, v.id)).status).toBe(404);
    expect((await context(stranger.token, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await context(stranger.token, 'not-a-uuid')).status).toBe(404);
    expect((await call(t.app, 'GET', `/api/vms/conversations/${v.id}/context`)).status).toBe(401);
  });
});

describe('PATCH /api/vms/conversations/:visitorId/visitor', () => {
  it('lets the team correct name and email, pushes it to the consoles, and leaves the visitor unseen', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const v = await chattingVisitor(owner);
    const before = await visitorRow(v.id);
    const agentSocket = track(connect(t.base, { token: agent.token }));
    await connected(agentSocket);

    const pushed = next(agentSocket, EVENTS.conversationUpdated, (p: { conversation: { visitor_id: string } }) => p.conversation.visitor_id === v.id);
    const res = await editVisitor(agent.token, v.id, { email: '  vera.new@example.com ', name: 'Vera Lynn' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: v.id, name: 'Vera Lynn', email: 'vera.new@example.com' });
    expect((await pushed).conversation).toMatchObject({ visitor_name: 'Vera Lynn', visitor_email: 'vera.new@example.com' });
    const after = await visitorRow(v.id);
    expect(after.lastSeenAt.getTime()).toBe(before.lastSeenAt.getTime());
    expect(after.visitCount).toBe(before.visitCount);
    // An empty email clears it, as in the widget.
    expect((await editVisitor(owner.token, v.id, { email: '' })).body.data.email).toBe('');
  });

  it('rejects bad input with the widget’s messages and changes nothing', async () => {
    const owner = await buildAccount(t.app);
    const v = await chattingVisitor(owner);
    const bad = await editVisitor(owner.token, v.id, { email: 'not-an-email' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ message: 'Please enter a valid email address', errors: { email: ['Please enter a valid email address'] } });
    const long = await editVisitor(owner.token, v.id, { name: 'x'.repeat(256) });
    expect(long.status).toBe(422);
    expect(long.body.message).toBe('Name must be at most 255 characters');
    const page = await editVisitor(owner.token, v.id, { page_url: 'https://elsewhere.test/' });
    expect(page.status).toBe(422);
    expect(page.body.errors).toEqual({ page_url: ["The current page is reported by the visitor's browser"] });
    expect((await editVisitor(owner.token, v.id, {})).status).toBe(422);
    const row = await visitorRow(v.id);
    expect({ name: row.name, email: row.email, page: row.currentPage }).toEqual({ name: 'Vera', email: 'vera@example.com', page: 'https://shop.test/' });
  });

  it('refuses those who may not see the conversation with 404', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const colleague = await buildMember(t.app, owner, 'Agent');
    const v = await chattingVisitor(owner);
    await assignConversation(t.app, v.id, colleague.id);
    expect((await editVisitor(agent.token, v.id, { name: 'Mallory' })).status).toBe(404);
    const stranger = await buildAccount(t.app);
    expect((await editVisitor(stranger.token, v.id, { name: 'Mallory' })).status).toBe(404);
    expect((await visitorRow(v.id)).name).toBe('Vera');
  });
});

describe('seen ticks', () => {
  it("keeps the visitor's read marker (forward only, never past the last message) and pushes it to the console", async () => {
    const owner = await buildAccount(t.app);
    const v = await chattingVisitor(owner);
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Hello Vera' } });
    const replyId = reply.body.data.id as number;
    const ownerSocket = track(connect(t.base, { token: owner.token }));
    const widget = track(connect(t.base, { widget_key: owner.widgetKey, visitor_token: v.token }));
    await Promise.all([connected(ownerSocket), connected(widget)]);

    const seen = next(ownerSocket, EVENTS.messageSeen, (p: { visitor_id: string }) => p.visitor_id === v.id);
    await emitAck(widget, EVENTS.messageSeen, { last_id: replyId });
    expect(await seen).toMatchObject({ visitor_id: v.id, last_id: replyId, by: 'visitor' });
    const seenId = async () => (await t.database.db.select().from(conversations).where(eq(conversations.visitorId, v.id)))[0]!.visitorSeenId;
    expect(await seenId()).toBe(replyId);
    // The list carries it (a reload shows the ticks).
    const list = await call(t.app, 'GET', '/api/vms/conversations?limit=10', { token: owner.token });
    expect(list.body.data.find((c: { visitor_id: string }) => c.visitor_id === v.id).visitor_seen_id).toBe(replyId);

    await emitAck(widget, EVENTS.messageSeen, { last_id: replyId - 1 });
    expect(await seenId()).toBe(replyId);
    await emitAck(widget, EVENTS.messageSeen, { last_id: replyId + 1000 });
    expect(await seenId()).toBe(replyId);
  });
});
