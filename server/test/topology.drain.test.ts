import http from 'node:http';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENTS, type ReconnectHintPayload } from '@parley/shared';
import { TEST_DB, createPgDatabase } from './harness.js';
import { connect, connected, freePort } from './sockets.js';
import { type NodeProcess, registerOverHttp, sleep, startNodeProcess, visitorOverHttp } from './topologyProcess.js';

/**
 * Issue 15, drain: SIGTERM to a real node process during traffic. /readyz turns 503 at once, new
 * sockets are refused, a request already in flight is answered, every socket is told to
 * reconnect (a jittered wait) and then closed, in batches, and the process exits within
 * SHUTDOWN_GRACE_MS.
 */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
});

const GRACE_MS = 10_000;
const VISITORS = 40;

describe('SIGTERM drains the node', () => {
  it('readyz 503 at once, in-flight request answered, sockets moved in batches with jittered hints, exit 0 within the grace period', { timeout: 180_000 }, async () => {
    const env: Record<string, string> = { SHUTDOWN_GRACE_MS: String(GRACE_MS) };
    if (TEST_DB === 'postgres') {
      const db = await createPgDatabase();
      cleanup.push(db.drop);
      env.DATABASE_URL = db.url;
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const node: NodeProcess = await startNodeProcess({ ...env, PUBLIC_URL: base }, { port });
    cleanup.push(() => node.kill());

    const owner = await registerOverHttp(base, 'drain');
    const visitors = await Promise.all(Array.from({ length: VISITORS }, (_, i) => visitorOverHttp(base, owner.widgetKey, `V${i}`)));
    const sockets: Socket[] = [connect(base, { token: owner.token }, { origin: base })];
    for (const v of visitors) sockets.push(connect(base, { widget_key: owner.widgetKey, visitor_token: v.token }));
    cleanup.push(async () => {
      for (const s of sockets) s.close();
    });
    await Promise.all(sockets.map(connected));
    const hints: { at: number; in_ms: number; closedAfterMs?: number; reason?: string }[] = [];
    for (const s of sockets) {
      s.on(EVENTS.serverReconnect, (p: ReconnectHintPayload) => {
        const h = { at: Date.now(), in_ms: p.in_ms } as (typeof hints)[number];
        hints.push(h);
        s.once('disconnect', (reason) => {
          h.reason = reason;
          h.closedAfterMs = Date.now() - h.at;
        });
      });
    }

    // A visitor's message whose body is half sent when SIGTERM arrives: it is in flight.
    const body = JSON.stringify({ message: 'Sent across the restart' });
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${base}/api/widget/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${visitors[0]!.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 600);
    });
    await sleep(100);

    const sentAt = Date.now();
    node.signal('SIGTERM');
    // /readyz: 503 within a moment (the signal is asynchronous), while the sockets are still being moved.
    let ready: Response | undefined;
    while (Date.now() - sentAt < 1000) {
      ready = await fetch(`${base}/readyz`);
      if (ready.status === 503) break;
      await sleep(20);
    }
    expect(ready?.status).toBe(503);
    expect(await ready!.json()).toMatchObject({ status: 'draining' });
    expect(hints.length, 'readyz answered 503 before every socket was moved').toBeLessThan(sockets.length);

    // A new socket is refused while draining.
    const late = connect(base, { widget_key: owner.widgetKey, visitor_token: visitors[1]!.token });
    cleanup.push(async () => late.close());
    await expect(connected(late)).rejects.toThrow();

    const answered = await inFlight;
    expect(answered.status, answered.text).toBe(201);

    const exit = await node.exited;
    const tookMs = Date.now() - sentAt;
    expect(exit, node.output()).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(GRACE_MS);

    // Every socket got a hint, then its connection closed (a transport close: clients come back).
    expect(hints).toHaveLength(sockets.length);
    for (const h of hints) {
      expect(h.in_ms).toBeGreaterThanOrEqual(0);
      expect(h.in_ms).toBeLessThanOrEqual(3000);
      expect(h.reason).toBe('transport close');
      expect(h.closedAfterMs).toBeLessThan(1000);
    }
    expect(new Set(hints.map((h) => h.in_ms)).size, 'the waits are jittered').toBeGreaterThan(sockets.length / 2);
    // Batches: hints arrive in groups of at most 10 separated by pauses.
    const times = hints.map((h) => h.at).sort((a, b) => a - b);
    const groups: number[] = [1];
    for (let i = 1; i < times.length; i++) {
      if (times[i]! - times[i - 1]! > 100) groups.push(1);
      else groups[groups.length - 1]!++;
    }
    expect(groups.length, JSON.stringify(groups)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...groups), JSON.stringify(groups)).toBeLessThanOrEqual(10);
  });
});
