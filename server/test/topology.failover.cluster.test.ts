import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENTS, type MessageDto } from '@parley/shared';
import { openPostgres } from '../db/client.js';
import { pushOutbox } from '../db/schema.js';
import { startPrivateRedis } from './cluster.js';
import { createPgDatabase, uniqueRateLimitPrefix } from './harness.js';
import { connect, connected, next } from './sockets.js';
import { registerOverHttp, sleep, startNodeProcess, visitorOverHttp } from './topologyProcess.js';

/**
 * Issue 15, instant failover: node A stores a message and dies (SIGKILL, through a test hook)
 * between the commit and the push. Node B pushes it from push_outbox to the visitor's and the
 * agent's sockets within 1 s of its commit, once, and nobody is told to reload (sync.required).
 */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
});

const ORIGIN = 'http://parley.test';
const DIE = 'Stored, then the node dies before pushing';

describe('a node dies between commit and push', () => {
  it('another node pushes the stored message to its sockets within 1 s, once, without sync.required', { timeout: 180_000 }, async () => {
    const pg = await createPgDatabase();
    cleanup.push(pg.drop);
    const redis = await startPrivateRedis();
    cleanup.push(() => redis.stop());
    const env = { DATABASE_URL: pg.url, REDIS_URL: redis.url, RATE_LIMIT_PREFIX: uniqueRateLimitPrefix(), CONSOLE_ORIGINS: ORIGIN };
    const [A, B] = await Promise.all([startNodeProcess({ ...env, PARLEY_TEST_DIE_BEFORE_PUSH: DIE }), startNodeProcess(env)]);
    cleanup.push(() => A!.kill(), () => B!.kill());
    const db = await openPostgres(pg.url);
    cleanup.push(() => db.close());

    const owner = await registerOverHttp(B!.base, 'failover');
    const visitor = await visitorOverHttp(B!.base, owner.widgetKey, 'Vic');
    const widget = connect(B!.base, { widget_key: owner.widgetKey, visitor_token: visitor.token });
    const agent = connect(B!.base, { token: owner.token }, { origin: ORIGIN });
    const sockets: Socket[] = [widget, agent];
    cleanup.push(async () => {
      for (const s of sockets) s.close();
    });
    await Promise.all(sockets.map(connected));
    const got = sockets.map(() => [] as { message: MessageDto; at: number }[]);
    const resyncs = sockets.map(() => 0);
    sockets.forEach((s, i) => {
      s.on(EVENTS.messageCreated, (p: { message: MessageDto }) => got[i]!.push({ message: p.message, at: Date.now() }));
      s.on(EVENTS.syncRequired, () => resyncs[i]!++);
    });
    const send = (node: typeof A, text: string) =>
      fetch(`${node!.base}/api/widget/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${visitor.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: text }),
      });

    // The normal path: A stores and pushes through Redis; its push_outbox row is gone right after.
    const first = next(agent, EVENTS.messageCreated, (p) => p.message.message === 'Hello from A');
    expect((await send(A, 'Hello from A')).status).toBe(201);
    await first;
    for (let i = 0; i < 50 && (await db.db.select().from(pushOutbox)).length > 0; i++) await sleep(20);
    expect(await db.db.select().from(pushOutbox)).toEqual([]);

    // A stores the message and is killed before its push leaves.
    const request = send(A, DIE).then(
      (r) => r.status,
      () => 'no answer',
    );
    const atWidget = next(widget, EVENTS.messageCreated, (p) => p.message.message === DIE, 3000);
    const atAgent = next(agent, EVENTS.messageCreated, (p) => p.message.message === DIE, 3000);
    expect(await request).toBe('no answer');
    expect(await A!.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const [w, a] = await Promise.all([atWidget, atAgent]);
    expect(w.message.id).toBe(a.message.id);
    const storedAt = new Date(w.message.created_at).getTime();
    for (const list of got) {
      const hit = list.find((g) => g.message.message === DIE);
      expect(hit!.at - storedAt, 'delivered within 1 s of being stored').toBeLessThan(1000);
    }

    // Past the point where B takes A for dead (4 s without its heartbeat): once, and no reload asked.
    await sleep(5500);
    for (const list of got) expect(list.filter((g) => g.message.message === DIE)).toHaveLength(1);
    expect(resyncs).toEqual([0, 0]);
    expect(await db.db.select().from(pushOutbox)).toEqual([]);
    // Operators see it: B counts the push it made for A (/metrics, loopback).
    expect(await (await fetch(`${B!.base}/metrics`)).text()).toMatch(/^parley_push_relayed_total\{node="[^"]+"\} 1$/m);
    // The widget's conversation holds it once (B answers the history).
    const history = (await (await fetch(`${B!.base}/api/widget/messages`, { headers: { authorization: `Bearer ${visitor.token}` } })).json()) as { data: MessageDto[] };
    expect(history.data.filter((m) => m.message === DIE)).toHaveLength(1);
  });
});
