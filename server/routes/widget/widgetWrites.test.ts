import { afterEach, describe, expect, it } from 'vitest';
import { laneOfAccount } from '../../db/fair.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { connect, connected, emitAck, listen } from '../../test/sockets.js';

/**
 * Each node's share of one account's widget writes (services/widgetWrites.ts): while the
 * account's lane is full, its new visitors, first messages, offline forms and load events wait
 * their turn and get 429 with Retry-After past WIDGET_WRITE_WAIT_MS; another account's calls go
 * on at once, and a visitor already chatting is not held by the lane at all.
 */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const REFUSED = { message: 'Too many requests. Please try again later.', error: 'Too many requests. Please try again later.', code: 'rate_limited' };

async function newVisitor(app: TestApp['app'], key: string): Promise<{ id: string; token: string }> {
  const res = await call(app, 'POST', '/api/widget/visitors', { body: { unique_code: key, name: 'Flo' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.data.visitor_id, token: res.body.data.visitor_token };
}

/** Holds every slot of `owner`'s lane on this node, as the calls of a flood in progress would. */
async function fillLane(app: TestApp['app'], owner: TestOwner): Promise<() => void> {
  const lane = laneOfAccount(owner.user.account_id);
  const releases: (() => void)[] = [];
  for (let i = 0; i < app.widgetWrites.slots; i++) releases.push(await app.widgetWrites.enter(lane));
  return () => {
    for (const r of releases) r();
  };
}

describe('widget writes per account and node', () => {
  it("refuses a busy account's new callers after the wait, serves another account at once, and never holds a chatting visitor", async () => {
    t = await createTestApp({ WIDGET_WRITES_PER_ACCOUNT: '1', WIDGET_WRITE_WAIT_MS: '150', WIDGET_WRITE_SHARE: '100' });
    const { app } = t;
    const flooded = await buildAccount(app);
    const other = await buildAccount(app);
    const chatting = await newVisitor(app, flooded.widgetKey);
    expect((await call(app, 'POST', '/api/widget/messages', { token: chatting.token, body: { message: 'hello' } })).status).toBe(201);
    const fresh = await newVisitor(app, flooded.widgetKey);

    const free = await fillLane(app, flooded);
    const refused = [
      await call(app, 'POST', '/api/widget/visitors', { body: { unique_code: flooded.widgetKey } }),
      await call(app, 'POST', '/api/widget/messages', { token: fresh.token, body: { message: 'first words' } }),
      await call(app, 'POST', '/api/widget/offline', { token: fresh.token, body: { email: 'flo@example.com', message: 'call me' } }),
      await call(app, 'POST', '/api/widget/events', { body: { unique_code: flooded.widgetKey, load_id: 'load-0001', kind: 'load' } }),
    ];
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(429);
      expect(res.body).toEqual(REFUSED);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Nothing of the refused calls was stored: the fresh visitor has no conversation yet.
    expect((await call(app, 'GET', '/api/widget/messages', { token: fresh.token })).body.data).toEqual([]);

    // Another account is not in this lane.
    expect((await call(app, 'POST', '/api/widget/visitors', { body: { unique_code: other.widgetKey } })).status).toBe(201);

    // The chatting visitor is not held: served at once while the lane is still full.
    const res = await call(app, 'POST', '/api/widget/messages', { token: chatting.token, body: { message: 'still there?' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(app.widgetWrites.load(laneOfAccount(flooded.user.account_id))).toEqual({ busy: 1, waiting: 0 });
    free();

    // The lane is free again: a new visitor is accepted.
    expect((await call(app, 'POST', '/api/widget/visitors', { body: { unique_code: flooded.widgetKey } })).status).toBe(201);
    expect(app.widgetWrites.load(laneOfAccount(flooded.user.account_id))).toEqual({ busy: 0, waiting: 0 });
  });

  it("a socket's first message waits in the account's lane like a REST one, and is refused with retry_after past the wait", async () => {
    t = await createTestApp({ WIDGET_WRITES_PER_ACCOUNT: '1', WIDGET_WRITE_WAIT_MS: '150', WIDGET_WRITE_SHARE: '100' });
    const { app } = t;
    const base = await listen(app);
    const owner = await buildAccount(app);
    const visitor = await newVisitor(app, owner.widgetKey);
    const socket = connect(base, { widget_key: owner.widgetKey, visitor_token: visitor.token });
    try {
      await connected(socket);
      const free = await fillLane(app, owner);
      const refused = await emitAck(socket, 'message.send', { message: 'hi', client_id: 'c1' });
      expect(refused).toMatchObject({ ok: false, status: 429, message: REFUSED.message });
      expect(refused.retry_after).toBeGreaterThanOrEqual(1);
      free();
      const ack = await emitAck(socket, 'message.send', { message: 'hi', client_id: 'c1' });
      expect(ack.ok, JSON.stringify(ack)).toBe(true);
      // Its chat is under way: with the lane full it is served at once, not held.
      const again = await fillLane(app, owner);
      const later = await emitAck(socket, 'message.send', { message: 'more', client_id: 'c2' });
      expect(later.ok, JSON.stringify(later)).toBe(true);
      expect(app.widgetWrites.load(laneOfAccount(owner.user.account_id))).toEqual({ busy: 1, waiting: 0 });
      again();
    } finally {
      socket.close();
    }
  });
});
