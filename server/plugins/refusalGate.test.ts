import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.js';
import { buildAccount, type TestOwner } from '../test/factories.js';
import { callFrom } from '../test/httpFrom.js';
import { KEY_MISMATCH } from './visitorAuth.js';

/**
 * Issue 11: once a widget budget is known spent on this node, the next calls of that IP or visitor
 * are answered before Fastify (plugins/refusalGate.ts), with the answer the hooks give; calls that
 * may go on are untouched.
 */
let t: TestApp;
let owner: TestOwner;
let base: string;
const gated = () => t.app.refusalGate.answered;

beforeAll(async () => {
  t = await createTestApp({
    WIDGET_LIMIT_PER_IP: '400',
    WIDGET_BURST_PER_IP: '1000',
    WIDGET_LIMIT_PER_VISITOR: '3',
    WIDGET_NEW_VISITORS_PER_IP: '2',
  });
  owner = await buildAccount(t.app);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP call from a chosen 127.0.0.x address (the gate sits on the HTTP server; inject bypasses it). */
async function send(method: string, path: string, { from, token, json, origin }: { from: string; token?: string; json?: unknown; origin?: string }): Promise<Answer> {
  const a = await callFrom(base, from, method, path, { token, body: json, origin });
  return { status: a.status, headers: a.headers, body: a.text };
}

/** What a client reads of a refusal: status, envelope, the headers it may act on. */
const shape = (a: Answer) => ({
  status: a.status,
  body: JSON.parse(a.body),
  contentType: a.headers['content-type'],
  retryAfter: Number(a.headers['retry-after']) >= 1,
  allowOrigin: a.headers['access-control-allow-origin'],
  vary: a.headers.vary,
});

describe('refusals before Fastify', () => {
  it("answers an IP's calls past its budget with the hooks' answer, and lets other addresses and console calls through", async () => {
    const from = '127.0.0.61';
    const origin = 'https://shop.example';
    const answers: Answer[] = [];
    for (let i = 0; i < 400; i += 50) answers.push(...(await Promise.all(Array.from({ length: 50 }, () => send('GET', '/api/widget/messages', { from, origin })))));
    expect(answers.every((a) => a.status === 401)).toBe(true); // within the budget: no visitor token
    const before = gated();
    const first = await send('GET', '/api/widget/messages', { from, origin }); // refused by the hook: this node learns the IP is spent
    expect(gated()).toBe(before);
    const next: Answer[] = [];
    for (let i = 0; i < 20; i++) next.push(await send(i % 2 ? 'GET' : 'POST', i % 2 ? '/api/widget/messages?x=1' : '/api/widget/messages', { from, origin, json: i % 2 ? undefined : { message: 'spam' } }));
    expect(gated()).toBe(before + 20); // none of them reached Fastify
    const expected = {
      status: 429,
      body: { message: 'Too many requests. Please try again later.', error: 'Too many requests. Please try again later.', code: 'rate_limited' },
      contentType: 'application/json; charset=utf-8',
      retryAfter: true,
      allowOrigin: origin,
      vary: 'Origin',
    };
    expect(shape(first)).toEqual(expected);
    for (const a of next) expect(shape(a)).toEqual(expected);
    // Another address is counted on its own; console calls from the spent address are not widget calls.
    expect((await send('GET', '/api/widget/messages', { from: '127.0.0.62' })).status).toBe(401);
    expect((await send('GET', '/api/vms/user', { from, token: owner.token })).status).toBe(200);
    expect(gated()).toBe(before + 20);
    // The metric counts the gate's refusals with the hooks' (21 refused here, by the IP's budget).
    const metrics = await t.app.metrics.registry.getSingleMetricAsString('parley_rate_limit_refusals_total');
    expect(metrics).toMatch(/limit="widget-ip"[^\n]* 21\b/);
  });

  it("answers a visitor's calls past its budget, and not the same address's other visitors", async () => {
    const from = '127.0.0.63';
    const a = await send('POST', '/api/widget/visitors', { from, json: { unique_code: owner.widgetKey } });
    const b = await send('POST', '/api/widget/visitors', { from, json: { unique_code: owner.widgetKey } });
    expect([a.status, b.status]).toEqual([201, 201]);
    const tokenA = JSON.parse(a.body).data.visitor_token as string;
    const tokenB = JSON.parse(b.body).data.visitor_token as string;
    const statuses: number[] = [];
    const at = '127.0.0.70';
    for (let i = 0; i < 3; i++) statuses.push((await send('GET', '/api/widget/messages', { from: at, token: tokenA })).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect((await send('GET', '/api/widget/messages', { from: at, token: tokenA })).status).toBe(429); // the hook's
    const before = gated();
    expect((await send('GET', '/api/widget/messages', { from: at, token: tokenA })).status).toBe(429);
    expect(gated()).toBe(before + 1);
    expect((await send('GET', '/api/widget/messages', { from: at, token: tokenB })).status).toBe(200);
    expect(gated()).toBe(before + 1);
  });

  it('answers new visitors past the per-IP budget, and not the same address\'s messages', async () => {
    const from = '127.0.0.64';
    const created = [];
    for (let i = 0; i < 2; i++) created.push(await send('POST', '/api/widget/visitors', { from, json: { unique_code: owner.widgetKey } }));
    expect(created.map((c) => c.status)).toEqual([201, 201]);
    expect((await send('POST', '/api/widget/visitors', { from, json: { unique_code: owner.widgetKey } })).status).toBe(429); // the hook's
    const before = gated();
    expect((await send('POST', '/api/widget/visitors', { from, json: { unique_code: owner.widgetKey } })).status).toBe(429);
    expect(gated()).toBe(before + 1);
    const token = JSON.parse((created[0] as Answer).body).data.visitor_token as string;
    expect((await send('GET', '/api/widget/messages', { from, token })).status).toBe(200);
    expect(gated()).toBe(before + 1);
  });
});

describe("refusals before Fastify by the widget key a call names in its query", () => {
  let k: TestApp;
  let kBase: string;
  beforeAll(async () => {
    k = await createTestApp({ WIDGET_LIMIT_PER_KEY: '3', WIDGET_BURST_PER_KEY: '1000' });
    await k.app.listen({ host: '127.0.0.1', port: 0 });
    kBase = `http://127.0.0.1:${(k.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await k.close();
  });

  const event = (from: string, query: string | undefined, key: string) =>
    callFrom(kBase, from, 'POST', `/api/widget/events${query === undefined ? '' : `?unique_code=${encodeURIComponent(query)}`}`, {
      body: { unique_code: key, load_id: `load-${from.replaceAll('.', '-')}`, kind: 'load' },
    });

  it("answers a key's calls past its budget before the body when the query names the key; without it the hooks refuse them", async () => {
    const spent = await buildAccount(k.app);
    const other = await buildAccount(k.app);
    const key = spent.widgetKey;
    const within = [];
    for (let i = 0; i < 3; i++) within.push((await event(`127.0.1.${10 + i}`, key, key)).status);
    expect(within).toEqual([202, 202, 202]);
    const gatedBefore = k.app.refusalGate.answered;
    expect((await event('127.0.1.20', key, key)).status).toBe(429); // the hook's: this node learns the key is spent
    expect(k.app.refusalGate.answered).toBe(gatedBefore);
    const atGate = await event('127.0.1.21', key, key);
    expect(atGate.status).toBe(429);
    expect(JSON.parse(atGate.text)).toEqual({ message: 'Too many requests. Please try again later.', error: 'Too many requests. Please try again later.', code: 'rate_limited' });
    expect(Number(atGate.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(k.app.refusalGate.answered).toBe(gatedBefore + 1); // answered before Fastify
    // Left out of the query: the hooks read the body and refuse it as before.
    expect((await event('127.0.1.22', undefined, key)).status).toBe(429);
    expect(k.app.refusalGate.answered).toBe(gatedBefore + 1);
    // Another key goes on; a call naming two keys is refused.
    expect((await event('127.0.1.23', other.widgetKey, other.widgetKey)).status).toBe(202);
    const mixed = await event('127.0.1.24', other.widgetKey, (await buildAccount(k.app)).widgetKey);
    expect(mixed.status).toBe(400);
    expect(JSON.parse(mixed.text).message).toBe(KEY_MISMATCH);
  });
});
