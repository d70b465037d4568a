import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { buildChattingVisitor } from '../../test/chatFactories.js';
import { seedConversations } from '../../test/inboxSeed.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Conv = { id: number; visitor_id: string; status: string; assignee_id: number | null; waiting_since: string | null };
const list = (token: string, query = '') => call(t.app, 'GET', `/api/vms/conversations${query ? `?${query}` : ''}`, { token });

/** Follows next_cursor to the end; `between` runs after each page (to write concurrently). */
async function pageAll(token: string, query: string, between?: (page: number) => Promise<void>): Promise<Conv[]> {
  const all: Conv[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await list(token, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      return all;
    }
    cursor = res.body.next_cursor;
    await between?.(page);
  }
  throw new Error('did not end');
}

describe('GET /api/vms/conversations paging', () => {
  it('pages newest first through everything, no duplicates or gaps while conversations arrive', async () => {
    const o = await buildAccount(t.app);
    const seeded = await seedConversations(t.app, o.user.account_id, 23);
    let arrived = 0;
    const seen = await pageAll(o.token, 'limit=5', async () => {
      // A new conversation between pages: newer than the cursor, so on no later page.
      await buildChattingVisitor(t.app, o.widgetKey, `new ${arrived++}`);
    });
    expect(arrived).toBe(4);
    const ids = seen.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(seeded.map((s) => s.id));
    // The next first page starts with what arrived.
    const first = await list(o.token, 'limit=5');
    expect(first.body.data.slice(0, 4).map((c: Conv) => c.id)).not.toContain(seeded[0]!.id);
    expect(first.body.total).toBe(27);
  });

  it('sort=oldest is the reverse order, and conversations without a message come last in newest', async () => {
    const o = await buildAccount(t.app);
    const seeded = await seedConversations(t.app, o.user.account_id, 12);
    await t.app.database.db.update(conversations).set({ lastMessageAt: null }).where(eq(conversations.id, seeded[3]!.id));
    const newest = (await pageAll(o.token, 'limit=4&sort=newest')).map((c) => c.id);
    const expected = seeded.map((s) => s.id).filter((id) => id !== seeded[3]!.id);
    expect(newest).toEqual([...expected, seeded[3]!.id]);
    const oldest = (await pageAll(o.token, 'limit=4&sort=oldest')).map((c) => c.id);
    expect(oldest).toEqual([...newest].reverse());
  });

  it('sort=waiting puts the longest-waiting visitor first; a team reply ends the wait', async () => {
    const o = await buildAccount(t.app);
    const a = await buildChattingVisitor(t.app, o.widgetKey, 'first');
    const b = await buildChattingVisitor(t.app, o.widgetKey, 'second');
    const c = await buildChattingVisitor(t.app, o.widgetKey, 'third');
    let res = await list(o.token, 'limit=10&sort=waiting');
    expect(res.body.data.map((x: Conv) => x.visitor_id)).toEqual([a.id, b.id, c.id]);
    expect(res.body.data[0].waiting_since).toEqual(expect.any(String));
    await call(t.app, 'POST', '/api/vms/messages', { token: o.token, body: { visitor_id: a.id, message: 'hi' } });
    res = await list(o.token, 'limit=10&sort=waiting');
    expect(res.body.data.map((x: Conv) => x.visitor_id)).toEqual([b.id, c.id, a.id]);
    expect(res.body.data[2].waiting_since).toBeNull();
    // The visitor writes again: waiting again, since then.
    await call(t.app, 'POST', '/api/widget/messages', { token: a.token, body: { message: 'again' } });
    res = await list(o.token, 'limit=2&sort=waiting');
    expect(res.body.data.map((x: Conv) => x.visitor_id)).toEqual([b.id, c.id]);
    const rest = await list(o.token, `limit=2&sort=waiting&cursor=${res.body.next_cursor}`);
    expect(rest.body.data.map((x: Conv) => x.visitor_id)).toEqual([a.id]);
    expect(rest.body.data[0].waiting_since).toEqual(expect.any(String));
  });

  it('without limit answers the SPEC shape, newest first, capped at 500 with has_more', async () => {
    const o = await buildAccount(t.app);
    const seeded = await seedConversations(t.app, o.user.account_id, 503);
    const res = await list(o.token);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data).toHaveLength(500);
    expect(res.body.data.map((c: Conv) => c.id)).toEqual(seeded.slice(0, 500).map((s) => s.id));
    expect(res.body.has_more).toBe(true);
    expect(res.body.total).toBe(503);
    const rest = await list(o.token, `cursor=${res.body.next_cursor}`);
    expect(rest.body.data.map((c: Conv) => c.id)).toEqual(seeded.slice(500).map((s) => s.id));
    expect(rest.body.has_more).toBe(false);
  });

  it('refuses bad parameters in the envelope', async () => {
    const o = await buildAccount(t.app);
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['status=closedish', 'status'],
      ['assignee=bob', 'assignee'],
      ['sort=random', 'sort'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('["oldest","2020-01-01 00:00:00+00",1]').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('["newest","1; drop table x",1]').toString('base64url')}`, 'cursor'],
      ['changes_since=abc', 'changes_since'],
    ] as const) {
      const res = await list(o.token, query);
      expect(res.status, query).toBe(422);
      expect(Object.keys(res.body.errors), query).toEqual([field]);
      expect(res.body.message).toEqual(expect.any(String));
    }
  });
});

describe('filters, counts and scoping', () => {
  let o: TestOwner;
  let agent: { token: string; id: number };
  let other: { token: string; id: number };
  beforeAll(async () => {
    o = await buildAccount(t.app);
    agent = await buildMember(t.app, o, 'Agent');
    other = await buildMember(t.app, o, 'Agent');
    const acct = o.user.account_id;
    await seedConversations(t.app, acct, 3, { status: 'open' });
    await seedConversations(t.app, acct, 2, { status: 'pending' });
    await seedConversations(t.app, acct, 1, { status: 'resolved' });
    await seedConversations(t.app, acct, 4, { status: 'open', assigneeId: agent.id });
    await seedConversations(t.app, acct, 2, { status: 'resolved', assigneeId: agent.id });
    await seedConversations(t.app, acct, 5, { status: 'open', assigneeId: other.id });
    // Another account's conversations never count or show.
    const stranger = await buildAccount(t.app);
    await seedConversations(t.app, stranger.user.account_id, 7);
  });

  it('the owner sees every conversation; counts per Mine / Unassigned / All and status', async () => {
    const res = await list(o.token, 'limit=50');
    expect(res.body.total).toBe(17);
    expect(res.body.data).toHaveLength(17);
    expect(res.body.counts).toEqual({
      mine: { open: 0, pending: 0, resolved: 0 },
      unassigned: { open: 3, pending: 2, resolved: 1 },
      all: { open: 12, pending: 2, resolved: 3 },
    });
    const open = await list(o.token, 'limit=50&status=open');
    expect(open.body.total).toBe(12);
    expect(open.body.data.every((c: Conv) => c.status === 'open')).toBe(true);
    expect(open.body.data).toHaveLength(12);
    const unassignedPending = await list(o.token, 'limit=50&status=pending&assignee=unassigned');
    expect(unassignedPending.body.data).toHaveLength(2);
    expect(unassignedPending.body.total).toBe(2);
    expect(unassignedPending.body.data.every((c: Conv) => c.assignee_id === null && c.status === 'pending')).toBe(true);
  });

  it('an Agent sees and counts only their own and unassigned conversations', async () => {
    const all = await pageAll(agent.token, 'limit=4');
    expect(all).toHaveLength(12);
    expect(all.every((c) => c.assignee_id === null || c.assignee_id === agent.id)).toBe(true);
    const res = await list(agent.token, 'limit=50&assignee=me');
    expect(res.body.data).toHaveLength(6);
    expect(res.body.total).toBe(6);
    expect(res.body.counts).toEqual({
      mine: { open: 4, pending: 0, resolved: 2 },
      unassigned: { open: 3, pending: 2, resolved: 1 },
      all: { open: 7, pending: 2, resolved: 3 },
    });
    const mineResolved = await list(agent.token, 'limit=50&assignee=me&status=resolved');
    expect(mineResolved.body.data.map((c: Conv) => [c.assignee_id, c.status])).toEqual([
      [agent.id, 'resolved'],
      [agent.id, 'resolved'],
    ]);
  });

  it('counts follow every change: a new conversation, an assignment, a status change, a deletion', async () => {
    const owner = await buildAccount(t.app);
    const a = await buildMember(t.app, owner, 'Agent');
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const counts = async () => (await list(owner.token, 'limit=1')).body.counts;
    expect((await counts()).unassigned.open).toBe(1);
    await t.app.database.db.update(conversations).set({ assigneeId: a.id }).where(eq(conversations.visitorId, v.id));
    expect((await list(a.token, 'limit=1')).body.counts.mine).toEqual({ open: 1, pending: 0, resolved: 0 });
    expect((await counts()).unassigned.open).toBe(0);
    await t.app.database.db.execute(sql`update conversations set status = 'pending' where visitor_id = ${v.id}`);
    expect((await counts()).all).toEqual({ open: 0, pending: 1, resolved: 0 });
    await t.app.database.db.delete(conversations).where(eq(conversations.visitorId, v.id));
    expect((await counts()).all).toEqual({ open: 0, pending: 0, resolved: 0 });
  });
});

describe('changes_since', () => {
  it('returns only the conversations that changed since the cursor, then nothing', async () => {
    const o = await buildAccount(t.app);
    const agent = await buildMember(t.app, o, 'Agent');
    const a = await buildChattingVisitor(t.app, o.widgetKey, 'a');
    const b = await buildChattingVisitor(t.app, o.widgetKey, 'b');
    await buildChattingVisitor(t.app, o.widgetKey, 'c');
    const first = await list(o.token, 'limit=2');
    const agentFirst = await list(agent.token, 'limit=2');
    expect(first.body.changes_cursor).toEqual(expect.any(String));

    const idle = await list(o.token, `changes_since=${first.body.changes_cursor}`);
    expect(idle.status).toBe(200);
    expect(idle.body.data).toEqual([]);
    expect(idle.body.removed_ids).toEqual([]);

    // A message (any writer's update of the row) and a new conversation.
    await call(t.app, 'POST', '/api/widget/messages', { token: a.token, body: { message: 'more from a' } });
    const d = await buildChattingVisitor(t.app, o.widgetKey, 'd');
    const changed = await list(o.token, `changes_since=${idle.body.changes_cursor}`);
    expect(changed.body.data.map((c: Conv & { last_message: string }) => [c.visitor_id, c.last_message])).toEqual([
      [d.id, 'd'],
      [a.id, 'more from a'],
    ]);
    expect(changed.body.counts.all.open).toBe(4);
    expect((await list(o.token, `changes_since=${changed.body.changes_cursor}`)).body.data).toEqual([]);

    // Assigned to someone else: gone for the Agent (removed_ids), changed for the owner.
    await t.app.database.db.update(conversations).set({ assigneeId: o.user.id }).where(eq(conversations.visitorId, b.id));
    const agentChanges = await list(agent.token, `changes_since=${agentFirst.body.changes_cursor}`);
    const [bRow] = await t.app.database.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.visitorId, b.id));
    expect(agentChanges.body.removed_ids).toEqual([bRow!.id]);
    expect(agentChanges.body.data.map((c: Conv) => c.visitor_id).sort()).toEqual([a.id, d.id].sort());
    expect((await list(o.token, `changes_since=${changed.body.changes_cursor}`)).body.data.map((c: Conv) => c.visitor_id)).toEqual([b.id]);
  });

  it('never shows another account’s changes', async () => {
    const o = await buildAccount(t.app);
    const stranger = await buildAccount(t.app);
    const first = await list(o.token, 'limit=1');
    await buildChattingVisitor(t.app, stranger.widgetKey, 'elsewhere');
    const res = await list(o.token, `changes_since=${first.body.changes_cursor}`);
    expect(res.body.data).toEqual([]);
    expect(res.body.removed_ids).toEqual([]);
  });
});

describe('messages of a conversation, paged', () => {
  it('answers the newest page ascending and older pages with before, on the console and in the widget', async () => {
    const o = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, o.widgetKey, 'm1');
    for (let i = 2; i <= 7; i++) await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: `m${i}` } });
    const get = (query: string) => call(t.app, 'GET', `/api/vms/messages/${v.id}?${query}`, { token: o.token });
    const texts = (res: { body: { data: { message: string }[] } }) => res.body.data.map((m) => m.message);
    const newest = await get('limit=3');
    expect(texts(newest)).toEqual(['m5', 'm6', 'm7']);
    expect(newest.body.has_more).toBe(true);
    expect(newest.body.next_cursor).toEqual(expect.any(String)); // still the poll cursor
    const older = await get(`limit=3&before=${newest.body.data[0].id}`);
    expect(texts(older)).toEqual(['m2', 'm3', 'm4']);
    expect(older.body.has_more).toBe(true);
    const oldest = await get(`limit=3&before=${older.body.data[0].id}`);
    expect(texts(oldest)).toEqual(['m1']);
    expect(oldest.body.has_more).toBe(false);
    // Without limit: everything up to the cap.
    const all = await get('');
    expect(texts(all)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    expect(all.body.has_more).toBe(false);
    // The widget pages the same way.
    const widget = await call(t.app, 'GET', '/api/widget/messages?limit=2', { token: v.token });
    expect(texts(widget)).toEqual(['m6', 'm7']);
    expect(widget.body.has_more).toBe(true);
    // Another account cannot read them.
    const stranger = await buildAccount(t.app);
    expect((await call(t.app, 'GET', `/api/vms/messages/${v.id}?limit=3`, { token: stranger.token })).status).toBe(404);
    for (const bad of ['limit=0', 'limit=1000', 'before=abc', 'before=0']) {
      const res = await get(bad);
      expect(res.status, bad).toBe(422);
    }
  });

  it('without limit answers the newest 500 of a long history with has_more', async () => {
    const o = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, o.widgetKey, 'first');
    await t.app.database.db.execute(sql`
      insert into messages (account_id, conversation_id, sender_type, message)
      select c.account_id, c.id, 'visitor', 'bulk ' || i from conversations c, generate_series(1, 502) i where c.visitor_id = ${v.id}`);
    const res = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: o.token });
    expect(res.body.data).toHaveLength(500);
    expect(res.body.data[0].message).toBe('bulk 3');
    expect(res.body.data.at(-1).message).toBe('bulk 502');
    expect(res.body.has_more).toBe(true);
  });
});
