import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEAM_ASSIGNED_PREVIEW } from '@parley/shared';
import { conversations, messages } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, insertVisitorWithConversation, type TestOwner } from '../../test/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** `n` website users, oldest first (each insert is a later conversation). */
async function users(owner: TestOwner, n: number, assigneeId: number | null = null, name = (i: number) => `User ${i}`) {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await insertVisitorWithConversation(t.app, owner.user.account_id, { name: name(i), assigneeId })).visitorId);
  return out;
}

async function pages(token: string, url: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const res = await call(t.app, 'GET', `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(res.status).toBe(200);
    ids.push(...res.body.data.map((u: { id: string }) => u.id));
    cursor = res.body.next_cursor;
    if (!cursor) break;
  }
  return ids;
}

describe('GET /api/vms/team no longer embeds every assignment', () => {
  it('shows the newest assigned users up to the preview with the full count; the member call pages all of them', async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    const theirs = (await users(owner, TEAM_ASSIGNED_PREVIEW + 5, member.id)).reverse();
    await users(owner, 3); // unassigned
    const other = await buildAccount(t.app);
    await users(other, 2);

    const team = await call(t.app, 'GET', '/api/vms/team', { token: owner.token });
    const [row] = team.body.data;
    expect(row.assigned_count).toBe(TEAM_ASSIGNED_PREVIEW + 5);
    expect(row.assigned_users.map((u: { id: string }) => u.id)).toEqual(theirs.slice(0, TEAM_ASSIGNED_PREVIEW));

    const url = `/api/vms/team/${member.id}/assignments`;
    expect(await pages(owner.token, url, 10)).toEqual(theirs);
    const first = await call(t.app, 'GET', `${url}?limit=10`, { token: owner.token });
    expect(first.body).toMatchObject({ message: 'success', has_more: true, total: TEAM_ASSIGNED_PREVIEW + 5 });
    const whole = await call(t.app, 'GET', url, { token: owner.token });
    expect(whole.body.data).toHaveLength(TEAM_ASSIGNED_PREVIEW + 5);

    // Another account's member, the owner and junk ids are not found.
    const stranger = await buildMember(t.app, other, 'Agent');
    for (const id of [stranger.id, owner.user.id, 0, 'abc', 99999999]) {
      expect((await call(t.app, 'GET', `/api/vms/team/${id}/assignments`, { token: owner.token })).status, String(id)).toBe(404);
    }
    expect((await call(t.app, 'GET', `${url}?limit=500`, { token: owner.token })).status).toBe(422);
  });
});

describe('GET /api/vms/users paging and search', () => {
  it('pages newest conversation first without gaps while users arrive, searches names, keeps the SPEC shape without limit', async () => {
    const owner = await buildAccount(t.app);
    const ids = (await users(owner, 7, null, (i) => (i === 2 ? 'Zelda Finder' : `User ${i}`))).reverse();
    const first = await call(t.app, 'GET', '/api/vms/users?limit=3', { token: owner.token });
    expect(first.body).toMatchObject({ has_more: true, total: 7 });
    expect(first.body.data.map((u: { id: string }) => u.id)).toEqual(ids.slice(0, 3));
    await users(owner, 1); // a newer user between pages
    const second = await call(t.app, 'GET', `/api/vms/users?limit=3&cursor=${first.body.next_cursor}`, { token: owner.token });
    expect(second.body.data.map((u: { id: string }) => u.id)).toEqual(ids.slice(3, 6));

    const found = await call(t.app, 'GET', '/api/vms/users?q=zel', { token: owner.token });
    expect(found.body).toMatchObject({ data: [{ id: ids[4], name: 'Zelda Finder' }], total: 1, has_more: false });
    const spec = await call(t.app, 'GET', '/api/vms/users', { token: owner.token });
    expect(spec.body.data).toHaveLength(8);
    expect(spec.body.has_more).toBe(false);
  });
});

describe('GET /api/vms/team/members (the assignee picker)', () => {
  it('lists the account for the owner and Admins with the picker fields only; Agents get 403', async () => {
    const owner = await buildAccount(t.app, { name: 'Olivia Owner' });
    const admin = await buildMember(t.app, owner, 'Admin', { name: 'Ada Admin' });
    const agent = await buildMember(t.app, owner, 'Agent', { name: 'Alan Agent' });
    const other = await buildAccount(t.app);
    await buildMember(t.app, other, 'Agent');
    const expected = [
      { id: owner.user.id, name: 'Olivia Owner', role: 'Owner', status: 'active' },
      { id: admin.id, name: 'Ada Admin', role: 'Admin', status: 'active' },
      { id: agent.id, name: 'Alan Agent', role: 'Agent', status: 'active' },
    ];
    for (const token of [owner.token, admin.token]) {
      const res = await call(t.app, 'GET', '/api/vms/team/members', { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'success', data: expected });
    }
    const refused = await call(t.app, 'GET', '/api/vms/team/members', { token: agent.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('You do not have permission to do this');
    expect((await call(t.app, 'GET', '/api/vms/team/members')).status).toBe(401);
    // The team screen itself stays owner-only (PRODUCT.md section 2).
    expect((await call(t.app, 'GET', '/api/vms/team', { token: admin.token })).status).toBe(403);
  });
});

describe('POST /api/vms/team/:id/assign writes system lines', () => {
  it('records "assigned" and "unassigned" lines like the header, only for conversations that changed', async () => {
    const owner = await buildAccount(t.app, { name: 'Olivia Owner' });
    const ada = await buildMember(t.app, owner, 'Agent', { name: 'Ada Agent' });
    const bob = await buildMember(t.app, owner, 'Agent', { name: 'Bob Agent' });
    const keep = await insertVisitorWithConversation(t.app, owner.user.account_id, { assigneeId: ada.id });
    const drop = await insertVisitorWithConversation(t.app, owner.user.account_id, { assigneeId: ada.id });
    const steal = await insertVisitorWithConversation(t.app, owner.user.account_id, { assigneeId: bob.id });
    const fresh = await insertVisitorWithConversation(t.app, owner.user.account_id);

    const res = await call(t.app, 'POST', `/api/vms/team/${ada.id}/assign`, {
      token: owner.token,
      body: { user_ids: [keep.visitorId, steal.visitorId, fresh.visitorId] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.assigned_count).toBe(3);
    const linesOf = async (conversationId: number) =>
      (
        await t.database.db
          .select({ text: messages.message, author: messages.authorId })
          .from(messages)
          .where(and(eq(messages.conversationId, conversationId), eq(messages.senderType, 'system')))
          .orderBy(asc(messages.id))
      ).map((m) => m.text);
    expect(await linesOf(keep.conversationId)).toEqual([]);
    expect(await linesOf(drop.conversationId)).toEqual(['Olivia Owner unassigned Ada Agent']);
    expect(await linesOf(steal.conversationId)).toEqual(['Olivia Owner assigned the conversation to Ada Agent']);
    expect(await linesOf(fresh.conversationId)).toEqual(['Olivia Owner assigned the conversation to Ada Agent']);
    const [line] = await t.database.db.select().from(messages).where(and(eq(messages.conversationId, fresh.conversationId), eq(messages.senderType, 'system')));
    expect(line!.authorId).toBe(owner.user.id);
    // The lines are thread lines, not messages: the conversation's last message is unchanged.
    const [conv] = await t.database.db.select().from(conversations).where(eq(conversations.id, fresh.conversationId));
    expect(conv!.lastMessage).toBe('Hello, I have a question');
    expect(conv!.assigneeId).toBe(ada.id);

    // The same set again changes nothing and writes nothing.
    await call(t.app, 'POST', `/api/vms/team/${ada.id}/assign`, { token: owner.token, body: { user_ids: [keep.visitorId, steal.visitorId, fresh.visitorId] } });
    expect(await linesOf(fresh.conversationId)).toHaveLength(1);
  });
});
