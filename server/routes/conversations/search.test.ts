import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { buildChattingVisitor, buildVisitor } from '../../test/chatFactories.js';
import { seedConversations } from '../../test/inboxSeed.js';
import { snippetOf } from './search.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Hit = { visitor_id: string; conversation_id: number | null; message_id: number | null; snippet: string; highlights: [number, number][]; visitor_name: string };
const search = (token: string, query: string) => call(t.app, 'GET', `/api/vms/search?${query}`, { token });

describe('GET /api/vms/search', () => {
  it('finds a message in an old conversation beyond the first pages, highlighted, and never another account’s', async () => {
    const o = await buildAccount(t.app);
    const old = await buildChattingVisitor(t.app, o.widgetKey, 'My parcel tracking number is ZX-4411, where is it?', 'Olga');
    await t.app.database.db.execute(sql`update messages set created_at = now() - interval '300 days' where conversation_id = (select id from conversations where visitor_id = ${old.id})`);
    await t.app.database.db.update(conversations).set({ lastMessageAt: new Date(Date.now() - 300 * 86_400_000) }).where(eq(conversations.visitorId, old.id));
    await seedConversations(t.app, o.user.account_id, 120, { message: 'nothing to see' });
    const stranger = await buildAccount(t.app);
    await buildChattingVisitor(t.app, stranger.widgetKey, 'Another parcel question', 'Stan');

    const res = await search(o.token, 'q=PARCEL track');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const hit: Hit = res.body.data[0];
    expect(hit).toMatchObject({ visitor_id: old.id, visitor_name: 'Olga', message_id: expect.any(Number), conversation_id: expect.any(Number) });
    expect(hit.highlights.map(([a, b]) => hit.snippet.slice(a, b))).toEqual(['parcel', 'track']);
    // The hit opens at that message: it is in the conversation's history.
    const history = await call(t.app, 'GET', `/api/vms/messages/${old.id}`, { token: o.token });
    expect(history.body.data.map((m: { id: number }) => m.id)).toContain(hit.message_id);
    // The stranger finds only their own.
    const theirs = await search(stranger.token, 'q=parcel');
    expect(theirs.body.data.map((h: Hit) => h.visitor_name)).toEqual(['Stan']);
  });

  it('finds visitors by name and email prefix, pages newest first without duplicates', async () => {
    const o = await buildAccount(t.app);
    const named = await buildVisitor(t.app, o.widgetKey, { name: 'Bartholomew Quill', email: 'bq@quill.example' });
    const byEmail = await buildVisitor(t.app, o.widgetKey, { name: '', email: 'quillfan@example.com' });
    let res = await search(o.token, 'q=quill');
    expect(res.body.data.map((h: Hit) => h.visitor_id)).toEqual([byEmail.id, named.id]);
    expect(res.body.data[1]).toMatchObject({ message_id: null, conversation_id: null });
    const first: Hit = res.body.data[1];
    expect(first.highlights.map(([a, b]) => first.snippet.slice(a, b))).toEqual(['Quill', 'quill']);
    // Many hits: pages of 3 cover all of them once.
    for (let i = 0; i < 7; i++) await buildChattingVisitor(t.app, o.widgetKey, `refund request number ${i}`, `R${i}`);
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      res = await search(o.token, `q=refund&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((h: Hit) => h.snippet));
      if (!res.body.has_more) break;
      cursor = res.body.next_cursor;
    }
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `refund request number ${i}`));
  });

  it('an Agent finds only what they may open; system lines are not searched', async () => {
    const o = await buildAccount(t.app);
    const agent = await buildMember(t.app, o, 'Agent');
    const otherAgent = await buildMember(t.app, o, 'Agent');
    const mine = await buildChattingVisitor(t.app, o.widgetKey, 'invoice question one', 'Mine');
    const theirs = await buildChattingVisitor(t.app, o.widgetKey, 'invoice question two', 'Theirs');
    await t.app.database.db.update(conversations).set({ assigneeId: agent.id }).where(eq(conversations.visitorId, mine.id));
    await t.app.database.db.update(conversations).set({ assigneeId: otherAgent.id }).where(eq(conversations.visitorId, theirs.id));
    expect((await search(agent.token, 'q=invoice')).body.data.map((h: Hit) => h.visitor_name)).toEqual(['Mine']);
    expect((await search(o.token, 'q=invoice')).body.data.map((h: Hit) => h.visitor_name).sort()).toEqual(['Mine', 'Theirs']);
    // A system line (sender_type 'system', written by the lifecycle) is never a hit.
    await t.app.database.db.execute(sql`
      insert into messages (account_id, conversation_id, sender_type, message)
      select account_id, id, 'system', 'Ada resolved the conversation' from conversations where visitor_id = ${mine.id}`);
    expect((await search(o.token, 'q=resolved')).body.data).toEqual([]);
  });

  it('refuses a search without a word, in the envelope', async () => {
    const o = await buildAccount(t.app);
    for (const q of ['', 'q=', 'q=%20%21%3F', `q=${'a'.repeat(201)}`, 'q=x&limit=0', 'q=x&cursor=bad']) {
      const res = await search(o.token, q);
      expect(res.status, q).toBe(422);
      expect(res.body.message).toEqual(expect.any(String));
    }
    expect((await call(t.app, 'GET', '/api/vms/search?q=x')).status).toBe(401);
  });
});

describe('snippetOf', () => {
  it('cuts around the first match and marks every word prefix', () => {
    const text = `${'x '.repeat(100)}Where is my Parcel? parcels arrive late`;
    const { snippet, highlights } = snippetOf(text, ['parcel']);
    expect(snippet.length).toBeLessThanOrEqual(160);
    expect(highlights.map(([a, b]) => snippet.slice(a, b))).toEqual(['Parcel', 'parcel']);
    expect(snippetOf('unparcel', ['parcel']).highlights).toEqual([]);
  });
});
