import fs from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_IMAGE_MAX_BYTES } from '@parley/shared';
import { conversations, messages } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { TINY_PNG, assignConversation, buildChattingVisitor, buildVisitor, pngPart, postForm } from '../../test/chatFactories.js';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const rowsOf = (conversationId: number) =>
  t.app.database.db.select().from(messages).where(eq(messages.conversationId, conversationId));
const conversationOf = async (visitorId: string) =>
  (await t.app.database.db.select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0]!;

describe('authentication', () => {
  it.each([
    ['GET', '/api/vms/conversations'],
    ['GET', '/api/vms/messages/00000000-0000-0000-0000-000000000000'],
    ['POST', '/api/vms/messages'],
  ] as const)('%s %s needs a token', async (method, url) => {
    const none = await call(t.app, method, url);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'No authentication token found', error: 'No authentication token found' });
    expect((await call(t.app, method, url, { token: 'forged' })).status).toBe(401);
  });
});

describe('GET /api/vms/conversations', () => {
  it('lists the account conversations newest first with the visitor name and email', async () => {
    const o = await buildAccount(t.app);
    const first = await buildVisitor(t.app, o.widgetKey, { name: 'Ann', email: 'ann@example.com' });
    await call(t.app, 'POST', '/api/widget/messages', { token: first.token, body: { message: 'first' } });
    const second = await buildChattingVisitor(t.app, o.widgetKey, 'second', '');
    await buildVisitor(t.app, o.widgetKey); // no conversation: not listed
    const res = await call(t.app, 'GET', '/api/vms/conversations', { token: o.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data.map((c: { visitor_id: string }) => c.visitor_id)).toEqual([second.id, first.id]);
    expect(res.body.data[1]).toEqual({
      id: expect.any(Number),
      visitor_id: first.id,
      visitor_name: 'Ann',
      visitor_email: 'ann@example.com',
      last_message: 'first',
      last_message_at: expect.any(String),
      status: 'open',
      snoozed_until: null,
      opened_at: expect.any(String),
      resolved_at: null,
      assignee_id: null,
      assignee_name: null,
      unread_count: 1,
      created_at: expect.any(String),
      waiting_since: expect.any(String),
      visitor_seen_id: null,
      labels: [],
    });
    expect(res.body.data[0]).toMatchObject({ visitor_name: '', visitor_email: '' });
    // Another account sees none of them.
    expect((await call(t.app, 'GET', '/api/vms/conversations', { token: owner.token })).body.data.map((c: { visitor_id: string }) => c.visitor_id)).not.toContain(first.id);
  });

  it('puts conversations without a message last', async () => {
    const o = await buildAccount(t.app);
    const chatting = await buildChattingVisitor(t.app, o.widgetKey);
    const silent = await buildVisitor(t.app, o.widgetKey);
    await t.app.database.db.insert(conversations).values({ accountId: o.user.account_id, visitorId: silent.id });
    const res = await call(t.app, 'GET', '/api/vms/conversations', { token: o.token });
    expect(res.body.data.map((c: { visitor_id: string }) => c.visitor_id)).toEqual([chatting.id, silent.id]);
    expect(res.body.data[1].last_message_at).toBeNull();
  });
});

describe('Agent scoping', () => {
  it('an Agent sees unassigned and own conversations only; others answer 404', async () => {
    const o = await buildAccount(t.app);
    const agent = await buildMember(t.app, o, 'Agent');
    const other = await buildMember(t.app, o, 'Agent');
    const admin = await buildMember(t.app, o, 'Admin');
    const unassigned = await buildChattingVisitor(t.app, o.widgetKey, 'u');
    const mine = await buildChattingVisitor(t.app, o.widgetKey, 'm');
    const theirs = await buildChattingVisitor(t.app, o.widgetKey, 't');
    await assignConversation(t.app, mine.id, agent.id);
    await assignConversation(t.app, theirs.id, other.id);

    const ids = async (token: string) =>
      ((await call(t.app, 'GET', '/api/vms/conversations', { token })).body.data as { visitor_id: string }[]).map((c) => c.visitor_id).sort();
    expect(await ids(agent.token)).toEqual([unassigned.id, mine.id].sort());
    expect(await ids(admin.token)).toEqual([unassigned.id, mine.id, theirs.id].sort());
    expect(await ids(o.token)).toEqual([unassigned.id, mine.id, theirs.id].sort());

    expect((await call(t.app, 'GET', `/api/vms/messages/${mine.id}`, { token: agent.token })).status).toBe(200);
    expect((await call(t.app, 'GET', `/api/vms/messages/${unassigned.id}`, { token: agent.token })).status).toBe(200);
    const hidden = await call(t.app, 'GET', `/api/vms/messages/${theirs.id}`, { token: agent.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toBe('Visitor not found');
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: agent.token, body: { visitor_id: theirs.id, message: 'hi' } });
    expect(reply.status).toBe(404);
    expect((await call(t.app, 'GET', `/api/vms/messages/${theirs.id}`, { token: admin.token })).status).toBe(200);
  });
});

describe('assignee names (the dashboard\'s Agent column)', () => {
  it("lists each conversation with its assignee's name, null when unassigned", async () => {
    const o = await buildAccount(t.app);
    const agent = await buildMember(t.app, o, 'Agent', { name: 'Nia Named' });
    const assigned = await buildChattingVisitor(t.app, o.widgetKey, 'a');
    const free = await buildChattingVisitor(t.app, o.widgetKey, 'f');
    await assignConversation(t.app, assigned.id, agent.id);
    const list = (await call(t.app, 'GET', '/api/vms/conversations', { token: o.token })).body.data as { visitor_id: string; assignee_name: string | null }[];
    expect(list.find((c) => c.visitor_id === assigned.id)?.assignee_name).toBe('Nia Named');
    expect(list.find((c) => c.visitor_id === free.id)?.assignee_name).toBeNull();
  });
});

describe('GET /api/vms/messages/:visitor_id', () => {
  it('answers the messages ascending, only newer ones with since_id, and marks the conversation read', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'one');
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'two' } });
    expect((await conversationOf(v.id)).unreadCount).toBe(2);
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'three' } });
    expect(reply.status).toBe(201);

    const all = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.body.message).toBe('success');
    expect(all.body.data.map((m: { message: string }) => m.message)).toEqual(['one', 'two', 'three']);
    expect(all.body.data[0]).toEqual({
      id: expect.any(Number),
      visitor_id: v.id,
      message: 'one',
      file_path: '',
      file_name: '',
      file_type: '',
      file_size: 0,
      sender_type: 'visitor',
      author_id: null,
      author_name: null,
      client_id: null,
      created_at: expect.any(String),
    });
    expect(all.body.data[2]).toMatchObject({ sender_type: 'user', author_id: owner.user.id, author_name: owner.user.name });
    expect((await conversationOf(v.id)).unreadCount).toBe(0);

    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'four' } });
    const since = await call(t.app, 'GET', `/api/vms/messages/${v.id}?since_id=${all.body.data[1].id}`, { token: owner.token });
    expect(since.body.data.map((m: { message: string }) => m.message)).toEqual(['three', 'four']);
    // A poll does not mark the conversation read; only opening it does.
    expect((await conversationOf(v.id)).unreadCount).toBe(1);
  });

  it('answers an empty list for a visitor without a conversation', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'success', data: [], next_cursor: expect.any(String), has_more: false });
  });

  it.each(['not-a-uuid', "1' OR '1'='1", '00000000-0000-0000-0000-000000000000', '%00'])('answers 404 for the id %s', async (id) => {
    const res = await call(t.app, 'GET', `/api/vms/messages/${encodeURIComponent(id)}`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body.error).toBeTypeOf('string');
  });

  it("answers 404 for another account's visitor", async () => {
    const other = await buildAccount(t.app);
    const v = await buildChattingVisitor(t.app, other.widgetKey);
    const res = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Visitor not found', error: 'Visitor not found' });
  });

  it.each(['abc', '-1', '1.5', '1e400', '99999999999999999999'])('refuses since_id=%s with 422', async (since) => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'GET', `/api/vms/messages/${v.id}?since_id=${since}`, { token: owner.token });
    expect(res.status).toBe(422);
    expect(res.body.errors.since_id).toBeDefined();
  });
});

describe('POST /api/vms/messages', () => {
  it('sends a text reply as multipart; the conversation shows it and is read', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: '  Hi, how can I help?  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'success',
      data: expect.objectContaining({ message: 'Hi, how can I help?', sender_type: 'user', visitor_id: v.id, author_id: owner.user.id, file_path: '' }),
    });
    const c = await conversationOf(v.id);
    expect(c.lastMessage).toBe('Hi, how can I help?');
    expect(c.unreadCount).toBe(0);
  });

  it('starts the conversation when the visitor has none yet', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Welcome!' } });
    expect(res.status).toBe(201);
    const c = await conversationOf(v.id);
    expect(c).toMatchObject({ accountId: owner.user.account_id, lastMessage: 'Welcome!', unreadCount: 0 });
  });

  it('stores SQL and HTML text exactly as sent', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const text = `<script>alert('x')</script> '; DROP TABLE messages; -- "quoted" & ünïcödé 🎉`;
    const res = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: text } });
    expect(res.body.data.message).toBe(text);
    const list = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    expect(list.body.data.at(-1).message).toBe(text);
  });

  it.each([
    [{ message: 'hi' }, 'visitor_id', 'Please select a conversation'],
    [{ visitor_id: '   ', message: 'hi' }, 'visitor_id', 'Please select a conversation'],
    [{ visitor_id: 'V' }, 'message', 'Message or image is required'],
    [{ visitor_id: 'V', message: '   ' }, 'message', 'Message or image is required'],
    [{ visitor_id: 'V', message: 'x'.repeat(5001) }, 'message', 'Message must be at most 5000 characters'],
    [{ visitor_id: 'V', message: 'hi', client_id: 'bad id!' }, 'client_id', 'client_id may only contain letters, digits, - and _'],
    [{ visitor_id: 'V', message: 'hi', client_id: 'x'.repeat(65) }, 'client_id', 'client_id must be at most 64 characters'],
  ])('refuses %o with "%s: %s"', async (fields, field, message) => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const body = Object.fromEntries(Object.entries(fields).map(([k, val]) => [k, val === 'V' ? v.id : val]));
    const res = await postForm(t.app, '/api/vms/messages', owner.token, body);
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
    expect(res.body.message).toBe(message);
  });

  it('answers 422, not 500, for a JSON object smuggled in as visitor_id', async () => {
    const res = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: { $ne: null }, message: 'hi' } });
    expect(res.status).toBe(422);
    expect(res.body.errors.visitor_id).toEqual(['visitor_id must be text']);
  });

  it("answers 404 for another account's visitor, an unknown one and a malformed id", async () => {
    const other = await buildAccount(t.app);
    const foreign = await buildChattingVisitor(t.app, other.widgetKey);
    for (const id of [foreign.id, '00000000-0000-0000-0000-000000000000', 'nope']) {
      const res = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: id, message: 'hi' } });
      expect(res.status).toBe(404);
    }
    const list = await call(t.app, 'GET', `/api/vms/messages/${foreign.id}`, { token: other.token });
    expect(list.body.data).toHaveLength(1);
  });

  it('returns the same stored message for a repeated client_id, never a second row', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const fields = { visitor_id: v.id, message: 'only once', client_id: 'console-abc_123' };
    const first = await postForm(t.app, '/api/vms/messages', owner.token, fields);
    const again = await postForm(t.app, '/api/vms/messages', owner.token, fields);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(first.body.data.client_id).toBe('console-abc_123');
    const c = await conversationOf(v.id);
    expect((await rowsOf(c.id)).filter((m) => m.clientId === 'console-abc_123')).toHaveLength(1);
  });

  it('keeps one row when ten sends with one client_id race', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const sends = Array.from({ length: 10 }, () =>
      call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'race', client_id: 'race-1' } }),
    );
    const results = await Promise.all(sends);
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const c = await conversationOf(v.id);
    expect(await rowsOf(c.id)).toHaveLength(1);
  });
});

describe('images', () => {
  it('stores a real PNG and serves it from /storage/<file_path>', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id }, pngPart());
    expect(res.status).toBe(201);
    const path: string = res.body.data.file_path;
    expect(path).toMatch(new RegExp(`^${owner.user.account_id}/[A-Za-z0-9_-]+\\.png$`));
    expect(res.body.data.message).toBe('');
    expect((await conversationOf(v.id)).lastMessage).toBe('[image]');
    expect(await fs.readFile(t.app.storage.fullPath(path))).toEqual(TINY_PNG);
    const served = await t.app.inject({ method: 'GET', url: `/storage/${path}` });
    expect(served.statusCode).toBe(200);
    expect(served.headers['x-content-type-options']).toBe('nosniff');
  });

  it('keeps text and image together', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: 'look' }, pngPart());
    expect(res.body.data).toMatchObject({ message: 'look', file_path: expect.stringMatching(/\.png$/) });
  });

  it.each([
    ['a text file renamed .png', Buffer.from('just some text, not an image'), 'notes.png', 'image/png'],
    ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'x.svg', 'image/svg+xml'],
  ])('refuses %s with 415', async (_label, bytes, filename, contentType) => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: 'x' }, { field: 'image', filename, contentType, bytes });
    expect(res.status).toBe(415);
    expect(res.body.message).toBe('Only PNG, JPEG, GIF and WebP images are allowed');
  });

  it('refuses an image over 5 MB with 413 and the documented message', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(CHAT_IMAGE_MAX_BYTES + 1 - TINY_PNG.length)]);
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id }, pngPart(big));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ message: 'Image size should be less than 5MB', errors: { image: ['Image size should be less than 5MB'] } });
  });

  it('accepts an image of exactly 5 MB', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const exact = Buffer.concat([TINY_PNG, Buffer.alloc(CHAT_IMAGE_MAX_BYTES - TINY_PNG.length)]);
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id }, pngPart(exact));
    expect(res.status).toBe(201);
  });

  it('a disabled user cannot attach an image (403) but can send text', async () => {
    const disabled = await buildMember(t.app, owner, 'Admin', { status: 'disabled' });
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const image = await postForm(t.app, '/api/vms/messages', disabled.token, { visitor_id: v.id, message: 'see' }, pngPart());
    expect(image.status).toBe(403);
    expect(image.body.message).toBe('You do not have permission to do this');
    const text = await postForm(t.app, '/api/vms/messages', disabled.token, { visitor_id: v.id, message: 'text is fine' });
    expect(text.status).toBe(201);
    const c = await conversationOf(v.id);
    expect((await rowsOf(c.id)).map((m) => m.message)).toEqual(['Hello there', 'text is fine']);
  });
});

describe('OpenAPI', () => {
  it('documents the chat and widget calls', async () => {
    const res = await call(t.app, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/vms/conversations',
        '/api/vms/messages/{visitor_id}',
        '/api/vms/messages',
        '/api/vms/visitor',
        '/api/widget/visitors',
        '/api/widget/messages',
        '/api/widget/visitor',
        '/api/widget/events',
      ]),
    );
  });
});
