import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS, type MessageDto } from '@parley/shared';
import { REPO_ROOT } from '../paths.js';
import { startCluster, type ClusterNode, type TestCluster } from '../test/cluster.js';
import { buildAccount, buildMember, call, type TestOwner } from '../test/factories.js';
import { buildVisitor, type TestVisitor } from '../test/chatFactories.js';
import { TEST_SECRETS_KEY } from '../test/harness.js';
import { connect, connected, emitAck, freePort, next, socketTracker } from '../test/sockets.js';

/**
 * Two server nodes on one PostgreSQL database and one Redis (a private redis-server started by
 * this test, so it can be restarted): they behave as one.
 */

type Node = ClusterNode;
let cluster: TestCluster;
const stopRedis = () => cluster.redis!.stop();
const startRedis = () => cluster.redis!.start();
const stopNode = (node: Node) => cluster.stopNode(node);
const startNode = () => cluster.startNode();

/**
 * A node in its own process (the server's real entry point, run from source with tsx), so it can
 * be killed outright: no close hooks, no draining, sockets cut mid-write.
 */
const processes: ChildProcess[] = [];
async function spawnNode(): Promise<{ base: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.homedir(),
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: cluster.dbUrl!,
    REDIS_URL: cluster.redis!.url,
    DATA_DIR: cluster.dataDir,
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'server/index.ts')], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  processes.push(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) return { base, child, output: () => out };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`node process did not become ready:\n${out}`);
}

const track = socketTracker();

let A: Node;
let B: Node;
let owner: TestOwner;

beforeAll(async () => {
  cluster = await startCluster({ db: 'postgres' });
  [A, B] = cluster.nodes as [Node, Node];
  owner = await buildAccount(A.app);
}, 60_000);

afterAll(async () => {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await cluster?.close();
});

const widgetOn = async (node: Node, visitor: TestVisitor) => {
  const s = track(connect(node.base, { widget_key: owner.widgetKey, visitor_token: visitor.token }));
  await connected(s);
  return s;
};
const agentOn = async (node: Node, token = owner.token) => {
  const s = track(connect(node.base, { token }));
  await connected(s);
  return s;
};

describe('two nodes through Redis', () => {
  it("a visitor's message reaches its other tab on the other node as a push, and the tab that sent it only in its ack", async () => {
    const visitor = await buildVisitor(A.app, owner.widgetKey);
    const sender = await widgetOn(A, visitor);
    const otherTab = await widgetOn(B, visitor);
    const agent = await agentOn(B);
    const atSender: number[] = [];
    sender.on(EVENTS.messageCreated, (p: { message: MessageDto }) => atSender.push(p.message.id));
    const atOtherTab = next(otherTab, EVENTS.messageCreated, (p) => p.message.client_id === 'tabs-x');
    const atAgent = next(agent, EVENTS.messageCreated, (p) => p.message.client_id === 'tabs-x');
    const sent = await emitAck(sender, EVENTS.messageSend, { message: 'two tabs, two nodes', client_id: 'tabs-x' });
    expect((await atOtherTab).message).toEqual(sent.data);
    expect((await atAgent).message).toEqual(sent.data);
    // The agent's reply: both tabs.
    const replyAtSender = next(sender, EVENTS.messageCreated, (p) => p.message.client_id === 'tabs-y');
    const reply = await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: 'both of you', client_id: 'tabs-y' });
    await replyAtSender;
    expect(atSender).toEqual([reply.data.id]);
  });

  it('a visitor on node A and an agent on node B talk live; Redis restarts; A dies and the visitor catches up on B', async () => {
    const visitor = await buildVisitor(A.app, owner.widgetKey, { name: 'Cross Node' });
    const widget = await widgetOn(A, visitor);
    const agent = await agentOn(B);
    const received: MessageDto[] = [];
    widget.on(EVENTS.messageCreated, (p: { message: MessageDto }) => received.push(p.message));
    // What the widget does when told it may have missed events: refetch and merge by id.
    let resyncs = 0;
    widget.on(EVENTS.syncRequired, async () => {
      const all = await call(B.app, 'GET', '/api/widget/messages', { token: visitor.token });
      received.push(...all.body.data);
      resyncs++;
    });

    const atAgent = next(agent, EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id);
    const sent = await emitAck(widget, EVENTS.messageSend, { message: 'hello from A', client_id: 'v1' });
    expect((await atAgent).message.id).toBe(sent.data.id);

    const atWidget = next(widget, EVENTS.messageCreated, (p) => p.message.sender_type === 'user');
    const reply = await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: 'hello from B', client_id: 'a1' });
    expect((await atWidget).message.id).toBe(reply.data.id);

    const typingAtWidget = next(widget, EVENTS.typing);
    agent.emit(EVENTS.typing, { visitor_id: visitor.id, typing: true });
    expect((await typingAtWidget).from).toBe('agent');
    const typingAtAgent = next(agent, EVENTS.typing, (p) => p.visitor_id === visitor.id);
    widget.emit(EVENTS.typing, { typing: true });
    expect((await typingAtAgent).from).toBe('visitor');

    // Redis restarts: the adapter's clients reconnect and resubscribe, and delivery resumes.
    await stopRedis();
    await startRedis();
    let resumed = false;
    for (let i = 0; i < 40 && !resumed; i++) {
      const got = next(widget, EVENTS.messageCreated, (p) => p.message.client_id === `after-restart-${i}`, 500).then(
        () => true,
        () => false,
      );
      const ack = await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: `after restart ${i}`, client_id: `after-restart-${i}` }, 3000).catch(() => null);
      expect(ack?.ok ?? true).toBe(true);
      resumed = await got;
    }
    expect(resumed).toBe(true);
    // Node A lost Redis too: it asked its sockets to resync, so nothing published meanwhile is lost.
    const deadline = Date.now() + 5000;
    while (resyncs === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(resyncs).toBeGreaterThan(0);

    // Node A dies mid-conversation; the agent keeps writing on B meanwhile.
    const lastSeenId = Math.max(...received.map((m) => m.id));
    await stopNode(A);
    const whileAway = [];
    for (let i = 0; i < 3; i++) {
      whileAway.push((await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: `while away ${i}`, client_id: `away-${i}` })).data as MessageDto);
    }
    // The visitor reconnects to B and catches up from its last id: nothing lost, nothing doubled.
    const again = await widgetOn(B, visitor);
    const catchUp = await call(B.app, 'GET', `/api/widget/messages?since_id=${lastSeenId}`, { token: visitor.token });
    const merged = new Map<number, MessageDto>();
    for (const m of [...received, ...catchUp.body.data]) merged.set(m.id, m);
    const all = await call(B.app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token });
    expect([...merged.keys()].sort((a, b) => a - b)).toEqual(all.body.data.map((m: MessageDto) => m.id));
    for (const m of whileAway) expect(merged.has(m.id)).toBe(true);
    const live = next(again, EVENTS.messageCreated, (p) => p.message.client_id === 'back-1');
    await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: 'welcome back', client_id: 'back-1' });
    await live;
  }, 120_000);

  it('node A killed outright (SIGKILL) while the visitor writes: it resends its outbox on B; nothing lost, nothing doubled, every message reaches the agent live', async () => {
    const nodeA = await spawnNode();
    const visitor = await buildVisitor(B.app, owner.widgetKey, { name: 'Killed Node' });
    const agent = await agentOn(B);
    const pushed: number[] = [];
    agent.on(EVENTS.messageCreated, (p: { message: MessageDto }) => {
      if (p.message.visitor_id === visitor.id) pushed.push(p.message.id);
    });
    const onA = track(connect(nodeA.base, { widget_key: owner.widgetKey, visitor_token: visitor.token }));
    await connected(onA);

    // The widget's outbox: every message keeps its client_id until a stored copy is acked.
    const TOTAL = 40;
    const outbox = Array.from({ length: TOTAL }, (_, i) => ({ message: `note ${i}`, client_id: `kill-${i}` }));
    const ackedOnA = new Map<string, number>();
    let resyncs = 0;
    agent.on(EVENTS.syncRequired, () => resyncs++);
    const WARM = 10; // acked one by one before the stream
    for (const [i, payload] of outbox.entries()) {
      const acked = new Promise<void>((resolve) =>
        onA.emit(EVENTS.messageSend, payload, (ack: { ok: boolean; data?: MessageDto }) => {
          if (ack?.ok && ack.data) ackedOnA.set(payload.client_id, ack.data.id);
          resolve();
        }),
      );
      if (i < WARM) await acked;
      else await new Promise((r) => setTimeout(r, 2));
      if (i === WARM + 5) {
        nodeA.child.kill('SIGKILL'); // mid-stream: some stored, some in flight, the rest never sent
      }
    }
    await new Promise((r) => nodeA.child.exitCode !== null || nodeA.child.signalCode !== null ? r(null) : nodeA.child.once('exit', r));
    expect(nodeA.child.signalCode).toBe('SIGKILL');
    onA.close();
    expect(ackedOnA.size).toBeGreaterThanOrEqual(WARM);
    expect(ackedOnA.size).toBeLessThan(TOTAL);

    // The visitor reconnects to B and resends everything not acked (and, as after a lost ack, the rest too).
    const onB = await widgetOn(B, visitor);
    const finalIds = new Map<string, number>();
    for (const payload of outbox) {
      const ack = await emitAck<{ ok: boolean; data: MessageDto }>(onB, EVENTS.messageSend, payload);
      expect(ack.ok, payload.client_id).toBe(true);
      finalIds.set(payload.client_id, ack.data.id);
    }
    for (const [clientId, id] of ackedOnA) expect(finalIds.get(clientId), clientId).toBe(id);

    const stored = (await call(B.app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token })).body.data as MessageDto[];
    expect(stored.map((m) => m.client_id)).toEqual(expect.arrayContaining(outbox.map((o) => o.client_id)));
    expect(stored).toHaveLength(TOTAL);
    for (const m of stored) expect(finalIds.get(m.client_id!)).toBe(m.id);

    // Every stored message reaches the agent live: those A stored but never published are pushed
    // from push_outbox by B (issue 15), with no reload asked (past A's 4 s heartbeat timeout).
    // A message A published just before dying may be pushed once more (its row was not deleted
    // yet): at least once, merged by id by every client.
    const deadline = Date.now() + 6000;
    while (Date.now() < deadline && !stored.every((m) => pushed.includes(m.id))) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())));
    expect([...new Set(pushed)].sort((x, y) => x - y)).toEqual(stored.map((m) => m.id));
    for (const id of new Set(pushed)) expect(pushed.filter((p) => p === id).length, String(id)).toBeLessThanOrEqual(2);
    expect(resyncs).toBe(0);
  }, 120_000);

  it('history check: concurrent senders with retries on both nodes; every acked message stored once, in id order, seen alike by every receiver', async () => {
    const node2 = cluster.nodes.find((n) => n !== B) ?? (await startNode());
    const admin = await buildMember(B.app, owner, 'Admin');
    const visitor = await buildVisitor(B.app, owner.widgetKey, { name: 'Busy' });
    const senders = [
      { sock: await widgetOn(node2, visitor), kind: 'widget' as const },
      { sock: await widgetOn(B, visitor), kind: 'widget' as const },
      { sock: await agentOn(node2), kind: 'agent' as const },
      { sock: await agentOn(B, admin.token), kind: 'agent' as const },
    ];
    const receivers = [await agentOn(node2), await agentOn(B), await widgetOn(node2, visitor), await widgetOn(B, visitor)];
    const seen = receivers.map(() => [] as number[]);
    for (const [i, r] of receivers.entries()) {
      r.on(EVENTS.messageCreated, (p: { message: MessageDto }) => {
        if (p.message.visitor_id === visitor.id) seen[i]!.push(p.message.id);
      });
    }

    const PER_SENDER = 25;
    const acked = new Map<string, number>();
    await Promise.all(
      senders.map(async ({ sock, kind }, s) => {
        for (let i = 0; i < PER_SENDER; i++) {
          const clientId = `s${s}-m${i}`;
          const payload = kind === 'widget' ? { message: `${clientId}`, client_id: clientId } : { visitor_id: visitor.id, message: clientId, client_id: clientId };
          // Every send is retried at once (a lost ack), sometimes through REST instead of the socket.
          const tries = [emitAck(sock, EVENTS.messageSend, payload), emitAck(sock, EVENTS.messageSend, payload)];
          if (kind === 'widget' && i % 5 === 0) {
            tries.push(call(B.app, 'POST', '/api/widget/messages', { token: visitor.token, body: payload }).then((r) => ({ ok: true, data: r.body.data })));
          }
          const acks = await Promise.all(tries);
          const ids = new Set(acks.map((a) => (a as { data: MessageDto }).data.id));
          expect(ids.size, clientId).toBe(1);
          acked.set(clientId, [...ids][0]!);
        }
      }),
    );
    const stored = (await call(B.app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token })).body.data as MessageDto[];
    expect(stored).toHaveLength(senders.length * PER_SENDER);
    expect(new Set(stored.map((m) => m.client_id)).size).toBe(stored.length);
    for (const m of stored) expect(acked.get(m.client_id!)).toBe(m.id);
    const ids = stored.map((m) => m.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    // Every receiver ends with the same sequence: each stored message once.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && seen.some((s) => s.length < ids.length)) await new Promise((r) => setTimeout(r, 100));
    for (const s of seen) expect([...s].sort((a, b) => a - b)).toEqual(ids);
  }, 120_000);
});
