import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { buildChattingVisitor, buildVisitor } from '../../test/chatFactories.js';
import { WIDGET_POLL, statementsOf as countStatements } from '../../test/statements.js';

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
  });

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
});
