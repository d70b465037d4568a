import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { buildChattingVisitor, buildVisitor } from '../../test/chatFactories.js';
import { WIDGET_POLL, statementsOf as countStatements } from '../../test/statements.js';
import { callFrom } from '../../test/httpFrom.js';

/**
 * Issue 15: the widget's REST poll (GET /api/widget/messages?cursor=...) answers "nothing new"
 * from a cheap check: the same cursor back with a weak ETag, and 304 to a client that sends that
 * ETag. Anything the visitor may see that committed since the cursor takes the full read.
 */

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const poll = (token: string, cursor: string, etag?: string) =>
  call(t.app, 'GET', `/api/widget/messages?cursor=${cursor}`, { token, ...(etag ? { headers: { 'if-none-match': etag } } : {}) });

const statementsOf = <T>(run: () => Promise<T>) => countStatements(t.app, WIDGET_POLL, run);

async function firstCursor(token: string): Promise<string> {
  const res = await call(t.app, 'GET', '/api/widget/messages', { token });
  expect(res.status).toBe(200);
  return res.body.next_cursor;
}

describe('GET /api/widget/messages?cursor= (polls)', () => {
  it('answers "nothing new" with the same cursor and an ETag, then 304 until something the visitor may see commits', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'hello');
    const cursor = await firstCursor(v.token);

    const idle = await poll(v.token, cursor);
    expect(idle.status).toBe(200);
    expect(idle.body).toEqual({ message: 'success', data: [], next_cursor: cursor, has_more: false });
    const etag = idle.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(idle.headers['cache-control']).toBe('private, no-cache');

    const unchanged = await poll(v.token, cursor, etag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe('');
    // Another ETag (another answer held) gets the page again.
    expect((await poll(v.token, cursor, 'W/"other"')).status).toBe(200);

    // A private note is not the visitor's: still nothing new for it.
    const note = await call(t.app, 'POST', `/api/vms/conversations/${v.id}/notes`, { token: owner.token, body: { message: 'VIP customer' } });
    expect(note.status).toBe(201);
    expect((await poll(v.token, cursor, etag)).status).toBe(304);

    // An agent's reply is: the full read returns it, with a new cursor and no ETag of "nothing new".
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'How can I help?' } });
    expect(reply.status).toBe(201);
    const fresh = await poll(v.token, cursor, etag);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.map((m: { message: string }) => m.message)).toEqual(['How can I help?']);
    expect(fresh.body.next_cursor).not.toBe(cursor);
    expect(fresh.headers.etag).toBeUndefined();

    // From the new cursor: nothing new again.
    const after = await poll(v.token, fresh.body.next_cursor);
    expect(after.body).toMatchObject({ data: [], next_cursor: fresh.body.next_cursor });
  });

  it('a visitor without a conversation polls "nothing new" until its first message; another visitor\'s messages are not its own', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const other = await buildChattingVisitor(t.app, owner.widgetKey, 'not yours');
    const cursor = await firstCursor(v.token);
    const idle = await poll(v.token, cursor);
    expect(idle.body).toEqual({ message: 'success', data: [], next_cursor: cursor, has_more: false });
    await call(t.app, 'POST', '/api/widget/messages', { token: other.token, body: { message: 'still not yours' } });
    expect((await poll(v.token, cursor, idle.headers.etag as string)).status).toBe(304);
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'mine' } });
    const fresh = await poll(v.token, cursor, idle.headers.etag as string);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.map((m: { message: string }) => m.message)).toEqual(['mine']);
  });

  it('answers a poll it already checked from memory, with no SQL, until a message for the visitor is stored (embedded database: one process)', async () => {
    // The embedded database has one process: it hears every push. On PostgreSQL without Redis the
    // node may share the database with nodes it cannot hear: every poll is checked (the cluster
    // tests cover PostgreSQL with Redis).
    const fromMemory = t.database.kind === 'pglite';
    const repeat = fromMemory ? 0 : 1;
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'hello');
    const cursor = await firstCursor(v.token);
    // The first poll of a cursor asks the database (one statement: the visitor and "anything new").
    const first = await statementsOf(() => poll(v.token, cursor));
    expect(first.result.status).toBe(200);
    expect(first.statements).toBe(1);
    const etag = first.result.headers.etag as string;
    // Its next polls of that cursor: from memory, 304 or the same page, no statement at all.
    for (let i = 0; i < 3; i++) {
      const again = await statementsOf(() => poll(v.token, cursor, etag));
      expect(again.result.status).toBe(304);
      expect(again.statements).toBe(repeat);
    }
    const page = await statementsOf(() => poll(v.token, cursor));
    expect(page.result.status).toBe(200);
    expect(page.result.body).toEqual({ message: 'success', data: [], next_cursor: cursor, has_more: false });
    expect(page.result.headers.etag).toBe(etag);
    expect(page.result.headers['content-type']).toMatch(/^application\/json/);
    expect(page.statements).toBe(repeat);
    // Another token's visitor is not answered from this one's memory.
    const other = await buildChattingVisitor(t.app, owner.widgetKey, 'me too');
    expect((await statementsOf(() => poll(other.token, cursor))).statements).toBe(1);

    // A private note is not the visitor's: still answered from memory.
    expect((await call(t.app, 'POST', `/api/vms/conversations/${v.id}/notes`, { token: owner.token, body: { message: 'VIP' } })).status).toBe(201);
    const afterNote = await statementsOf(() => poll(v.token, cursor, etag));
    expect(afterNote.result.status).toBe(304);
    expect(afterNote.statements).toBe(repeat);
    // An agent's reply is pushed to the visitor's room: the next poll reads again and gets it.
    expect((await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Here to help' } })).status).toBe(201);
    const fresh = await statementsOf(() => poll(v.token, cursor, etag));
    expect(fresh.result.status).toBe(200);
    expect(fresh.result.body.data.map((m: { message: string }) => m.message)).toEqual(['Here to help']);
    expect(fresh.statements).toBeGreaterThanOrEqual(1); // checked again (then the full read)
  });

  it('still counts a poll answered from memory against the visitor\'s limit', async () => {
    const limited = await createTestApp({ WIDGET_LIMIT_PER_VISITOR: '4' });
    try {
      const o = await buildAccount(limited.app);
      const v = await buildChattingVisitor(limited.app, o.widgetKey, 'hello');
      const statuses: number[] = [];
      const cursor = (await call(limited.app, 'GET', '/api/widget/messages', { token: v.token })).body.next_cursor;
      for (let i = 0; i < 6; i++) statuses.push((await call(limited.app, 'GET', `/api/widget/messages?cursor=${cursor}`, { token: v.token })).status);
      // Four calls a minute: the message, the first read, the first poll (checked), the second (from memory); then refused.
      expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
    } finally {
      await limited.close();
    }
  }, 90_000); // a second app on a loaded machine

  it('refuses a bad token and a bad cursor as before', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'hello');
    const cursor = await firstCursor(v.token);
    const bad = await poll('not-a-token', cursor);
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ message: 'Unauthenticated' });
    expect((await call(t.app, 'GET', `/api/widget/messages?cursor=${cursor}`)).status).toBe(401);
    const invalid = await poll(v.token, 'not*a*cursor');
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toHaveProperty('cursor');
  });

  it("checks many visitors' first polls arriving together in a few statements, each with its own answer", async () => {
    const visitors: Awaited<ReturnType<typeof buildChattingVisitor>>[] = [];
    for (let i = 0; i < 12; i++) visitors.push(await buildChattingVisitor(t.app, owner.widgetKey, `hello ${i}`));
    const cursors = await Promise.all(visitors.map((v) => firstCursor(v.token)));
    // Every third visitor gets a reply after its cursor: its poll is "something new".
    for (const v of visitors.filter((_, i) => i % 3 === 0)) {
      const reply = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: `reply to ${v.id}` } });
      expect(reply.status).toBe(201);
    }
    const { result: answers, statements } = await countStatements(t.app, /checkPolls|pollOrAuthenticate/, () => Promise.all(visitors.map((v, i) => poll(v.token, cursors[i]!))));
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(200);
      if (i % 3 === 0) {
        expect(res.body.data.map((m: { message: string }) => m.message)).toEqual([`reply to ${visitors[i]!.id}`]);
      } else {
        expect(res.body).toEqual({ message: 'success', data: [], next_cursor: cursors[i], has_more: false });
      }
    }
    // One check per poll before (12); now the checks that wait for one in flight go together.
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(4);
  });
});

/**
 * Issue 15: a poll the node remembers quiet is answered on the HTTP server's request event, before
 * Fastify (routes/widget/widget.ts earlyQuietPolls): the same answer, still counted against the
 * visitor's limits, and never in the way of something new. Real HTTP calls (app.inject bypasses
 * the HTTP server).
 */
describe('polls remembered quiet, answered before Fastify', () => {
  /** What a client may act on: everything but the connection's own headers. */
  const headersOf = (h: Record<string, unknown>) => {
    const { date: _d, connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...rest } = h;
    return rest;
  };
  const origin = 'https://shop.example';
  const listening = async (app: TestApp['app']) => {
    if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  };

  it('gives the answer Fastify gives (page, 304, headers), and the message once one is stored', async () => {
    // On PostgreSQL without Redis nothing is remembered (services/quietPolls.ts hearsAll): every
    // poll goes through Fastify, with the same answers.
    const fromMemory = t.database.kind === 'pglite';
    const base = await listening(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'hello');
    const cursor = await firstCursor(v.token);
    const url = `/api/widget/messages?cursor=${cursor}`;
    const before = t.app.refusalGate.answeredEarly;

    // The first poll of the cursor is checked in the database (through Fastify).
    const checked = await callFrom(base, '127.0.0.1', 'GET', url, { token: v.token, origin });
    expect(checked.status).toBe(200);
    expect(t.app.refusalGate.answeredEarly).toBe(before);
    const etag = checked.headers.etag as string;

    // The next, from memory before Fastify: the same page and headers.
    const page = await callFrom(base, '127.0.0.1', 'GET', url, { token: v.token, origin });
    expect(page.status).toBe(200);
    expect(JSON.parse(page.text)).toEqual(JSON.parse(checked.text));
    expect(headersOf(page.headers)).toEqual(headersOf(checked.headers));
    expect(page.headers['access-control-allow-origin']).toBe(origin);

    // 304 to the browser holding that answer, as Fastify's own memory path answers it.
    const unchanged = await callFrom(base, '127.0.0.1', 'GET', url, { token: v.token, origin, headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    const viaFastify = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${v.token}`, origin, 'if-none-match': etag } });
    expect(viaFastify.statusCode).toBe(304);
    expect(headersOf(unchanged.headers)).toEqual(headersOf(viaFastify.headers));
    // Without an Origin header either.
    const bare = await callFrom(base, '127.0.0.1', 'GET', url, { token: v.token, headers: { 'if-none-match': etag } });
    const bareViaFastify = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${v.token}`, 'if-none-match': etag } });
    expect(bare.status).toBe(304);
    expect(headersOf(bare.headers)).toEqual(headersOf(bareViaFastify.headers));
    expect(t.app.refusalGate.answeredEarly).toBe(before + (fromMemory ? 3 : 0));

    // Another token, or another query, is not answered from this visitor's memory.
    expect((await callFrom(base, '127.0.0.1', 'GET', url, { token: 'not-a-token' })).status).toBe(401);
    expect((await callFrom(base, '127.0.0.1', 'GET', `${url}&limit=5`, { token: v.token, headers: { 'if-none-match': etag } })).status).toBe(200);
    expect(t.app.refusalGate.answeredEarly).toBe(before + (fromMemory ? 3 : 0));

    // An agent's reply: the next poll takes the full read and returns it.
    expect((await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Here to help' } })).status).toBe(201);
    const fresh = await callFrom(base, '127.0.0.1', 'GET', url, { token: v.token, origin, headers: { 'if-none-match': etag } });
    expect(fresh.status).toBe(200);
    expect(JSON.parse(fresh.text).data.map((m: { message: string }) => m.message)).toEqual(['Here to help']);
    expect(t.app.refusalGate.answeredEarly).toBe(before + (fromMemory ? 3 : 0));
  });

  it("counts each early answer against the visitor's limit: refused once it is spent", async () => {
    // 64 calls a minute, leased a few points at a time (services/rateLimit.ts): the polls with a point at hand are answered early.
    const limited = await createTestApp({ WIDGET_LIMIT_PER_VISITOR: '64', WIDGET_BURST_PER_VISITOR: '1000' });
    try {
      const base = await listening(limited.app);
      const o = await buildAccount(limited.app);
      const v = await buildChattingVisitor(limited.app, o.widgetKey, 'hello');
      const cursor = (await call(limited.app, 'GET', '/api/widget/messages', { token: v.token })).body.next_cursor;
      const statuses: number[] = [];
      for (let i = 0; i < 70; i++) statuses.push((await callFrom(base, '127.0.0.1', 'GET', `/api/widget/messages?cursor=${cursor}`, { token: v.token })).status);
      // The message and the first read spent two of the 64: 62 polls answered, then refused.
      expect(statuses.filter((s) => s === 200).length).toBe(62);
      expect(statuses.slice(62).every((s) => s === 429)).toBe(true);
      if (limited.database.kind === 'pglite') expect(limited.app.refusalGate.answeredEarly).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
