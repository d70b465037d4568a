import { afterEach, describe, expect, it } from 'vitest';
import { visitors } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, type TestOwner } from '../../test/factories.js';
import { connect, connected, emitAck, listen } from '../../test/sockets.js';
import { callFrom } from '../../test/httpFrom.js';
import { statementsOf } from '../../test/statements.js';

/**
 * The widget's public calls are limited per IP, per visitor and per widget key (PRODUCT.md
 * section 11): a refusal is 429 in the envelope with Retry-After, and other IPs, visitors and
 * already-chatting visitors go on. Clients send from distinct 127.0.0.x source addresses.
 */

interface Reply {
  status: number;
  body: any;
  retryAfter: string | undefined;
}

/** A real HTTP call from a chosen local source address. */
async function send(base: string, from: string, method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<Reply> {
  const a = await callFrom(base, from, method, path, opts);
  let body: unknown = a.text;
  try {
    body = JSON.parse(a.text);
  } catch {
    /* not JSON */
  }
  const ra = a.headers['retry-after'];
  return { status: a.status, body, retryAfter: Array.isArray(ra) ? ra[0] : ra };
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(env: Record<string, string>): Promise<{ base: string; owner: TestOwner }> {
  t = await createTestApp(env);
  const base = await listen(t.app);
  return { base, owner: await buildAccount(t.app) };
}

async function newVisitor(base: string, from: string, key: string): Promise<{ id: string; token: string }> {
  const res = await send(base, from, 'POST', '/api/widget/visitors', { body: { unique_code: key, name: 'Flo' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.data.visitor_id, token: res.body.data.visitor_token };
}

/** The statement that asks whether a visitor has a conversation on its own (services/widgetWrites.ts hasConversation). */
const CHAT_CHECK = /^select "id" from "conversations" where "conversations"\."visitor_id" = \$1 limit/;

const expectRefused = (res: Reply, windowSeconds = 60) => {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body).toEqual({ message: 'Too many requests. Please try again later.', error: 'Too many requests. Please try again later.', code: 'rate_limited' });
  expect(Number(res.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(res.retryAfter)).toBeLessThanOrEqual(windowSeconds);
};

describe('widget limits per IP', () => {
  it('answers 429 with Retry-After on every public call once an IP spent its budget; another IP is unaffected', async () => {
    const PER_IP = 4;
    const { base, owner } = await start({ WIDGET_LIMIT_PER_IP: String(PER_IP) });
    const key = owner.widgetKey;
    // Visitors made from their own addresses, so the calls below start with full budgets.
    const people: { id: string; token: string }[] = [];
    for (let i = 0; i < 8; i++) people.push(await newVisitor(base, `127.0.0.${100 + i}`, key));

    type Call = (from: string, i: number) => Promise<Reply>;
    const calls: Record<string, Call> = {
      'create visitor': (from) => send(base, from, 'POST', '/api/widget/visitors', { body: { unique_code: key } }),
      'send message': (from, i) => send(base, from, 'POST', '/api/widget/messages', { token: people[i]!.token, body: { message: 'hi' } }),
      'poll messages': (from, i) => send(base, from, 'GET', '/api/widget/messages', { token: people[i]!.token }),
      'update visitor': (from, i) => send(base, from, 'PATCH', '/api/widget/visitor', { token: people[i]!.token, body: { page_url: 'https://shop.example/a' } }),
      'offline form': (from, i) => send(base, from, 'POST', '/api/widget/offline', { token: people[i]!.token, body: { email: 'flo@example.com', message: 'call me' } }),
      events: (from) => send(base, from, 'POST', '/api/widget/events', { body: { unique_code: key, load_id: 'load-0001', kind: 'load' } }),
      'widget settings': (from) => send(base, from, 'GET', `/api/widget-settings?unique_code=${key}`),
    };
    let n = 0;
    for (const [name, run] of Object.entries(calls)) {
      const flooder = `127.0.0.${10 + n}`;
      const other = `127.0.0.${40 + n}`;
      const i = n++;
      for (let k = 0; k < PER_IP; k++) expect((await run(flooder, i)).status, `${name} #${k}`).toBeLessThan(300);
      expectRefused(await run(flooder, i));
      expect((await run(other, i)).status, `${name} from another IP`).toBeLessThan(300);
    }
  });

  it('limits new visitors per IP and hour', async () => {
    const { base, owner } = await start({ WIDGET_NEW_VISITORS_PER_IP: '3' });
    for (let i = 0; i < 3; i++) await newVisitor(base, '127.0.0.21', owner.widgetKey);
    expectRefused(await send(base, '127.0.0.21', 'POST', '/api/widget/visitors', { body: { unique_code: owner.widgetKey } }), 3600);
    await newVisitor(base, '127.0.0.22', owner.widgetKey);
    expect(await t!.app.db.select().from(visitors)).toHaveLength(4);
  });
});

describe('widget limits per visitor', () => {
  it("counts a visitor's calls over REST whatever its IP; another visitor on the same IP goes on", async () => {
    const { base, owner } = await start({ WIDGET_LIMIT_PER_VISITOR: '3' });
    const a = await newVisitor(base, '127.0.0.31', owner.widgetKey);
    const b = await newVisitor(base, '127.0.0.31', owner.widgetKey);
    // The visitor moves between addresses (a phone on the move): the budget follows it.
    for (const from of ['127.0.0.32', '127.0.0.33', '127.0.0.34']) {
      expect((await send(base, from, 'POST', '/api/widget/messages', { token: a.token, body: { message: `from ${from}` } })).status).toBe(201);
    }
    expectRefused(await send(base, '127.0.0.35', 'POST', '/api/widget/messages', { token: a.token, body: { message: 'one too many' } }));
    expect((await send(base, '127.0.0.32', 'POST', '/api/widget/messages', { token: b.token, body: { message: 'me too' } })).status).toBe(201);
    const stored = await send(base, '127.0.0.36', 'GET', `/api/vms/messages/${a.id}`, { token: owner.token });
    expect(stored.body.data.map((m: { message: string }) => m.message)).not.toContain('one too many');
  });
});

describe('widget limits per widget key', () => {
  it('stops new visitors and load events on a key at its ceiling, but never a visitor already chatting', async () => {
    const { base, owner } = await start({ WIDGET_LIMIT_PER_KEY: '4' });
    const key = owner.widgetKey;
    const chatting = await newVisitor(base, '127.0.0.51', key);
    expect((await send(base, '127.0.0.51', 'POST', '/api/widget/messages', { token: chatting.token, body: { message: 'hello' } })).status).toBe(201);
    // Other addresses use up the key: new visitors and load events.
    await newVisitor(base, '127.0.0.52', key);
    await newVisitor(base, '127.0.0.53', key);
    expect((await send(base, '127.0.0.54', 'POST', '/api/widget/events', { body: { unique_code: key, load_id: 'load-0002', kind: 'load' } })).status).toBe(202);
    expectRefused(await send(base, '127.0.0.55', 'POST', '/api/widget/visitors', { body: { unique_code: key } }));
    expectRefused(await send(base, '127.0.0.56', 'POST', '/api/widget/events', { body: { unique_code: key, load_id: 'load-0003', kind: 'load' } }));
    // Another account's key is its own.
    const other = await buildAccount(t!.app, { email: 'other@example.com' });
    await newVisitor(base, '127.0.0.57', other.widgetKey);
    // The chatting visitor goes on: messages, polls, page changes, the offline form, the settings.
    for (let i = 0; i < 5; i++) {
      expect((await send(base, '127.0.0.51', 'POST', '/api/widget/messages', { token: chatting.token, body: { message: `more ${i}` } })).status).toBe(201);
    }
    expect((await send(base, '127.0.0.51', 'GET', '/api/widget/messages', { token: chatting.token })).status).toBe(200);
    expect((await send(base, '127.0.0.51', 'PATCH', '/api/widget/visitor', { token: chatting.token, body: { page_url: 'https://shop.example/b' } })).status).toBe(200);
    expect((await send(base, '127.0.0.51', 'GET', `/api/widget-settings?unique_code=${key}`)).status).toBe(200);
  });
});

describe('widget burst buckets (REST)', () => {
  it("cuts a visitor's burst of sends with 429 and Retry-After, stores only what was admitted, and passes paced sends", async () => {
    const { base, owner } = await start({ WIDGET_BURST_PER_VISITOR: '3' });
    const v = await newVisitor(base, '127.0.0.61', owner.widgetKey);
    await new Promise((r) => setTimeout(r, 1100)); // the visitor's creation calls refilled
    const t0 = Date.now();
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(base, '127.0.0.61', 'POST', '/api/widget/messages', { token: v.token, body: { message: `burst ${i}` } })),
    );
    const seconds = (Date.now() - t0) / 1000;
    const admitted = burst.filter((r) => r.status === 201).length;
    expect(admitted).toBeGreaterThanOrEqual(3);
    // 3 at once, plus the refill (3 a second) while the 20 calls arrived.
    expect(admitted).toBeLessThanOrEqual(3 + Math.ceil(3 * seconds));
    expect(admitted).toBeLessThan(20);
    for (const r of burst.filter((x) => x.status !== 201)) expectRefused(r, 1);
    const stored = await send(base, '127.0.0.62', 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    expect(stored.body.data).toHaveLength(admitted);
    // A person's pace (a message every 400 ms) is never cut.
    await new Promise((r) => setTimeout(r, 1100));
    for (let i = 0; i < 6; i++) {
      expect((await send(base, '127.0.0.61', 'POST', '/api/widget/messages', { token: v.token, body: { message: `paced ${i}` } })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 400));
    }
  }, 90_000);
});

describe('new chats per account', () => {
  it("refuses an account's new chats past its budget with 429 and Retry-After (REST, offline form, socket), never a visitor already chatting, nor another account", async () => {
    const { base, owner } = await start({ WIDGET_NEW_CHATS_PER_ACCOUNT: '3', WIDGET_NEW_CHATS_BURST: '3' });
    const key = owner.widgetKey;
    const chatting = await newVisitor(base, '127.0.0.81', key);
    expect((await send(base, '127.0.0.81', 'POST', '/api/widget/messages', { token: chatting.token, body: { message: 'hello' } })).status).toBe(201);
    // Two more new chats from other addresses: one by message, one by the offline form.
    const second = await newVisitor(base, '127.0.0.82', key);
    expect((await send(base, '127.0.0.82', 'POST', '/api/widget/messages', { token: second.token, body: { message: 'hi' } })).status).toBe(201);
    const third = await newVisitor(base, '127.0.0.83', key);
    expect((await send(base, '127.0.0.83', 'POST', '/api/widget/offline', { token: third.token, body: { email: 'third@example.com', message: 'call me' } })).status).toBe(201);

    // The account's budget is spent: a fourth visitor's first message and offline form are refused, and nothing is stored.
    const fourth = await newVisitor(base, '127.0.0.84', key);
    // Whether the visitor is chatting came with its token's statement: none of its own (nor for a refusal).
    const refused = await statementsOf(t!.app, CHAT_CHECK, () => send(base, '127.0.0.84', 'POST', '/api/widget/messages', { token: fourth.token, body: { message: 'anyone?' } }), 'sql');
    expectRefused(refused.result);
    expect(refused.statements).toBe(0);
    expectRefused(await send(base, '127.0.0.84', 'POST', '/api/widget/offline', { token: fourth.token, body: { email: 'four@example.com', message: 'call me' } }));
    expect((await send(base, '127.0.0.84', 'GET', '/api/widget/messages', { token: fourth.token })).body.data).toEqual([]);
    // Over a socket too: the ack carries 429 and retry_after.
    const socket = connect(base, { widget_key: key, visitor_token: fourth.token });
    try {
      await connected(socket);
      const ack = await emitAck(socket, 'message.send', { message: 'anyone?', client_id: 'n1' });
      expect(ack).toMatchObject({ ok: false, status: 429, message: 'Too many requests. Please try again later.' });
      expect(ack.retry_after).toBeGreaterThanOrEqual(1);
    } finally {
      socket.close();
    }

    // Visitors already chatting go on: messages, and the offline form of a chat under way.
    for (let i = 0; i < 5; i++) {
      const more = await statementsOf(t!.app, CHAT_CHECK, () => send(base, '127.0.0.81', 'POST', '/api/widget/messages', { token: chatting.token, body: { message: `more ${i}` } }), 'sql');
      expect(more.result.status).toBe(201);
      expect(more.statements).toBe(0);
    }
    expect((await send(base, '127.0.0.83', 'POST', '/api/widget/offline', { token: third.token, body: { email: 'third@example.com', message: 'again' } })).status).toBe(201);
    // Another account's budget is its own.
    const other = await buildAccount(t!.app, { email: 'other-chats@example.com' });
    const elsewhere = await newVisitor(base, '127.0.0.85', other.widgetKey);
    expect((await send(base, '127.0.0.85', 'POST', '/api/widget/messages', { token: elsewhere.token, body: { message: 'hello' } })).status).toBe(201);
  }, 90_000);

  it('takes a burst of new chats at once, then refills at the minute\'s rate', async () => {
    // 120 a minute, 2 at once: the bucket refills a token every 500 ms.
    const { base, owner } = await start({ WIDGET_NEW_CHATS_PER_ACCOUNT: '120', WIDGET_NEW_CHATS_BURST: '2' });
    const vs: { id: string; token: string }[] = [];
    for (let i = 0; i < 4; i++) vs.push(await newVisitor(base, `127.0.0.9${i}`, owner.widgetKey));
    await new Promise((r) => setTimeout(r, 1100)); // full bucket
    const first = (i: number) => send(base, `127.0.0.9${i}`, 'POST', '/api/widget/messages', { token: vs[i]!.token, body: { message: 'hi' } });
    expect((await first(0)).status).toBe(201);
    expect((await first(1)).status).toBe(201);
    const refused = await first(2);
    // Refused unless a token came back meanwhile (a slow machine); its wait is the next token's, about a second.
    if (refused.status !== 201) expectRefused(refused, 1);
    await new Promise((r) => setTimeout(r, 600));
    expect((await first(3)).status).toBe(201);
  }, 90_000);
});
