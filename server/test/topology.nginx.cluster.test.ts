import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS, type MessageDto } from '@parley/shared';
import { eq, inArray } from 'drizzle-orm';
import { openPostgres, type Database } from '../db/client.js';
import { conversations, messages } from '../db/schema.js';
import { startPrivateRedis } from './cluster.js';
import { createPgDatabase, uniqueRateLimitPrefix } from './harness.js';
import { connected, emitAck, freePort, next } from './sockets.js';
import { type Nginx, type NodeProcess, registerOverHttp, sleep, startNginx, startNodeProcess, visitorOverHttp } from './topologyProcess.js';

/**
 * Issue 15: the docker-compose topology without Docker. PostgreSQL, a redis-server, two Parley
 * node processes and Debian's nginx with the repository's docker/nginx.conf (only its addresses
 * templated). A visitor and an agent talk through nginx over WebSocket and over long-polling;
 * then both nodes restart one after the other (SIGTERM, drained, started again) under steady
 * traffic: nothing lost, nothing doubled, no send refused, every socket back.
 */
const cleanup: (() => Promise<unknown>)[] = [];
let nginx: Nginx;
let db: Database;
const nodes: NodeProcess[] = [];
let nodeEnv: Record<string, string>;
let owner: Awaited<ReturnType<typeof registerOverHttp>>;

beforeAll(async () => {
  const pg = await createPgDatabase();
  cleanup.push(pg.drop);
  const redis = await startPrivateRedis();
  cleanup.push(() => redis.stop());
  const lbPort = await freePort();
  const lb = `http://127.0.0.1:${lbPort}`;
  nodeEnv = {
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    RATE_LIMIT_PREFIX: uniqueRateLimitPrefix(),
    PUBLIC_URL: lb,
    TRUST_PROXY: '1',
    SHUTDOWN_GRACE_MS: '8000',
  };
  nodes.push(...(await Promise.all([startNodeProcess(nodeEnv), startNodeProcess(nodeEnv)])));
  cleanup.push(async () => {
    for (const n of nodes) await n.kill();
  });
  nginx = await startNginx(
    nodes.map((n) => n.port),
    lbPort,
  );
  cleanup.push(() => nginx.stop());
  db = await openPostgres(pg.url);
  cleanup.push(() => db.close());
  owner = await registerOverHttp(nginx.base, 'topology');
}, 180_000);

afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
});

const sockets: Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.close();
});

function socketVia(base: string, auth: Record<string, string>, transport: 'websocket' | 'polling', reconnect = false, origin?: string): Socket {
  const s = io(base, {
    auth,
    transports: [transport],
    forceNew: true,
    reconnection: reconnect,
    reconnectionDelay: 200,
    reconnectionDelayMax: 2000,
    randomizationFactor: 0.5,
    ...(origin ? { extraHeaders: { origin } } : {}),
  });
  sockets.push(s);
  return s;
}

describe('compose topology through nginx (docker/nginx.conf)', () => {
  for (const transport of ['websocket', 'polling'] as const) {
    it(`a visitor and an agent talk through nginx over ${transport}`, { timeout: 60_000 }, async () => {
      const visitor = await visitorOverHttp(nginx.base, owner.widgetKey, `Via ${transport}`);
      const widget = socketVia(nginx.base, { widget_key: owner.widgetKey, visitor_token: visitor.token }, transport);
      const agent = socketVia(nginx.base, { token: owner.token }, transport, false, nginx.base);
      await Promise.all([connected(widget), connected(agent)]);
      expect(widget.io.engine.transport.name).toBe(transport);

      const atAgent = next(agent, EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id);
      const sent = await emitAck(widget, EVENTS.messageSend, { message: `hello over ${transport}`, client_id: `${transport}-1` });
      expect(sent.ok).toBe(true);
      expect((await atAgent).message).toMatchObject({ id: sent.data.id, message: `hello over ${transport}` });

      const atWidget = next(widget, EVENTS.messageCreated, (p) => p.message.sender_type === 'user');
      const reply = await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: `reply over ${transport}`, client_id: `${transport}-r1` });
      expect(reply.ok).toBe(true);
      expect((await atWidget).message).toMatchObject({ id: reply.data.id, message: `reply over ${transport}` });
      widget.close();
      agent.close();
    });
  }

  it('a rolling restart of both nodes under steady traffic: nothing lost, nothing doubled, no send refused, every socket back', { timeout: 240_000 }, async () => {
    const VISITORS = 12;
    const visitors = await Promise.all(Array.from({ length: VISITORS }, (_, i) => visitorOverHttp(nginx.base, owner.widgetKey, `Rolling ${i}`)));
    const widgets = visitors.map((v, i) => socketVia(nginx.base, { widget_key: owner.widgetKey, visitor_token: v.token }, i % 3 === 0 ? 'polling' : 'websocket', true));
    const agent = socketVia(nginx.base, { token: owner.token }, 'websocket', true, nginx.base);
    await Promise.all([...widgets, agent].map(connected));

    // The agent: live pushes, and after each reconnect a catch-up of every conversation (as the console does).
    const mine = new Set(visitors.map((v) => v.id));
    const pushed: number[] = [];
    const caughtUp = new Set<number>();
    agent.on(EVENTS.messageCreated, (p: { message: MessageDto }) => {
      if (mine.has(p.message.visitor_id)) pushed.push(p.message.id);
    });
    const catchUp = async () => {
      for (const v of visitors) {
        const res = await fetch(`${nginx.base}/api/vms/messages/${v.id}`, { headers: { authorization: `Bearer ${owner.token}` } });
        if (res.ok) for (const m of ((await res.json()) as { data: MessageDto[] }).data) caughtUp.add(m.id);
      }
    };
    let reconnects = 0;
    agent.io.on('reconnect', () => {
      reconnects++;
      void catchUp();
    });
    const hints: number[] = [];
    for (const s of [...widgets, agent]) s.on(EVENTS.serverReconnect, (p: { in_ms: number }) => hints.push(p.in_ms));

    // Steady traffic: each visitor sends every ~250 ms and resends a message until it is acked
    // (the widget's outbox); a refused send (ok: false) is an error a visitor would see.
    let running = true;
    const acked = new Map<string, number>();
    const refused: unknown[] = [];
    const senders = widgets.map(async (w, i) => {
      for (let n = 0; running; n++) {
        const payload = { message: `visitor ${i} line ${n}`, client_id: `roll-${i}-${n}` };
        for (;;) {
          if (w.connected) {
            const ack = await emitAck<{ ok: boolean; data?: MessageDto; message?: string }>(w, EVENTS.messageSend, payload, 3000).catch(() => undefined);
            if (ack?.ok && ack.data) {
              acked.set(payload.client_id, ack.data.id);
              break;
            }
            if (ack && !ack.ok) refused.push(ack);
          }
          await sleep(100);
        }
        await sleep(200 + Math.random() * 100);
      }
    });

    const restart = async (i: number) => {
      const old = nodes[i]!;
      await sleep(1500);
      old.signal('SIGTERM');
      const exit = await old.exited;
      expect(exit, old.output()).toEqual({ code: 0, signal: null });
      await old.kill();
      nodes[i] = await startNodeProcess(nodeEnv, { port: old.port });
    };
    await restart(0);
    await restart(1);
    await sleep(3000);
    running = false;
    await Promise.all(senders);

    // Every socket is back.
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && ![...widgets, agent].every((s) => s.connected)) await sleep(100);
    expect([...widgets, agent].filter((s) => !s.connected)).toHaveLength(0);
    expect(refused).toEqual([]);
    expect(hints.length, 'sockets were moved with a reconnect hint').toBeGreaterThan(0);

    // Nothing doubled: each client_id stored once, with the id its sender was acked.
    const stored = await db.db
      .select({ id: messages.id, clientId: messages.clientId })
      .from(messages)
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .where(inArray(conversations.visitorId, [...mine]));
    const byClient = new Map<string, number[]>();
    for (const r of stored) byClient.set(r.clientId ?? '', [...(byClient.get(r.clientId ?? '') ?? []), r.id]);
    for (const [clientId, ids] of byClient) expect(ids, clientId).toHaveLength(1);
    // Nothing lost: every acked message is stored, and the agent has every stored message (live or by catch-up).
    expect(acked.size).toBeGreaterThan(VISITORS * 5);
    for (const [clientId, id] of acked) expect(byClient.get(clientId), clientId).toEqual([id]);
    await catchUp();
    const agentHas = new Set([...pushed, ...caughtUp]);
    for (const r of stored) expect(agentHas.has(r.id), `message ${r.id} at the agent`).toBe(true);
    // Pushes are never doubled by a drain (no node died).
    expect(pushed.length).toBe(new Set(pushed).size);
    expect(reconnects).toBeGreaterThanOrEqual(1);
  });
});
