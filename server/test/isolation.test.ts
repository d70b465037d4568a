import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations, messages, users } from '../db/schema.js';
import { createTestApp, type TestApp } from './harness.js';
import { buildAccount, buildMember, call, insertVisitorWithConversation, type TestOwner } from './factories.js';

/**
 * PRODUCT.md section 2: a valid token of account B must never read, change or even confirm the
 * existence of account A's rows. Every console route that takes an id is called with B's tokens
 * and A's ids; the answer must be the 404 an unknown id gets, and A's rows must stay as they were.
 */
let t: TestApp;
let a: TestOwner;
let b: TestOwner;
let bTokens: { role: string; token: string }[];
let aMember: { id: number; token: string };
let aConversation: { visitorId: string; conversationId: number };
let bMemberId: number;
const UNKNOWN_VISITOR = '00000000-0000-4000-8000-000000000000';
const UNKNOWN_MEMBER = 2_000_000_000;

beforeAll(async () => {
  t = await createTestApp();
  a = await buildAccount(t.app);
  b = await buildAccount(t.app);
  aMember = await buildMember(t.app, a, 'Agent');
  aConversation = await insertVisitorWithConversation(t.app, a.user.account_id, { name: 'Alice', assigneeId: aMember.id });
  // An unassigned one too: an Agent of B must not see it as "unassigned, so visible".
  await insertVisitorWithConversation(t.app, a.user.account_id, { name: 'Unassigned' });
  const bAdmin = await buildMember(t.app, b, 'Admin');
  const bAgent = await buildMember(t.app, b, 'Agent');
  bMemberId = bAgent.id;
  bTokens = [
    { role: 'owner', token: b.token },
    { role: 'Admin member', token: bAdmin.token },
    { role: 'Agent member', token: bAgent.token },
  ];
});
afterAll(() => t.close());

/** What account A's data looks like; compared before and after each foreign call. */
async function snapshotOfA() {
  const db = t.database.db;
  const convs = await db
    .select({ id: conversations.id, assigneeId: conversations.assigneeId, unread: conversations.unreadCount, last: conversations.lastMessage })
    .from(conversations)
    .where(eq(conversations.accountId, a.user.account_id))
    .orderBy(conversations.id);
  const msgs = await db.select({ id: messages.id }).from(messages).where(eq(messages.accountId, a.user.account_id));
  const members = await db.select({ id: users.id, status: users.status }).from(users).where(eq(users.accountId, a.user.account_id)).orderBy(users.id);
  return { convs, messageCount: msgs.length, members };
}

/** B's call with A's id must answer 404, exactly as for an id that does not exist, and leave A's data as it was. */
async function expectSameAsUnknown(
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
  token: string,
  foreign: { url: string; body?: unknown },
  unknown: { url: string; body?: unknown },
) {
  const before = await snapshotOfA();
  const res = await call(t.app, method, foreign.url, { token, body: foreign.body });
  const ref = await call(t.app, method, unknown.url, { token, body: unknown.body });
  expect(res.status, `${method} ${foreign.url}`).toBe(404);
  expect(res.body).toEqual(ref.body);
  expect(res.status).toBe(ref.status);
  expect(await snapshotOfA()).toEqual(before);
}

describe("account B's tokens against account A's ids", () => {
  it('GET /api/vms/messages/:visitor_id answers 404 and does not mark A\'s conversation read', async () => {
    for (const { token } of bTokens) {
      for (const query of ['', '?since_id=0']) {
        await expectSameAsUnknown(
          'GET',
          token,
          { url: `/api/vms/messages/${aConversation.visitorId}${query}` },
          { url: `/api/vms/messages/${UNKNOWN_VISITOR}${query}` },
        );
      }
    }
    const [conv] = await t.database.db.select().from(conversations).where(eq(conversations.id, aConversation.conversationId));
    expect(conv!.unreadCount).toBe(1);
  });

  it('POST /api/vms/messages with visitor_id answers 404 and writes nothing', async () => {
    for (const { token } of bTokens) {
      await expectSameAsUnknown(
        'POST',
        token,
        { url: '/api/vms/messages', body: { visitor_id: aConversation.visitorId, message: 'from B' } },
        { url: '/api/vms/messages', body: { visitor_id: UNKNOWN_VISITOR, message: 'from B' } },
      );
    }
  });

  it('DELETE /api/vms/team/:id answers 404 to B\'s owner; A\'s member keeps their session', async () => {
    await expectSameAsUnknown('DELETE', b.token, { url: `/api/vms/team/${aMember.id}` }, { url: `/api/vms/team/${UNKNOWN_MEMBER}` });
    // B's owner cannot delete A's owner either.
    await expectSameAsUnknown('DELETE', b.token, { url: `/api/vms/team/${a.user.id}` }, { url: `/api/vms/team/${UNKNOWN_MEMBER}` });
    expect((await call(t.app, 'GET', '/api/vms/user', { token: aMember.token })).status).toBe(200);
  });

  it("PATCH /api/vms/team/:id answers 404 to B's owner and leaves A's member active", async () => {
    const body = { status: 'disabled' };
    await expectSameAsUnknown('PATCH', b.token, { url: `/api/vms/team/${aMember.id}`, body }, { url: `/api/vms/team/${UNKNOWN_MEMBER}`, body });
    expect((await call(t.app, 'GET', '/api/vms/user', { token: aMember.token })).body.status).toBe('active');
  });

  it('POST /api/vms/team/:id/assign answers 404 to B\'s owner, even with an empty list', async () => {
    for (const userIds of [[], [aConversation.visitorId]]) {
      await expectSameAsUnknown(
        'POST',
        b.token,
        { url: `/api/vms/team/${aMember.id}/assign`, body: { user_ids: userIds } },
        { url: `/api/vms/team/${UNKNOWN_MEMBER}/assign`, body: { user_ids: userIds } },
      );
    }
  });

  it("assigning A's visitor to B's own member answers 422 like an unknown visitor and changes nothing", async () => {
    const before = await snapshotOfA();
    const url = `/api/vms/team/${bMemberId}/assign`;
    const res = await call(t.app, 'POST', url, { token: b.token, body: { user_ids: [aConversation.visitorId] } });
    const ref = await call(t.app, 'POST', url, { token: b.token, body: { user_ids: [UNKNOWN_VISITOR] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(ref.body);
    expect(await snapshotOfA()).toEqual(before);
  });

  it("B's members get the same 403 on team routes for A's ids as for their own account's", async () => {
    for (const { role, token } of bTokens.slice(1)) {
      const foreign = await call(t.app, 'DELETE', `/api/vms/team/${aMember.id}`, { token });
      const own = await call(t.app, 'DELETE', `/api/vms/team/${bMemberId}`, { token });
      expect(foreign.status, role).toBe(403);
      expect(foreign.body).toEqual(own.body);
    }
  });

  it("B's lists never include A's rows", async () => {
    const aIds = [aConversation.visitorId];
    for (const { token } of bTokens) {
      for (const url of ['/api/vms/conversations', '/api/vms/visitor']) {
        const res = await call(t.app, 'GET', url, { token });
        expect(res.status, url).toBe(200);
        expect(JSON.stringify(res.body)).not.toContain(aIds[0]);
      }
    }
    const users = await call(t.app, 'GET', '/api/vms/users', { token: b.token });
    expect(users.body.data).toEqual([]);
    const team = await call(t.app, 'GET', '/api/vms/team', { token: b.token });
    expect(team.body.data.map((m: { id: number }) => m.id)).not.toContain(aMember.id);
  });

  // Control: the same calls with A's own owner reach the rows, so the 404s above are isolation, not typos.
  it("A's owner reaches the same ids", async () => {
    const read = await call(t.app, 'GET', `/api/vms/messages/${aConversation.visitorId}`, { token: a.token });
    expect(read.status).toBe(200);
    expect(read.body.data).toHaveLength(1);
    const sent = await call(t.app, 'POST', '/api/vms/messages', { token: a.token, body: { visitor_id: aConversation.visitorId, message: 'from A' } });
    expect(sent.status).toBe(201);
    const assign = await call(t.app, 'POST', `/api/vms/team/${aMember.id}/assign`, { token: a.token, body: { user_ids: [] } });
    expect(assign.status).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/vms/team/${aMember.id}`, { token: a.token })).status).toBe(200);
  });
});
