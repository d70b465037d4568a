import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_IMAGE_MAX_BYTES } from '@parley/shared';
import { accounts, conversations, messages, visitors, widgetLoads } from '../../db/schema.js';
import { hashToken } from '../../services/secrets.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { statementsOf } from '../../test/statements.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { TINY_PNG, buildChattingVisitor, buildVisitor, pngPart, postForm } from '../../test/chatFactories.js';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  // Behind a proxy, the visitor's address comes from X-Forwarded-For.
  t = await createTestApp({ TRUST_PROXY: 'true' });
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const db = () => t.app.database.db;
/** The statement that reads a widget key's account. */
const KEY_LOOKUP = /from "accounts" where "accounts"\."widget_key"/;
const visitorRow = async (id: string) => (await db().select().from(visitors).where(eq(visitors.id, id)))[0]!;
const conversationOf = async (visitorId: string) =>
  (await db().select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0];

describe('POST /api/widget/visitors', () => {
  it('creates a visitor with IP, country and user agent details; the token is stored hashed', async () => {
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
    const res = await call(t.app, 'POST', '/api/widget/visitors', {
      body: { unique_code: owner.widgetKey, name: ' Vera ', email: 'vera@example.com', page_url: 'https://shop.example.com/', referrer: '', locale: 'fr-FR' },
      headers: { 'user-agent': iphone, 'x-forwarded-for': '8.8.8.8' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: 'success', data: { visitor_id: expect.any(String), visitor_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });
    const row = await visitorRow(res.body.data.visitor_id);
    expect(row).toMatchObject({
      accountId: owner.user.account_id,
      name: 'Vera',
      email: 'vera@example.com',
      ip: '8.8.8.8',
      country: 'United States',
      browser: 'Safari',
      os: 'iOS',
      device: 'Mobile',
      currentPage: 'https://shop.example.com/',
      referrer: '',
      locale: 'fr-FR',
      pageViews: 1,
    });
    expect(row.tokenHash).toBe(hashToken(res.body.data.visitor_token));
  });

  it('records a tablet, and leaves the country empty for a private address or no user agent', async () => {
    const ipad = 'Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1';
    const tablet = await buildVisitor(t.app, owner.widgetKey, {}, { 'user-agent': ipad, 'x-forwarded-for': '10.1.2.3' });
    expect(await visitorRow(tablet.id)).toMatchObject({ device: 'Tablet', country: '', ip: '10.1.2.3' });
    const bare = await buildVisitor(t.app, owner.widgetKey, {}, { 'user-agent': '' });
    expect(await visitorRow(bare.id)).toMatchObject({ browser: '', os: '', device: '', country: '' });
  });

  it('answers 404 "Unknown widget" for an unknown key', async () => {
    const res = await call(t.app, 'POST', '/api/widget/visitors', { body: { unique_code: 'no-such-key' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Unknown widget', error: 'Unknown widget', code: 'unknown_widget' });
  });

  it("reads a key's account once per node while it is kept, and a key whose account was deleted meanwhile answers 404 and stores nothing", async () => {
    const o = await buildAccount(t.app);
    const first = await statementsOf(t.app, KEY_LOOKUP, () => buildVisitor(t.app, o.widgetKey), 'sql');
    expect(first.statements).toBe(1);
    const again = await statementsOf(t.app, KEY_LOOKUP, () => buildVisitor(t.app, o.widgetKey), 'sql');
    expect(again.statements).toBe(0); // the key's account came from the node's memory
    await db().delete(accounts).where(eq(accounts.id, o.user.account_id));
    const gone = await call(t.app, 'POST', '/api/widget/visitors', { body: { unique_code: o.widgetKey } });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: 'Unknown widget', error: 'Unknown widget', code: 'unknown_widget' });
    const load = await call(t.app, 'POST', '/api/widget/events', { body: { unique_code: o.widgetKey, load_id: 'load-gone1', kind: 'load' } });
    expect(load.status).toBe(404);
    expect(await db().select().from(visitors).where(eq(visitors.accountId, o.user.account_id))).toEqual([]);
  });

  it.each([
    [{ unique_code: undefined }, 'unique_code', 'unique_code is required'],
    [{ unique_code: '  ' }, 'unique_code', 'unique_code is required'],
    [{ email: 'nope' }, 'email', 'Please enter a valid email address'],
    [{ name: 'n'.repeat(256) }, 'name', 'Name must be at most 255 characters'],
    [{ page_url: 'u'.repeat(2049) }, 'page_url', 'Page URL must be at most 2048 characters'],
    [{ referrer: 'u'.repeat(2049) }, 'referrer', 'Referrer must be at most 2048 characters'],
    [{ locale: 'l'.repeat(36) }, 'locale', 'Locale must be at most 35 characters'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const res = await call(t.app, 'POST', '/api/widget/visitors', { body: { unique_code: owner.widgetKey, ...patch } });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });
});

describe('visitor authentication', () => {
  it.each([
    ['GET', '/api/widget/messages'],
    ['POST', '/api/widget/messages'],
    ['PATCH', '/api/widget/visitor'],
  ] as const)('%s %s needs a visitor token', async (method, url) => {
    const none = await call(t.app, method, url, { body: {} });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'No authentication token found', error: 'No authentication token found' });
    expect((await call(t.app, method, url, { token: 'forged', body: {} })).status).toBe(401);
    // A console token is not a visitor token.
    expect((await call(t.app, method, url, { token: owner.token, body: {} })).status).toBe(401);
  });
});

describe('widget messages', () => {
  it('the first message creates the conversation; each visitor message adds one unread', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    expect(await conversationOf(v.id)).toBeUndefined();
    expect((await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body).toEqual({ message: 'success', data: [], next_cursor: expect.any(String), has_more: false });
    const res = await postForm(t.app, '/api/widget/messages', v.token, { message: ' Hi! ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'success',
      data: {
        id: expect.any(Number),
        visitor_id: v.id,
        message: 'Hi!',
        file_path: '',
        file_name: '',
        file_type: '',
        file_size: 0,
        sender_type: 'visitor',
        author_id: null,
        author_name: null,
        client_id: null,
        created_at: expect.any(String),
      },
    });
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Anyone?' } });
    expect(await conversationOf(v.id)).toMatchObject({ accountId: owner.user.account_id, unreadCount: 2, lastMessage: 'Anyone?', status: 'open' });
  });

  it('the visitor reads their conversation, staff replies included, and since_id gives only newer ones', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'question');
    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'answer' } });
    const all = await call(t.app, 'GET', '/api/widget/messages', { token: v.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((m: { message: string; sender_type: string }) => [m.message, m.sender_type])).toEqual([
      ['question', 'visitor'],
      ['answer', 'user'],
    ]);
    expect(all.body.data[1].author_name).toBe(owner.user.name);
    const since = await call(t.app, 'GET', `/api/widget/messages?since_id=${all.body.data[0].id}`, { token: v.token });
    expect(since.body.data.map((m: { message: string }) => m.message)).toEqual(['answer']);
    const bad = await call(t.app, 'GET', '/api/widget/messages?since_id=x', { token: v.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.since_id).toEqual(['since_id must be a message id']);
  });

  it("a visitor token only reaches that visitor's own conversation", async () => {
    const x = await buildChattingVisitor(t.app, owner.widgetKey, 'from X');
    const y = await buildChattingVisitor(t.app, owner.widgetKey, 'from Y');
    const other = await buildAccount(t.app);
    const z = await buildChattingVisitor(t.app, other.widgetKey, 'from Z');
    const read = async (token: string) => ((await call(t.app, 'GET', '/api/widget/messages', { token })).body.data as { message: string }[]).map((m) => m.message);
    expect(await read(x.token)).toEqual(['from X']);
    expect(await read(y.token)).toEqual(['from Y']);
    expect(await read(z.token)).toEqual(['from Z']);
    // X's token with Y's id in the payload still writes to X's conversation only.
    await call(t.app, 'POST', '/api/widget/messages', { token: x.token, body: { message: 'hi', visitor_id: y.id } });
    expect(await read(y.token)).toEqual(['from Y']);
    expect(await read(x.token)).toEqual(['from X', 'hi']);
  });

  it('stores SQL and HTML text exactly as sent', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const text = `<img src=x onerror=alert(1)> Robert'); DROP TABLE visitors;-- \\ %_ $1`;
    const res = await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: text } });
    expect(res.status).toBe(201);
    expect((await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data[0].message).toBe(text);
  });

  it.each([
    [{}, 'message', 'Message or image is required'],
    [{ message: ' \n ' }, 'message', 'Message or image is required'],
    [{ message: 'x'.repeat(5001) }, 'message', 'Message must be at most 5000 characters'],
    [{ message: 'hi', client_id: '' }, 'client_id', 'client_id must not be empty'],
    [{ message: 'hi', client_id: 'a b' }, 'client_id', 'client_id may only contain letters, digits, - and _'],
  ])('refuses %o with "%s: %s"', async (fields, field, message) => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await postForm(t.app, '/api/widget/messages', v.token, fields);
    expect(res.status).toBe(422);
    // First message only: the shared client_id schema also reports the pattern for ''.
    expect(res.body.errors[field][0]).toBe(message);
    expect(res.body.message).toBe(message);
  });

  it('answers 201 for a new client_id and 200 with the same message for a repeat', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const first = await postForm(t.app, '/api/widget/messages', v.token, { message: 'retry me', client_id: 'w-1' });
    const again = await postForm(t.app, '/api/widget/messages', v.token, { message: 'retry me', client_id: 'w-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    // The repeat changed nothing: still one unread for it.
    expect((await conversationOf(v.id))!.unreadCount).toBe(2);
    // Another visitor may use the same client_id: ids are per conversation.
    const w = await buildVisitor(t.app, owner.widgetKey);
    const theirs = await postForm(t.app, '/api/widget/messages', w.token, { message: 'mine', client_id: 'w-1' });
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(first.body.data.id);
  });

  it('ten concurrent sends with one client_id store one message', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'once', client_id: 'same' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const c = (await conversationOf(v.id))!;
    expect(await db().select().from(messages).where(eq(messages.conversationId, c.id))).toHaveLength(1);
    expect(c.unreadCount).toBe(1);
  });

  it('ten concurrent first messages open one conversation holding all ten', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: `m${i}`, client_id: `c${i}` } })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const all = await db().select().from(conversations).where(eq(conversations.visitorId, v.id));
    expect(all).toHaveLength(1);
    expect(all[0]!.unreadCount).toBe(10);
    expect(await db().select().from(messages).where(eq(messages.conversationId, all[0]!.id))).toHaveLength(10);
  });

  it('sends an image; refuses a non-image (415) and one over 5 MB (413)', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const ok = await postForm(t.app, '/api/widget/messages', v.token, {}, pngPart());
    expect(ok.status).toBe(201);
    expect(ok.body.data.file_path).toMatch(new RegExp(`^${owner.user.account_id}/.+\\.png$`));
    expect((await conversationOf(v.id))!.lastMessage).toBe('[image]');
    const fake = await postForm(t.app, '/api/widget/messages', v.token, {}, { field: 'image', filename: 'a.png', contentType: 'image/png', bytes: Buffer.from('%PDF-1.4 not an image') });
    expect(fake.status).toBe(415);
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(CHAT_IMAGE_MAX_BYTES + 1 - TINY_PNG.length)]);
    const huge = await postForm(t.app, '/api/widget/messages', v.token, { message: 'big' }, pngPart(big));
    expect(huge.status).toBe(413);
    expect(huge.body.message).toBe('Image size should be less than 5MB');
  });
});

describe('PATCH /api/widget/visitor', () => {
  it('updates name and email; a new page counts a page view, the same page does not', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey, { page_url: 'https://shop.example.com/' });
    const before = await visitorRow(v.id);
    const res = await call(t.app, 'PATCH', '/api/widget/visitor', {
      token: v.token,
      body: { name: 'Vera V', email: 'vera@example.com', page_url: 'https://shop.example.com/pricing' },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data).toMatchObject({ id: v.id, name: 'Vera V', email: 'vera@example.com', current_page: 'https://shop.example.com/pricing', page_views: 2 });
    expect(res.body.data).not.toHaveProperty('token_hash');
    expect(new Date(res.body.data.last_seen_at).getTime()).toBeGreaterThanOrEqual(before.lastSeenAt.getTime());
    const same = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { page_url: 'https://shop.example.com/pricing' } });
    expect(same.body.data).toMatchObject({ page_views: 2, name: 'Vera V' });
    const next = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { page_url: 'https://shop.example.com/' } });
    expect(next.body.data.page_views).toBe(3);
  });

  it.each([
    [{ email: 'bad' }, 'email', 'Please enter a valid email address'],
    [{ name: 'n'.repeat(256) }, 'name', 'Name must be at most 255 characters'],
    [{ page_url: 'p'.repeat(2049) }, 'page_url', 'Page URL must be at most 2048 characters'],
  ])('refuses %o with "%s: %s"', async (body, field, message) => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });

  it('refuses fields it does not know (a visitor cannot move to another account)', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { account_id: 'x' } });
    expect(res.status).toBe(422);
    expect((await visitorRow(v.id)).accountId).toBe(owner.user.account_id);
  });
});

describe("the visitor's time zone (issue 16: their local time in the console's side panel)", () => {
  const contextZone = async (visitorId: string) =>
    (await call(t.app, 'GET', `/api/vms/conversations/${visitorId}/context`, { token: owner.token })).body.data.time_zone;

  it('is stored from the widget at creation and on a later PATCH, and the side panel call answers it', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    expect(await contextZone(v.id)).toBe(''); // not reported: the panel shows no local time
    const created = await buildVisitor(t.app, owner.widgetKey, { time_zone: 'Asia/Tokyo' });
    expect((await visitorRow(created.id)).timeZone).toBe('Asia/Tokyo');
    const res = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { time_zone: 'America/New_York' } });
    expect(res.status).toBe(200);
    expect((await visitorRow(v.id)).timeZone).toBe('America/New_York');
    expect(await contextZone(v.id)).toBe('America/New_York');
  });

  it.each(['Mars/Olympus', 'not a zone', 'x'.repeat(65), 42])('refuses %o with a field error and changes nothing', async (zone) => {
    const v = await buildVisitor(t.app, owner.widgetKey, { time_zone: 'Europe/Paris' });
    const patched = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { time_zone: zone } });
    expect(patched.status).toBe(422);
    expect(patched.body.errors.time_zone).toEqual(['Please choose a valid time zone']);
    expect((await visitorRow(v.id)).timeZone).toBe('Europe/Paris');
    const created = await call(t.app, 'POST', '/api/widget/visitors', { body: { unique_code: owner.widgetKey, time_zone: zone } });
    expect(created.status).toBe(422);
    expect(created.body.errors.time_zone).toEqual(['Please choose a valid time zone']);
  });

  it("is the visitor's own: the team's edit of a visitor does not take a time zone", async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'PATCH', `/api/vms/conversations/${v.id}/visitor`, { token: owner.token, body: { time_zone: 'Asia/Tokyo' } });
    expect(res.status).toBe(422);
    expect((await visitorRow(v.id)).timeZone).toBe('');
  });
});

describe('stable error codes in the envelope (issue 13: the widget words them in the visitor\'s language)', () => {
  it('names each refusal a visitor can meet, beside the unchanged English message', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const offline = (body: object) => call(t.app, 'POST', '/api/widget/offline', { token: v.token, body });
    const cases: [Promise<{ status: number; body: { message: string; code?: string } }>, number, string, string][] = [
      [offline({ email: 'nope', message: 'hi' }), 422, 'email_invalid', 'Please enter a valid email address'],
      [offline({ message: 'hi' }), 422, 'email_required', 'The email field is required'],
      [offline({ email: 'a@example.com', message: '  ' }), 422, 'message_required', 'The message field is required'],
      [offline({ email: 'a@example.com', message: 'm'.repeat(5001) }), 422, 'message_too_long', 'Message must be at most 5000 characters'],
      [postForm(t.app, '/api/widget/messages', v.token, { message: ' ' }), 422, 'message_required', 'Message or image is required'],
      [
        postForm(t.app, '/api/widget/messages', v.token, {}, { field: 'image', filename: 'x.png', contentType: 'image/png', bytes: Buffer.from('not an image at all') }),
        415,
        'file_type',
        'Only PNG, JPEG, GIF and WebP images are allowed',
      ],
      [call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { time_zone: 'Mars/Olympus' } }), 422, 'time_zone_invalid', 'Please choose a valid time zone'],
    ];
    for (const [pending, status, code, message] of cases) {
      const res = await pending;
      expect(res.status, code).toBe(status);
      expect(res.body, code).toMatchObject({ message, error: message, code });
    }
  });

  it('gives no code where it has none to give (a field error of its own words only)', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'PATCH', '/api/widget/visitor', { token: v.token, body: { name: 'n'.repeat(256) } });
    expect(res.status).toBe(422);
    expect(res.body).not.toHaveProperty('code');
  });
});

describe('POST /api/widget/events', () => {
  const loadsOf = (accountId: string) => db().select().from(widgetLoads).where(eq(widgetLoads.accountId, accountId));
  const event = (body: Record<string, unknown>) => call(t.app, 'POST', '/api/widget/events', { body });

  it('records loads as Pending, connections as Active and failures as Error', async () => {
    const o = await buildAccount(t.app);
    const key = o.widgetKey;
    expect((await event({ unique_code: key, load_id: 'load-aaaa1', kind: 'load' })).status).toBe(202);
    await event({ unique_code: key, load_id: 'load-bbbb2', kind: 'load' });
    await event({ unique_code: key, load_id: 'load-cccc3', kind: 'load' });
    const res = await event({ unique_code: key, load_id: 'load-aaaa1', kind: 'connect' });
    expect(res).toMatchObject({ status: 202, body: { message: 'success' } });
    await event({ unique_code: key, load_id: 'load-bbbb2', kind: 'error', detail: 'socket refused' });
    // A late or repeated load never downgrades a connected one.
    await event({ unique_code: key, load_id: 'load-aaaa1', kind: 'load' });
    // A connect whose load report was lost still counts.
    await event({ unique_code: key, load_id: 'load-dddd4', kind: 'connect' });

    const rows = await loadsOf(o.user.account_id);
    const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(status).toEqual({ 'load-aaaa1': 'Active', 'load-bbbb2': 'Error', 'load-cccc3': 'Pending', 'load-dddd4': 'Active' });
    const [failed] = await db().select().from(widgetLoads).where(and(eq(widgetLoads.accountId, o.user.account_id), eq(widgetLoads.id, 'load-bbbb2')));
    expect(failed!.detail).toBe('socket refused');
  });

  it('takes the report as text/plain JSON too (no CORS preflight on the host page), under the same JSON rules', async () => {
    const o = await buildAccount(t.app);
    const plain = (payload: string) => t.app.inject({ method: 'POST', url: '/api/widget/events', payload, headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example' } });
    const res = await plain(JSON.stringify({ unique_code: o.widgetKey, load_id: 'load-plain1', kind: 'connect' }));
    expect(res.statusCode).toBe(202);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect((await loadsOf(o.user.account_id)).map((r) => [r.id, r.status])).toEqual([['load-plain1', 'Active']]);
    const broken = await plain('{"unique_code":');
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ message: 'The request body is not valid JSON' });
    // Only this call: the other widget calls still read text/plain as text (refused by their schemas).
    const visitor = await t.app.inject({ method: 'POST', url: '/api/widget/visitors', payload: JSON.stringify({ unique_code: o.widgetKey }), headers: { 'content-type': 'text/plain' } });
    expect(visitor.statusCode).not.toBe(201);
  });

  it('answers 404 for an unknown key and records nothing', async () => {
    const res = await event({ unique_code: 'nope', load_id: 'load-xxxx1', kind: 'load' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Unknown widget');
  });

  it.each([
    [{ kind: 'crash' }, 'kind', 'kind must be load, connect or error'],
    [{ load_id: 'short' }, 'load_id', 'load_id is invalid'],
    [{ load_id: "x'; drop table widget_loads;--" }, 'load_id', 'load_id is invalid'],
    [{ unique_code: '' }, 'unique_code', 'unique_code is required'],
  ])('refuses %o with "%s: %s"', async (patch, field, message) => {
    const res = await event({ unique_code: owner.widgetKey, load_id: 'load-okok1', kind: 'load', ...patch });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
  });
});
