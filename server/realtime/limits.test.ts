import { Manager, io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENTS, type MessageDto } from '@parley/shared';
import { NUL_MESSAGE } from '../plugins/bodyParsers.js';
import { TOO_MANY_CONNECTIONS, TOO_MANY_REQUESTS } from '../services/rateLimit.js';
import { callFrom } from '../test/httpFrom.js';
import { HANDSHAKE_REFUSALS_BEFORE_GATE } from './auth.js';
import { buildVisitor, type TestVisitor } from '../test/chatFactories.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { connected, emitAck, listen, silence } from '../test/sockets.js';

/**
 * Widget sockets (PRODUCT.md section 11 "Limits"): a few live sockets per visitor and per IP
 * (the widget polls beyond them), events counted per visitor and IP across all their sockets,
 * one push per socket per stored message, and junk answered like REST.
 */

let t: TestApp | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  await t?.close();
  t = undefined;
});

let base: string;
let owner: TestOwner;
async function start(env: Record<string, string>): Promise<TestApp> {
  t = await createTestApp(env);
  base = await listen(t.app);
  owner = await buildAccount(t.app);
  return t;
}

/** A widget socket from a chosen 127.0.0.x source address (or behind a proxy, `forwardedFor`). */
function widget(visitor: TestVisitor, from = '127.0.0.1', forwardedFor?: string): Socket {
  const s = io(base, {
    auth: { widget_key: owner.widgetKey, visitor_token: visitor.token },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    localAddress: from,
    ...(forwardedFor ? { extraHeaders: { 'x-forwarded-for': forwardedFor } } : {}),
  } as Parameters<typeof io>[1]);
  sockets.push(s);
  return s;
}
const agent = async () => {
  const s = io(base, { auth: { token: owner.token }, transports: ['websocket'], reconnection: false, forceNew: true });
  sockets.push(s);
  await connected(s);
  return s;
};

type ConnectError = { message: string; data?: { status?: number; message?: string } };
async function refused(s: Socket): Promise<ConnectError> {
  const outcome = await connected(s).then(
    () => undefined,
    (err: ConnectError) => err,
  );
  if (!outcome) throw new Error('the socket was accepted');
  return outcome;
}

describe('widget socket caps', () => {
  it("refuses a visitor's socket beyond the cap with 429 and a clear message; a closed socket frees its slot", async () => {
    const app = (await start({ WIDGET_SOCKETS_PER_VISITOR: '2' })).app;
    const visitor = await buildVisitor(app, owner.widgetKey);
    const first = widget(visitor);
    await connected(first);
    await connected(widget(visitor));
    const err = await refused(widget(visitor));
    expect(err.message).toBe(TOO_MANY_CONNECTIONS);
    expect(err.data).toEqual({ status: 429, message: TOO_MANY_CONNECTIONS });
    // Another visitor is not affected.
    await connected(widget(await buildVisitor(app, owner.widgetKey)));
    first.close();
    // The server frees the slot when it sees the close.
    let again: Socket | undefined;
    for (let i = 0; i < 20 && !again; i++) {
      const s = widget(visitor);
      again = await connected(s).then(
        () => s,
        () => undefined,
      );
      if (!again) await new Promise((r) => setTimeout(r, 100));
    }
    expect(again?.connected).toBe(true);
  });

  it('refuses over-cap handshakes, per visitor and per IP, without reading the database', async () => {
    const app = (await start({ WIDGET_SOCKETS_PER_VISITOR: '2', WIDGET_SOCKETS_PER_IP: '3' })).app;
    const [v1, v2] = [await buildVisitor(app, owner.widgetKey), await buildVisitor(app, owner.widgetKey)];
    await connected(widget(v1, '127.0.0.63'));
    await connected(widget(v1, '127.0.0.63'));
    await connected(widget(v2, '127.0.0.63'));
    // Database statements sent by the handshake (the server's background work reads meanwhile),
    // counted at the driver: the handshake's statement is a prepared one, built once.
    let handshakeReads = 0;
    const client = (app.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
    const query = client.query.bind(client);
    const reads = vi.spyOn(client, 'query').mockImplementation((...args: unknown[]) => {
      const depth = Error.stackTraceLimit;
      Error.stackTraceLimit = 50; // the driver's frames come first
      if (new Error().stack?.includes('authenticateSocket')) handshakeReads++;
      Error.stackTraceLimit = depth;
      return query(...args);
    });
    for (let i = 0; i < 5; i++) {
      expect((await refused(widget(v1, '127.0.0.64'))).data).toEqual({ status: 429, message: TOO_MANY_CONNECTIONS }); // the visitor's cap
      expect((await refused(widget(v2, '127.0.0.63'))).data).toEqual({ status: 429, message: TOO_MANY_CONNECTIONS }); // the IP's cap
    }
    expect(handshakeReads).toBe(0);
    // A refused handshake holds no slot: v2 connects from elsewhere (reading its visitor).
    await connected(widget(v2, '127.0.0.64'));
    expect(handshakeReads).toBeGreaterThan(0);
    reads.mockRestore();
    // Bad tokens are still 401 and give their slots back (four of them from an IP with a cap of three).
    for (let i = 0; i < 4; i++) {
      expect((await refused(widget({ ...v2, token: `not-a-token-${i}` }, '127.0.0.65'))).data).toEqual({ status: 401, message: 'Unauthenticated' });
    }
    await connected(widget(await buildVisitor(app, owner.widgetKey), '127.0.0.65'));
  });

  it('refuses sockets from one IP beyond its cap; another IP still connects', async () => {
    const app = (await start({ WIDGET_SOCKETS_PER_IP: '3' })).app;
    const visitors = await Promise.all([1, 2, 3, 4].map(() => buildVisitor(app, owner.widgetKey)));
    for (const v of visitors.slice(0, 3)) await connected(widget(v, '127.0.0.61'));
    const err = await refused(widget(visitors[3]!, '127.0.0.61'));
    expect(err.data).toEqual({ status: 429, message: TOO_MANY_CONNECTIONS });
    await connected(widget(visitors[3]!, '127.0.0.62'));
  });

  it('refuses the handshakes of an address the caps keep refusing before the WebSocket upgrade: no engine.io connection is opened', async () => {
    const app = (await start({ WIDGET_SOCKETS_PER_VISITOR: '1' })).app;
    const visitor = await buildVisitor(app, owner.widgetKey);
    const from = '127.0.0.81';
    await connected(widget(visitor, from));
    let opened = 0;
    const beforeUpgrade: string[] = [];
    app.io.engine.on('connection', () => opened++);
    app.io.engine.on('connection_error', (e: { context?: { message?: string } }) => beforeUpgrade.push(String(e.context?.message)));
    // Refused by the visitor's cap after the upgrade, as before, until the address has been refused enough.
    for (let i = 0; i < HANDSHAKE_REFUSALS_BEFORE_GATE; i++) expect((await refused(widget(visitor, from))).data).toEqual({ status: 429, message: TOO_MANY_CONNECTIONS });
    expect(opened).toBe(HANDSHAKE_REFUSALS_BEFORE_GATE);
    expect(beforeUpgrade).toEqual([]);
    // Then refused before the upgrade: the client sees its WebSocket fail, the server opened nothing.
    for (let i = 0; i < 5; i++) expect((await refused(widget(visitor, from))).message).toBe('websocket error');
    expect(opened).toBe(HANDSHAKE_REFUSALS_BEFORE_GATE);
    expect(beforeUpgrade).toEqual(Array(5).fill(TOO_MANY_CONNECTIONS));
    // Engine.IO's polling handshake too, in its own error shape.
    const poll = await callFrom(base, from, 'GET', '/socket.io/?EIO=4&transport=polling');
    expect(poll.status).toBe(403);
    expect(JSON.parse(poll.text)).toMatchObject({ message: TOO_MANY_CONNECTIONS });
    expect(opened).toBe(HANDSHAKE_REFUSALS_BEFORE_GATE);
    // Other addresses are not affected: another visitor connects from elsewhere.
    await connected(widget(await buildVisitor(app, owner.widgetKey), '127.0.0.82'));
    expect(opened).toBe(HANDSHAKE_REFUSALS_BEFORE_GATE + 1);
  });

  it('refuses the handshakes of an address with too many upgraded and not yet answered before their upgrade; an answer or a closed connection frees a place', async () => {
    const app = (await start({ SOCKET_HANDSHAKES_PER_IP: '2', REFUSAL_PAUSE_MS: '300' })).app;
    const from = '127.0.0.85';
    // Upgraded, then quiet: no CONNECT packet, as a flooder's burst is until the node answers it.
    const quiet = () =>
      new Promise<Manager>((resolve, reject) => {
        const m = new Manager(base, { transports: ['websocket'], reconnection: false, autoConnect: false, localAddress: from } as ConstructorParameters<typeof Manager>[1]);
        m.open((err) => (err ? reject(err) : resolve(m)));
      });
    const first = await quiet();
    const second = await quiet();
    let opened = 0;
    app.io.engine.on('connection', () => opened++);
    const visitors = await Promise.all([1, 2, 3].map(() => buildVisitor(app, owner.widgetKey)));
    expect((await refused(widget(visitors[0]!, from))).message).toBe('websocket error');
    await expect(quiet()).rejects.toThrow();
    expect(opened).toBe(0);
    // Another address is not affected.
    await connected(widget(visitors[0]!, '127.0.0.86'));
    first.engine.close();
    second.engine.close();
    await vi.waitFor(async () => {
      const s = widget(visitors[0]!, from);
      await connected(s);
    }, { timeout: 5000, interval: 100 });
    // Answered handshakes give their place back: more sockets than places, one after another.
    for (const v of visitors.slice(1)) await connected(widget(v, from));
  });

  it('refuses the handshakes of an address whose widget budget is spent before the WebSocket upgrade', async () => {
    const app = (await start({ WIDGET_LIMIT_PER_IP: '3', WIDGET_BURST_PER_IP: '100', REFUSAL_PAUSE_MS: '600' })).app;
    const visitor = await buildVisitor(app, owner.widgetKey);
    const from = '127.0.0.83';
    for (let i = 0; i < 3; i++) expect((await callFrom(base, from, 'GET', '/api/widget/messages', { token: visitor.token })).status).toBe(200);
    expect((await callFrom(base, from, 'GET', '/api/widget/messages', { token: visitor.token })).status).toBe(429); // this node learns the IP is spent
    let opened = 0;
    app.io.engine.on('connection', () => opened++);
    expect((await refused(widget(visitor, from))).message).toBe('websocket error');
    // Each refusal is answered a while later (plugins/refusalHolds.ts): a flooding client's next try waits for it.
    const asked = performance.now();
    const poll = await callFrom(base, from, 'GET', '/socket.io/?EIO=4&transport=polling');
    expect([poll.status, JSON.parse(poll.text).message]).toEqual([403, TOO_MANY_REQUESTS]);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(550);
    expect(opened).toBe(0);
    const elsewhere = performance.now();
    await connected(widget(visitor, '127.0.0.84'));
    expect(performance.now() - elsewhere).toBeLessThan(550);
    expect(opened).toBe(1);
  });

  it('behind a trusted proxy, counts the forwarded client address (an IPv6 /64 as one)', async () => {
    const app = (await start({ WIDGET_SOCKETS_PER_IP: '2', TRUST_PROXY: 'true' })).app;
    const visitors = await Promise.all([1, 2, 3, 4].map(() => buildVisitor(app, owner.widgetKey)));
    await connected(widget(visitors[0]!, '127.0.0.1', '2001:db8:5:6::1'));
    await connected(widget(visitors[1]!, '127.0.0.1', '2001:db8:5:6::2'));
    expect((await refused(widget(visitors[2]!, '127.0.0.1', '2001:db8:5:6::3'))).data?.status).toBe(429);
    await connected(widget(visitors[2]!, '127.0.0.1', '203.0.113.9'));
    await connected(widget(visitors[3]!, '127.0.0.1', '2001:db8:5:7::1'));
  });
});

describe('widget socket events', () => {
  it("count against the visitor over all its sockets and its REST calls; a refusal's ack carries retry_after", async () => {
    const app = (await start({ WIDGET_LIMIT_PER_VISITOR: '4' })).app;
    const visitor = await buildVisitor(app, owner.widgetKey);
    const [a, b] = [widget(visitor), widget(visitor)];
    await Promise.all([connected(a), connected(b)]);
    for (let i = 0; i < 4; i++) {
      const ack = await emitAck(i % 2 ? b : a, EVENTS.messageSend, { message: `m${i}`, client_id: `c${i}` });
      expect(ack.ok, JSON.stringify(ack)).toBe(true);
    }
    const over = await emitAck(b, EVENTS.messageSend, { message: 'too many', client_id: 'c-over' });
    expect(over).toMatchObject({ ok: false, status: 429, message: 'Too many requests. Please try again later.' });
    expect(over.retry_after).toBeGreaterThanOrEqual(1);
    expect(over.retry_after).toBeLessThanOrEqual(60);
    expect((await emitAck(a, EVENTS.visitorPage, { page_url: 'https://shop.example/x' })).status).toBe(429);
    const rest = await call(app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'rest' } });
    expect(rest.status).toBe(429);
    expect(Number(rest.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another visitor's sockets are not affected.
    const other = widget(await buildVisitor(app, owner.widgetKey));
    await connected(other);
    expect((await emitAck(other, EVENTS.messageSend, { message: 'fine', client_id: 'o1' })).ok).toBe(true);
    const stored = await call(app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token });
    expect(stored.body.data.map((m: MessageDto) => m.message)).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it('push one message.created per socket for each stored message, except the sending socket (its ack has it), none for a retried send', async () => {
    const app = (await start({ WIDGET_SOCKETS_PER_VISITOR: '3' })).app;
    const visitor = await buildVisitor(app, owner.widgetKey);
    const tabs = [widget(visitor), widget(visitor), widget(visitor)];
    await Promise.all(tabs.map(connected));
    const desk = await agent();
    const got = tabs.map(() => [] as number[]);
    for (const [i, s] of tabs.entries()) s.on(EVENTS.messageCreated, (p: { message: MessageDto }) => got[i]!.push(p.message.id));
    const sent = await emitAck(tabs[0]!, EVENTS.messageSend, { message: 'from tab 0', client_id: 'tab0' });
    const again = await emitAck(tabs[0]!, EVENTS.messageSend, { message: 'from tab 0', client_id: 'tab0' });
    expect(again.data.id).toBe(sent.data.id);
    const reply = await emitAck(desk, EVENTS.messageSend, { visitor_id: visitor.id, message: 'hello', client_id: 'desk1' });
    await silence(tabs[0]!, 'nothing', 600);
    expect(got).toEqual([[reply.data.id], [sent.data.id, reply.data.id], [sent.data.id, reply.data.id]]);
  });

  it('answer NUL characters with 400 in the envelope, like REST, store nothing and log no error', async () => {
    const app = (await start({})).app;
    const errors = vi.spyOn(app.log, 'error');
    const visitor = await buildVisitor(app, owner.widgetKey);
    const s = widget(visitor);
    await connected(s);
    const nul = { ok: false, status: 400, message: NUL_MESSAGE };
    expect(await emitAck(s, EVENTS.messageSend, { message: 'a\u0000b', client_id: 'n1' })).toEqual(nul);
    expect(await emitAck(s, EVENTS.visitorPage, { page_url: 'https://shop.example/\u0000' })).toEqual(nul);
    const desk = await agent();
    expect(await emitAck(desk, EVENTS.messageSend, { visitor_id: visitor.id, message: 'x\u0000', client_id: 'n2' })).toEqual(nul);
    // REST says the same.
    const rest = await call(app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'a\u0000b' } });
    expect(rest.status).toBe(400);
    expect(rest.body.message).toBe(NUL_MESSAGE);
    // Other junk: wrong shapes answer 422 in the envelope's words, never 500.
    for (const junk of [null, 'text', 42, [1, 2], { message: { $ne: 1 }, client_id: 'j1' }, { message: 'ok', client_id: '../../x' }]) {
      const ack = await emitAck(s, EVENTS.messageSend, junk);
      expect(ack.ok).toBe(false);
      expect(ack.status, JSON.stringify(junk)).toBe(422);
    }
    const stored = await call(app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token });
    expect(stored.body.data).toEqual([]);
    const me = await call(app, 'GET', '/api/widget/messages', { token: visitor.token });
    expect(me.body.data).toEqual([]);
    expect(errors).not.toHaveBeenCalled();
  });
});
