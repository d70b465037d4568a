import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitors } from '../../db/schema.js';
import { hashToken, newToken } from '../../services/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, insertVisitorWithConversation } from '../../test/factories.js';
import { buildVisitor } from '../../test/chatFactories.js';
import { connect, connected, listen } from '../../test/sockets.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t.app);
});
afterAll(() => t.close());

type Row = { id: string; name: string; country: string; online: boolean; has_conversation: boolean };
const list = async (token: string, query = '') => call(t.app, 'GET', `/api/vms/visitor${query}`, { token });

/** Visitors straight in the database, one a minute apart from `start` (the first is the oldest). */
async function insertVisitors(accountId: string, n: number, opts: { start?: number; name?: (i: number) => string; country?: (i: number) => string } = {}) {
  const start = opts.start ?? Date.UTC(2026, 0, 1);
  const rows = await t.database.db
    .insert(visitors)
    .values(
      Array.from({ length: n }, (_, i) => ({
        accountId,
        tokenHash: hashToken(newToken()),
        name: opts.name?.(i) ?? `Visitor ${i}`,
        country: opts.country?.(i) ?? '',
        createdAt: new Date(start + i * 60_000),
      })),
    )
    .returning({ id: visitors.id });
  return rows.map((r) => r.id);
}

async function allPages(token: string, query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list(token, `?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    ids.push(...res.body.data.map((v: Row) => v.id));
    cursor = res.body.next_cursor;
    expect(res.body.has_more).toBe(cursor !== null);
    pages++;
  } while (cursor && pages < 100);
  return { ids, pages };
}

describe('GET /api/vms/visitor paging', () => {
  it('pages newest first with next_cursor and total; rows added while paging never shift a page', async () => {
    const o = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const ids = (await insertVisitors(o.user.account_id, 7)).reverse(); // newest first
    await insertVisitors(other.user.account_id, 3);

    const first = await list(o.token, '?limit=3');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ message: 'success', has_more: true, total: 7 });
    expect(first.body.data.map((v: Row) => v.id)).toEqual(ids.slice(0, 3));
    // A newer visitor arrives between pages: the next page continues where the first stopped.
    await buildVisitor(t.app, o.widgetKey);
    const second = await list(o.token, `?limit=3&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((v: Row) => v.id)).toEqual(ids.slice(3, 6));
    expect(second.body.total).toBe(8);
    const third = await list(o.token, `?limit=3&cursor=${second.body.next_cursor}`);
    expect(third.body.data.map((v: Row) => v.id)).toEqual(ids.slice(6));
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('without limit (the SPEC call) answers the newest 500 in the same shape, with has_more', async () => {
    const o = await buildAccount(t.app);
    const ids = (await insertVisitors(o.user.account_id, 502)).reverse();
    const res = await list(o.token);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data).toHaveLength(500);
    expect(res.body.data.map((v: Row) => v.id)).toEqual(ids.slice(0, 500));
    expect(res.body).toMatchObject({ has_more: true, total: 502 });
    const rest = await list(o.token, `?limit=100&cursor=${res.body.next_cursor}`);
    expect(rest.body.data.map((v: Row) => v.id)).toEqual(ids.slice(500));
  });

  it('refuses a bad limit, cursor or flag with 422 in the envelope', async () => {
    const o = await buildAccount(t.app);
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?cursor=%25%25', '?cursor=abc', '?online=yes', '?has_conversation=1']) {
      const res = await list(o.token, q);
      expect(res.status, q).toBe(422);
      expect(res.body.message, q).toBeTruthy();
      expect(res.body.error, q).toBe(res.body.message);
    }
  });
});

describe('GET /api/vms/visitor filters', () => {
  it('q finds by name or email words (prefixes), country and has_conversation filter, totals follow', async () => {
    const o = await buildAccount(t.app);
    const accountId = o.user.account_id;
    const [fr1, fr2, de1] = await insertVisitors(accountId, 3, { name: (i) => ['Amelie Durand', 'Bruno Petit', 'Claudia Schmidt'][i]!, country: (i) => ['FR', 'FR', 'DE'][i]! });
    const chat = await insertVisitorWithConversation(t.app, accountId, { name: 'Dora Explorer', email: 'dora@maps.example' });

    const names = async (q: string) => ((await list(o.token, q)).body.data as Row[]).map((v) => v.id).sort();
    expect(await names('?q=amel')).toEqual([fr1]);
    expect(await names('?q=dora%40maps.example')).toEqual([chat.visitorId]);
    expect(await names('?q=bruno%20pet')).toEqual([fr2]);
    expect(await names('?q=nobody')).toEqual([]);
    expect(await names('?country=FR')).toEqual([fr1, fr2].sort());
    expect((await list(o.token, '?country=FR&limit=1')).body).toMatchObject({ total: 2, has_more: true });
    expect(await names('?has_conversation=true')).toEqual([chat.visitorId]);
    expect(await names('?has_conversation=false')).toEqual([fr1, fr2, de1].sort());
    expect((await list(o.token, '?has_conversation=false&limit=1')).body.total).toBe(3);
    expect((await list(o.token, '?q=a&limit=1')).body.total).toBeGreaterThan(0);
    const all = await list(o.token, '?limit=10');
    expect(all.body).toMatchObject({ total: 4, countries: 2 });
    expect((all.body.data as Row[]).find((v) => v.id === chat.visitorId)?.has_conversation).toBe(true);
    expect((all.body.data as Row[]).find((v) => v.id === fr1)?.has_conversation).toBe(false);
  });

  it('online lists the visitors with a live widget socket, and each row says whether it is online', async () => {
    const o = await buildAccount(t.app);
    const live = await buildVisitor(t.app, o.widgetKey, { name: 'Live Lena' });
    const away = await buildVisitor(t.app, o.widgetKey, { name: 'Gone Gus' });
    const socket = connect(base, { widget_key: o.widgetKey, visitor_token: live.token });
    try {
      await connected(socket);
      const online = await list(o.token, '?online=true&limit=10');
      expect(online.body.data.map((v: Row) => v.id)).toEqual([live.id]);
      expect(online.body.data[0].online).toBe(true);
      expect(online.body.total).toBe(1);
      const offline = await list(o.token, '?online=false&limit=10');
      expect(offline.body.data.map((v: Row) => v.id)).toEqual([away.id]);
      expect(offline.body.data[0].online).toBe(false);
    } finally {
      socket.disconnect();
    }
  });
});

describe('GET /api/vms/visitor role scoping and isolation', () => {
  it("an Agent's pages, filters and totals hold only visitors they may see; another account's never appear", async () => {
    const o = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const accountId = o.user.account_id;
    const agent = await buildMember(t.app, o, 'Agent');
    const colleague = await buildMember(t.app, o, 'Agent');
    const browsing = await insertVisitors(accountId, 2);
    const unassigned = await insertVisitorWithConversation(t.app, accountId, { name: 'Una' });
    const mine = await insertVisitorWithConversation(t.app, accountId, { name: 'Mia', assigneeId: agent.id });
    const theirs = await insertVisitorWithConversation(t.app, accountId, { name: 'Theo', assigneeId: colleague.id });
    await insertVisitorWithConversation(t.app, other.user.account_id, { name: 'Mia' });

    const visible = [...browsing, unassigned.visitorId, mine.visitorId].sort();
    const paged = await allPages(agent.token, '', 2);
    expect(paged.ids.sort()).toEqual(visible);
    expect((await list(agent.token, '?limit=2')).body.total).toBe(4);
    expect((await list(agent.token, '?limit=1&has_conversation=true')).body.total).toBe(2);
    expect((await list(agent.token, '?q=theo')).body.data).toEqual([]);
    expect(((await list(agent.token, '?q=mia')).body.data as Row[]).map((v) => v.id)).toEqual([mine.visitorId]);
    expect((await list(colleague.token, '?limit=10')).body.data.map((v: Row) => v.id)).toContain(theirs.visitorId);

    const owner = await allPages(o.token, '', 3);
    expect(owner.ids).toHaveLength(5);
    expect((await list(o.token, '?limit=1')).body.total).toBe(5);
    expect((await list(other.token, '?limit=10')).body).toMatchObject({ total: 1 });
    expect((await list(other.token, '?q=mia')).body.data).toHaveLength(1);
  });
});

describe('GET /api/vms/visitor/countries', () => {
  it("lists the account's known countries with their visitor counts, most first, never another account's", async () => {
    const o = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    await insertVisitors(o.user.account_id, 6, { country: (i) => ['FR', 'DE', 'FR', '', 'FR', 'DE'][i]! });
    await insertVisitors(other.user.account_id, 2, { country: () => 'JP' });
    const res = await call(t.app, 'GET', '/api/vms/visitor/countries', { token: o.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success', data: [{ country: 'FR', count: 3 }, { country: 'DE', count: 2 }] });
    // A visitor's country changing moves its count (the trigger of 0021).
    await t.database.db.update(visitors).set({ country: 'IT' }).where(eq(visitors.country, 'DE'));
    const after = await call(t.app, 'GET', '/api/vms/visitor/countries', { token: o.token });
    expect(after.body.data).toEqual([{ country: 'FR', count: 3 }, { country: 'IT', count: 2 }]);
    expect((await call(t.app, 'GET', '/api/vms/visitor/countries')).status).toBe(401);
  });
});
