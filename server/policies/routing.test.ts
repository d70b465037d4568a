import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations, messages } from '../db/schema.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../test/factories.js';
import { buildChattingVisitor } from '../test/chatFactories.js';

// Round-robin routing of new conversations to available Agents (issue 16; policies/routing.ts)
// and the availability calls it reads. Members built here have a fresh session: present.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const conversationOf = async (visitorId: string) => (await t.database.db.select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0]!;
const assigneeOfNewChat = async (owner: TestOwner) => (await conversationOf((await buildChattingVisitor(t.app, owner.widgetKey)).id)).assigneeId;
const settings = (token: string, body: unknown) => call(t.app, 'POST', '/api/vms/conversation-settings', { token, body });
const availability = (token: string, body?: unknown) =>
  body === undefined ? call(t.app, 'GET', '/api/vms/me/availability', { token }) : call(t.app, 'PATCH', '/api/vms/me/availability', { token, body });

async function teamWithRouting() {
  const owner = await buildAccount(t.app);
  const admin = await buildMember(t.app, owner, 'Admin', { name: 'Ada Admin' });
  const a1 = await buildMember(t.app, owner, 'Agent', { name: 'Agent One' });
  const a2 = await buildMember(t.app, owner, 'Agent', { name: 'Agent Two' });
  const a3 = await buildMember(t.app, owner, 'Agent', { name: 'Agent Three' });
  expect((await settings(owner.token, { round_robin: true })).status).toBe(200);
  return { owner, admin, a1, a2, a3 };
}

describe('round-robin routing', () => {
  it('gives new conversations to the Agents in turn, never to the owner or an Admin, with a system line', async () => {
    const { owner, a1, a2, a3 } = await teamWithRouting();
    const got = [];
    for (let i = 0; i < 4; i++) got.push(await assigneeOfNewChat(owner));
    expect(got).toEqual([a1.id, a2.id, a3.id, a1.id]);

    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const c = await conversationOf(v.id);
    expect(c.assigneeId).toBe(a2.id);
    const lines = await t.database.db.select().from(messages).where(and(eq(messages.conversationId, c.id), eq(messages.senderType, 'system')));
    expect(lines.map((m) => m.message)).toEqual(['The conversation was assigned to Agent Two (round robin)']);
    // The Agent sees it in Mine.
    const mine = await call(t.app, 'GET', '/api/vms/conversations?limit=50&assignee=me', { token: a2.token });
    expect(mine.body.data.map((x: { visitor_id: string }) => x.visitor_id)).toContain(v.id);
  });

  it('skips Agents who are away or at their cap of open chats; nobody eligible leaves it unassigned', async () => {
    const { owner, a1, a2, a3 } = await teamWithRouting();
    expect((await availability(a2.token, { availability: 'away' })).status).toBe(200);
    expect((await availability(a3.token, { max_open_chats: 1 })).status).toBe(200);
    // a3 gets one, then is at the cap; a2 is away: a1 gets the rest.
    expect(await assigneeOfNewChat(owner)).toBe(a1.id);
    expect(await assigneeOfNewChat(owner)).toBe(a3.id);
    expect(await assigneeOfNewChat(owner)).toBe(a1.id);
    expect(await assigneeOfNewChat(owner)).toBe(a1.id);

    // a3's open chat resolved: under the cap again.
    const held = (await t.database.db.select().from(conversations).where(eq(conversations.assigneeId, a3.id)))[0]!;
    await call(t.app, 'POST', `/api/vms/conversations/${held.visitorId}/status`, { token: a3.token, body: { status: 'resolved' } });
    expect(await assigneeOfNewChat(owner)).toBe(a3.id);

    await availability(a1.token, { availability: 'away' });
    await availability(a3.token, { availability: 'away' });
    expect(await assigneeOfNewChat(owner)).toBeNull();
  });

  it('is off by default and when turned off', async () => {
    const owner = await buildAccount(t.app);
    await buildMember(t.app, owner, 'Agent');
    expect(await assigneeOfNewChat(owner)).toBeNull();
    await settings(owner.token, { round_robin: true });
    expect(await assigneeOfNewChat(owner)).not.toBeNull();
    await settings(owner.token, { round_robin: false });
    expect(await assigneeOfNewChat(owner)).toBeNull();
  });

  it('only routes to the account’s own Agents, and only an owner or Admin turns it on', async () => {
    const { owner } = await teamWithRouting();
    const other = await buildAccount(t.app);
    const outsider = await buildMember(t.app, other, 'Agent');
    for (let i = 0; i < 3; i++) expect(await assigneeOfNewChat(owner)).not.toBe(outsider.id);
    const agent = await buildMember(t.app, other, 'Agent');
    expect((await settings(agent.token, { round_robin: true })).status).toBe(403);
    expect(await assigneeOfNewChat(other)).toBeNull();
  });
});

describe('GET/PATCH /api/vms/me/availability', () => {
  it('each member sets their own availability and cap; the widget shows the team offline when everyone is away', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const start = await availability(agent.token);
    expect(start.status).toBe(200);
    expect(start.body.data).toMatchObject({ availability: 'online', max_open_chats: null });

    const set = await availability(agent.token, { availability: 'away', max_open_chats: 5 });
    expect(set.body.data).toMatchObject({ availability: 'away', max_open_chats: 5 });
    expect((await availability(agent.token)).body.data).toMatchObject({ availability: 'away', max_open_chats: 5 });
    // Only their own: the owner's is unchanged.
    expect((await availability(owner.token)).body.data).toMatchObject({ availability: 'online', max_open_chats: null });
    expect((await availability(agent.token, { max_open_chats: null })).body.data).toMatchObject({ availability: 'away', max_open_chats: null });

    const widgetOnline = async () => (await call(t.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`)).body.data.agent_online;
    expect(await widgetOnline()).toBe(true); // the owner is online
    await availability(owner.token, { availability: 'away' });
    expect(await widgetOnline()).toBe(false);
    await availability(agent.token, { availability: 'online' });
    expect(await widgetOnline()).toBe(true);
  });

  it('refuses bad input with the schema’s messages and changes nothing; 401 without a token', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const bad = await availability(agent.token, { availability: 'busy' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Availability must be online or away');
    const zero = await availability(agent.token, { max_open_chats: 0 });
    expect(zero.status).toBe(422);
    expect(zero.body.errors).toEqual({ max_open_chats: ['The cap must be at least 1'] });
    expect((await availability(agent.token, { max_open_chats: 2.5 })).body.message).toBe('The cap must be a whole number');
    expect((await availability(agent.token)).body.data).toMatchObject({ availability: 'online', max_open_chats: null });
    expect((await call(t.app, 'GET', '/api/vms/me/availability')).status).toBe(401);
  });
});
