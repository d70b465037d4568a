import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS } from '@parley/shared';
import { startCluster, type ClusterNode, type TestCluster } from '../../test/cluster.js';
import { buildAccount, call } from '../../test/factories.js';
import { buildChattingVisitor } from '../../test/chatFactories.js';
import { connect, connected, next, socketTracker } from '../../test/sockets.js';
import { WIDGET_POLL, statementsOf } from '../../test/statements.js';
import { callFrom } from '../../test/httpFrom.js';

// Issue 15: polls answered "nothing new" from a node's memory (services/quietPolls.ts) on two
// nodes with Redis, one database: a message stored on node A is seen by the next poll on node B,
// which has no socket of the visitor: B heard A's fan-out through Redis, never a stale 304.
let cluster: TestCluster;
let a: ClusterNode;
let b: ClusterNode;
const track = socketTracker();
beforeAll(async () => {
  cluster = await startCluster({ nodes: 2 });
  [a, b] = cluster.nodes as [ClusterNode, ClusterNode];
}, 60_000);
afterAll(() => cluster?.close());

describe('polls answered from memory on two nodes', () => {
  it('a message stored on node A ends node B\'s remembered "nothing new": B\'s next poll returns it', async () => {
    const owner = await buildAccount(a.app);
    const v = await buildChattingVisitor(a.app, owner.widgetKey, 'Anyone there?');
    const poll = (etag?: string) =>
      call(b.app, 'GET', `/api/widget/messages?cursor=${cursor}`, { token: v.token, ...(etag ? { headers: { 'if-none-match': etag } } : {}) });
    const cursor = (await call(b.app, 'GET', '/api/widget/messages', { token: v.token })).body.next_cursor as string;

    // B checks once, then answers from memory.
    const first = await statementsOf(b.app, WIDGET_POLL, () => poll());
    expect(first.result.status).toBe(200);
    expect(first.statements).toBe(1);
    const etag = first.result.headers.etag as string;
    const remembered = await statementsOf(b.app, WIDGET_POLL, () => poll(etag));
    expect(remembered.result.status).toBe(304);
    expect(remembered.statements).toBe(0);
    // Over HTTP, B answers it before Fastify (routes/widget/widget.ts earlyQuietPolls).
    const viaHttp = (tag: string) =>
      callFrom(b.base, '127.0.0.1', 'GET', `/api/widget/messages?cursor=${cursor}`, { token: v.token, headers: { 'if-none-match': tag } });
    const early = b.app.refusalGate.answeredEarly;
    expect((await viaHttp(etag)).status).toBe(304);
    expect(b.app.refusalGate.answeredEarly).toBe(early + 1);

    // The agent answers on A. The owner's console on B gets the message in the same fan-out as
    // the visitor's room: once it has, B has heard it (the visitor has no socket anywhere).
    const console = track(connect(b.base, { token: owner.token }));
    await connected(console);
    const heard = next<{ message: { message: string } }>(console, EVENTS.messageCreated, (p) => p.message.message === 'Yes, we are here');
    expect((await call(a.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Yes, we are here' } })).status).toBe(201);
    await heard;
    // Neither early nor through Fastify is the remembered "nothing new" given again.
    const freshEarly = await viaHttp(etag);
    expect(freshEarly.status).toBe(200);
    expect(JSON.parse(freshEarly.text).data.map((m: { message: string }) => m.message)).toEqual(['Yes, we are here']);
    expect(b.app.refusalGate.answeredEarly).toBe(early + 1);
    const fresh = await poll(etag);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.map((m: { message: string }) => m.message)).toEqual(['Yes, we are here']);

    // From the new cursor: nothing new again, remembered again on B; and A answers on its own.
    const after = fresh.body.next_cursor as string;
    const idle = await call(b.app, 'GET', `/api/widget/messages?cursor=${after}`, { token: v.token });
    expect(idle.body).toMatchObject({ data: [], next_cursor: after });
    const again = await statementsOf(b.app, WIDGET_POLL, () =>
      call(b.app, 'GET', `/api/widget/messages?cursor=${after}`, { token: v.token, headers: { 'if-none-match': idle.headers.etag as string } }),
    );
    expect(again.result.status).toBe(304);
    expect(again.statements).toBe(0);
    // The visitor writes on A (the REST fallback): B's memory of that cursor ends too.
    const heardVisitor = next<{ message: { message: string } }>(console, EVENTS.messageCreated, (p) => p.message.message === 'Great');
    expect((await call(a.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Great' } })).status).toBe(201);
    await heardVisitor;
    const own = await call(b.app, 'GET', `/api/widget/messages?cursor=${after}`, { token: v.token, headers: { 'if-none-match': idle.headers.etag as string } });
    expect(own.status).toBe(200);
    expect(own.body.data.map((m: { message: string }) => m.message)).toEqual(['Great']);
  }, 30_000);
});
