import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.js';
import { buildAccount } from '../test/factories.js';
import { callFrom } from '../test/httpFrom.js';

/**
 * Issue 11, floods of refused calls (plugins/refusalHolds.ts): a large upload refused before its
 * body is read gets its 429 at once, and its connection is then held unread (REFUSAL_HOLD_*), so
 * the sender cannot push the rest of its body; a kept-alive connection's next call after a refusal
 * is read a while later (REFUSAL_PAUSE_MS). A client with a bounded pool of connections waits
 * instead of flooding.
 */
const HOLD_MS = 1500;
const PAUSE_MS = 700;
/** Far more than the kernel's buffers of a connection on this host take before the sender blocks. */
const BODY_BYTES = 24 * 1024 * 1024;

let t: TestApp;
/** The node and the spent visitor the uploads come to and from. */
let target: { base: string; token: string };

beforeAll(async () => {
  t = await createTestApp({
    WIDGET_LIMIT_PER_VISITOR: '2',
    WIDGET_BURST_PER_IP: '1000',
    REFUSAL_HOLD_MS: String(HOLD_MS),
    REFUSAL_PAUSE_MS: String(PAUSE_MS),
    REFUSAL_HOLD_PER_IP: '2',
    TRUST_PROXY: 'true',
  });
  const owner = await buildAccount(t.app);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  target = await spentVisitor(t, owner.widgetKey, '127.0.2.1', 2);
});

/** A visitor whose call budget (`budget` calls) is spent, and known spent to the node's gate (the hooks refused it once). */
async function spentVisitor(app: TestApp, widgetKey: string, from: string, budget: number): Promise<{ base: string; token: string }> {
  const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
  const visitor = await callFrom(base, from, 'POST', '/api/widget/visitors', { body: { unique_code: widgetKey } });
  const token = JSON.parse(visitor.text).data.visitor_token as string;
  const statuses = [];
  for (let i = 0; i <= budget; i++) statuses.push((await callFrom(base, from, 'GET', '/api/widget/messages', { token })).status);
  expect(statuses).toEqual([...Array(budget).fill(200), 429]);
  return { base, token };
}
afterAll(async () => {
  await t.close();
});

/**
 * One refused call from an address (with these headers): the node then has a lease of that
 * address's points at hand, and its gate answers the address's next calls before Fastify.
 */
async function warm(from: string, headers: Record<string, string> = {}, { base, token } = target): Promise<void> {
  expect((await callFrom(base, from, 'GET', '/api/widget/messages', { token, headers })).status).toBe(429);
}

interface Upload {
  /** The answer: status, body, and when it arrived (ms after the start). */
  answered: Promise<{ status: number; body: string; at: number }>;
  /** When the connection closed (ms after the start). */
  closed: Promise<number>;
  /** Whether the whole body had left the sender when the answer came. */
  sentWhenAnswered: () => boolean;
}

/** One large upload on its own connection, as a flooding visitor sends it. */
function upload(from: string, headers: Record<string, string> = {}, { base, token } = target): Upload {
  const start = performance.now();
  const req = http.request(`${base}/api/widget/messages`, {
    method: 'POST',
    localAddress: from,
    agent: false,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(BODY_BYTES), ...headers },
  });
  let sent = false;
  req.on('finish', () => (sent = true));
  let sentAtAnswer = false;
  const closed = new Promise<number>((resolve) => req.on('close', () => resolve(performance.now() - start)));
  const answered = new Promise<{ status: number; body: string; at: number }>((resolve, reject) => {
    req.on('response', (res) => {
      sentAtAnswer = sent;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, at: performance.now() - start }));
    });
    req.on('error', (e) => reject(e));
  });
  answered.catch(() => {});
  req.end(Buffer.alloc(BODY_BYTES, 0x61));
  return { answered, closed, sentWhenAnswered: () => sentAtAnswer };
}

describe('refused uploads hold their connection', () => {
  it('answers at once, reads no more of the body, and closes the connection when the hold ends', async () => {
    await warm('127.0.2.2');
    const answeredBefore = t.app.refusalGate.answered;
    const u = upload('127.0.2.2');
    const answer = await u.answered;
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body).code).toBe('rate_limited');
    expect(answer.at).toBeLessThan(HOLD_MS);
    expect(t.app.refusalGate.answered).toBe(answeredBefore + 1); // the gate's answer, before Fastify
    expect(t.app.refusalHolds.held).toBe(1);
    // The sender could not push its body: the node stopped reading it.
    expect(u.sentWhenAnswered()).toBe(false);
    expect(await u.closed).toBeGreaterThanOrEqual(HOLD_MS - 100);
    await vi.waitFor(() => expect(t.app.refusalHolds.held).toBe(0));
  });

  it('holds at most REFUSAL_HOLD_PER_IP connections of an address, and none of a proxy', async () => {
    await warm('127.0.2.3');
    const uploads = [upload('127.0.2.3'), upload('127.0.2.3'), upload('127.0.2.3')];
    const answers = await Promise.all(uploads.map((u) => u.answered));
    expect(answers.map((a) => a.status)).toEqual([429, 429, 429]);
    expect(t.app.refusalHolds.held).toBe(2);
    // The third was closed after its answer, long before the hold would have ended.
    const firstClosed = await Promise.race(uploads.map((u) => u.closed));
    expect(firstClosed).toBeLessThan(HOLD_MS - 200);
    // A call through a proxy (the client's address is not the connection's) is never held: the
    // connection carries other clients' calls.
    const forwarded = { 'x-forwarded-for': '203.0.113.9' };
    await warm('127.0.2.4', forwarded);
    const answeredBefore = t.app.refusalGate.answered;
    const proxied = upload('127.0.2.4', forwarded);
    expect((await proxied.answered).status).toBe(429);
    expect(t.app.refusalGate.answered).toBe(answeredBefore + 1);
    expect(await proxied.closed).toBeLessThan(HOLD_MS - 200);
    expect(t.app.refusalHolds.held).toBe(2);
    await Promise.all(uploads.map((u) => u.closed));
    await vi.waitFor(() => expect(t.app.refusalHolds.held).toBe(0));
  });

  it("reads a kept-alive connection's next call a while after a refusal, and nobody else's later", async () => {
    const from = '127.0.2.7';
    await warm(from);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: from });
    const send = (method: string, path: string, token?: string, json?: unknown) =>
      new Promise<{ status: number; at: number; reused: boolean }>((resolve, reject) => {
        const body = json === undefined ? undefined : JSON.stringify(json);
        const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) };
        const req = http.request(`${target.base}${path}`, { method, agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, at: performance.now(), reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      const answeredBefore = t.app.refusalGate.answered;
      const start = performance.now();
      // A call with a (small) body: Node reads it after the answer, which must not end the pause.
      const first = await send('POST', '/api/widget/messages', target.token, { message: 'again', client_id: 'paused-1' });
      expect(first.status).toBe(429);
      expect(first.at - start).toBeLessThan(PAUSE_MS);
      expect(t.app.refusalGate.answered).toBe(answeredBefore + 1);
      // Meanwhile the same address on another connection, and the node's other calls, go on at once.
      const beside = performance.now();
      expect((await callFrom(target.base, from, 'GET', '/healthz')).status).toBe(200);
      expect(performance.now() - beside).toBeLessThan(PAUSE_MS / 2);
      // The next call on that connection is read once the pause is over (whatever it is).
      const second = await send('GET', '/healthz');
      expect(second).toMatchObject({ status: 200, reused: true });
      expect(second.at - first.at).toBeGreaterThanOrEqual(PAUSE_MS - 50);
      await vi.waitFor(() => expect(t.app.refusalHolds.held).toBe(0));
    } finally {
      agent.destroy();
    }
  });

  it('lets the node close at once, whatever it holds', async () => {
    const k = await createTestApp({ WIDGET_LIMIT_PER_VISITOR: '1', REFUSAL_HOLD_MS: '60000' });
    try {
      const owner = await buildAccount(k.app);
      await k.app.listen({ host: '127.0.0.1', port: 0 });
      const spent = await spentVisitor(k, owner.widgetKey, '127.0.2.5', 1);
      await warm('127.0.2.5', {}, spent);
      const u = upload('127.0.2.5', {}, spent);
      expect((await u.answered).status).toBe(429);
      expect(k.app.refusalHolds.held).toBe(1);
      const start = performance.now();
      await k.app.close();
      expect(performance.now() - start).toBeLessThan(10_000);
      expect(await u.closed).toBeLessThan(30_000);
    } finally {
      await k.close();
    }
  });
});
