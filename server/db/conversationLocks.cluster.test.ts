import { fillPlaceholders } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_COLORS } from '@parley/shared';
import { APPEND_QUERY } from '../commands/sendMessage.js';
import { startCluster, type TestCluster } from '../test/cluster.js';
import { buildAccount, buildMember, call } from '../test/factories.js';
import { buildChattingVisitor } from '../test/chatFactories.js';
import { pgClients, waitingOnLock } from '../test/locks.js';

/**
 * Every writer of several conversations locks them in id order (db/conversationLocks.ts), so two
 * writers wait for each other instead of deadlocking, which made PostgreSQL abort one of them: a
 * user's call answered 500 (40P01).
 *
 * - The append statement (group commit) of two nodes writes to the same conversations at once,
 *   each node's batch in the order its messages arrived. Row locks taken in two different orders
 *   deadlocked the two batches; and a console opening one of those conversations (its mark-read,
 *   one UPDATE waiting on the row) could be the one PostgreSQL aborted: that poll answered 500
 *   (cursor.cluster.test.ts failed that way once in CI).
 * - Assigning a member several conversations, and deleting a label they carry, lock them in one
 *   transaction. Locked in their scan's order, they could hold a higher conversation while a
 *   batch held a lower one and wanted the higher.
 *
 * The interleavings are forced with row locks, not left to timing: each step starts once the
 * previous one is seen waiting on a lock in pg_stat_activity. Where a scan's order matters, it is
 * forced away from the id order: the lower conversation's row is updated in place, so its live
 * version sits after the higher one's in the table (a sequential scan, the plan on a table this
 * small, then meets the higher one first); the other side locks in id order, like a batch, and
 * waits 30 s before it checks for a deadlock.
 */
let cluster: TestCluster;
const { connect, endAll } = pgClients(() => cluster.dbUrl);

beforeAll(async () => {
  cluster = await startCluster({ db: 'postgres', redis: false, nodes: 1 });
});

afterAll(async () => {
  await endAll();
  await cluster?.close();
});

interface Chat {
  visitorId: string;
  accountId: string;
  conversationId: number;
}

/** The append statement as a node runs it, for these chats in this order (one visitor message each), on `client`. */
function append(client: pg.Client, chats: Chat[], tag: string) {
  const n = chats.length;
  const params = fillPlaceholders(APPEND_QUERY.params, {
    visitorIds: chats.map((c) => c.visitorId),
    accountIds: chats.map((c) => c.accountId),
    clientIds: chats.map(() => null),
    senderTypes: chats.map(() => 'visitor'),
    authorIds: chats.map(() => null),
    texts: chats.map((_, i) => `${tag} ${i}`),
    filePaths: Array(n).fill(''),
    fileNames: Array(n).fill(''),
    fileTypes: Array(n).fill(''),
    fileSizes: Array(n).fill(0),
    lastMessages: chats.map((_, i) => `${tag} ${i}`),
    fromVisitors: Array(n).fill(true),
    jobs: Array(n).fill('[]'),
    node: `test-${tag}`,
  });
  return client.query(APPEND_QUERY.sql, params as unknown[]);
}

const settle = <T>(p: Promise<T>) => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

describe('two nodes appending to the same conversations while a console opens one', () => {
  it('neither deadlocks the batches nor fails the console: every lock waits its turn', async () => {
    const [node] = cluster.nodes;
    const app = node!.app;
    const owner = await buildAccount(app);
    const visitors = [];
    for (let i = 0; i < 3; i++) visitors.push(await buildChattingVisitor(app, owner.widgetKey, `first ${i}`));
    const admin = await connect();
    const { rows } = await admin.query<{ visitor_id: string; account_id: string; id: number }>(
      'select visitor_id, account_id, id from conversations where visitor_id = any($1::uuid[]) order by id',
      [visitors.map((v) => v.id)],
    );
    const [low, mid, high] = rows.map((r) => ({ visitorId: r.visitor_id, accountId: r.account_id, conversationId: r.id })) as [Chat, Chat, Chat];

    const [x, a, b] = [await connect(), await connect(), await connect()];
    const pidOf = async (c: pg.Client) => (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const [pidA, pidB] = [await pidOf(a), await pidOf(b)];
    // Another writer holds the highest conversation for now.
    await x.query('begin');
    await x.query('select 1 from conversations where id = $1 for no key update', [high.conversationId]);

    // Node A's batch, in arrival order low, high, mid: it gets as far as `high`.
    await a.query('begin');
    const byA = settle(append(a, [low, high, mid], 'a'));
    await waitingOnLock(admin, 'pid = $1', [pidA]);

    // The console opens `low` (unread: its first load marks it read), and waits for A.
    const opened = settle(call(app, 'GET', `/api/vms/messages/${low.visitorId}`, { token: owner.token }));
    await waitingOnLock(admin, `query like 'update "conversations" set "unread_count"%'`, []);

    // Node B's batch, in arrival order mid, low.
    await b.query('begin');
    const byB = settle(append(b, [mid, low], 'b'));
    await waitingOnLock(admin, 'pid = $1', [pidB]);

    // The other writer is done: A goes on, then B (a node's batch is one statement, committed as
    // soon as it ran: B does not wait for the console).
    await x.query('commit');
    const resultA = await byA;
    await a.query(resultA.ok ? 'commit' : 'rollback');
    const resultB = await byB;
    await b.query(resultB.ok ? 'commit' : 'rollback');
    const open = await opened;

    // Old order: the console's mark-read was aborted (40P01: GET 500), then one batch too.
    const failure = (r: { ok: boolean; error?: unknown }) => (r.ok ? undefined : String((r.error as { code?: string }).code ?? r.error));
    const res = open.ok ? open.value : undefined;
    expect({
      a: failure(resultA),
      b: failure(resultB),
      console: res?.status ?? failure(open),
      logged: node!.errors.map((e) => ({ msg: e.msg, sqlState: e.sqlState })),
    }).toEqual({ a: undefined, b: undefined, console: 200, logged: [] });
    // The console read before A committed: the first message only.
    expect(res!.body.data.map((m: { message: string }) => m.message)).toEqual([`first ${visitors.findIndex((v) => v.id === low.visitorId)}`]);

    // Every message of both batches stored, and each write to `low` in its turn: A's message
    // (unread 2), then the console's read (0) and B's message (+1). Those two waited behind A, the
    // console first; but A updated the row, and PostgreSQL does not keep its waiters' order once
    // the row they wait for was updated (each follows it to its new version, and either may lock
    // that first): B's message then the read (0), or the read then B's message (1). (CI once saw
    // B first while this test held B's transaction open until the console answered: the console
    // waited on B until its statement timeout, 503.)
    const stored = await admin.query<{ message: string }>("select message from messages where message like 'a %' or message like 'b %' order by message");
    expect(stored.rows.map((r) => r.message)).toEqual(['a 0', 'a 1', 'a 2', 'b 0', 'b 1']);
    const unread = await admin.query<{ unread_count: number }>('select unread_count from conversations where id = $1', [low.conversationId]);
    expect([0, 1]).toContain(unread.rows[0]!.unread_count);
  });
});

describe('assigning several conversations while a batch writes to them', () => {
  it('waits for the batch instead of deadlocking with it', async () => {
    const app = cluster.nodes[0]!.app;
    const owner = await buildAccount(app);
    const member = await buildMember(app, owner, 'Agent', { name: 'Ada' });
    const first = await buildChattingVisitor(app, owner.widgetKey, 'first');
    const second = await buildChattingVisitor(app, owner.widgetKey, 'second');
    const admin = await connect();
    const { rows } = await admin.query<{ id: number; visitor_id: string }>('select id, visitor_id from conversations where visitor_id = any($1::uuid[]) order by id', [[first.id, second.id]]);
    const [low, high] = rows as [{ id: number; visitor_id: string }, { id: number; visitor_id: string }];
    // The lower conversation's live row now comes after the higher one's in the table.
    await admin.query('update conversations set last_message = last_message where id = $1', [low.id]);
    const order = await admin.query<{ id: number }>('select id from conversations'); // a sequential scan: the table's order
    expect(order.rows.map((r) => r.id).filter((id) => id === low.id || id === high.id)).toEqual([high.id, low.id]);

    // A writer that locks in id order (as the message batches do) has the lower one.
    const batch = await connect();
    await batch.query("set deadlock_timeout = '30s'");
    await batch.query('begin');
    await batch.query('select 1 from conversations where id = $1 for no key update', [low.id]);

    const assigned = call(app, 'POST', `/api/vms/team/${member.id}/assign`, { token: owner.token, body: { user_ids: [first.id, second.id] } });
    // Its select of the conversations to lock (pg_stat_activity cuts the long text before "for update").
    await waitingOnLock(admin, 'query like $1', ['select "conversations"."id", "conversations"."account_id"%']);

    // The batch goes on to the higher one, and commits.
    await batch.query('select 1 from conversations where id = $1 for no key update', [high.id]);
    await batch.query('commit');

    const res = await assigned;
    expect({ status: res.status, logged: cluster.nodes[0]!.errors.map((e) => e.sqlState) }).toEqual({ status: 200, logged: [] });
    const { rows: after } = await admin.query<{ assignee_id: number }>('select assignee_id from conversations where id = any($1::int[])', [[low.id, high.id]]);
    expect(after.map((r) => r.assignee_id)).toEqual([member.id, member.id]);
  });

  it('deleting a label they carry waits for the batch too', async () => {
    const app = cluster.nodes[0]!.app;
    const owner = await buildAccount(app);
    const first = await buildChattingVisitor(app, owner.widgetKey, 'first');
    const second = await buildChattingVisitor(app, owner.widgetKey, 'second');
    const admin = await connect();
    const { rows } = await admin.query<{ id: number; visitor_id: string }>('select id, visitor_id from conversations where visitor_id = any($1::uuid[]) order by id', [[first.id, second.id]]);
    const [low, high] = rows as [{ id: number; visitor_id: string }, { id: number; visitor_id: string }];
    const label = await call(app, 'POST', '/api/vms/labels', { token: owner.token, body: { name: 'VIP', color: LABEL_COLORS[0] } });
    expect(label.status).toBe(201);
    // Labelled higher one first, and the lower one's row moved after it: whatever the plan, the
    // delete's update met the higher one first.
    for (const v of [high, low]) {
      const put = await call(app, 'PUT', `/api/vms/conversations/${v.visitor_id}/labels`, { token: owner.token, body: { label_ids: [label.body.data.id] } });
      expect(put.status).toBe(200);
    }
    await admin.query('update conversations set last_message = last_message where id = $1', [low.id]);

    const batch = await connect();
    await batch.query("set deadlock_timeout = '30s'");
    await batch.query('begin');
    await batch.query('select 1 from conversations where id = $1 for no key update', [low.id]);
    const deleted = call(app, 'DELETE', `/api/vms/labels/${label.body.data.id}`, { token: owner.token });
    await waitingOnLock(admin, 'query like $1', ['%"conversations"%']);
    await batch.query('select 1 from conversations where id = $1 for no key update', [high.id]);
    await batch.query('commit');

    const res = await deleted;
    expect({ status: res.status, logged: cluster.nodes[0]!.errors.map((e) => e.sqlState) }).toEqual({ status: 200, logged: [] });
    const { rows: left } = await admin.query('select 1 from conversation_labels where label_id = $1', [label.body.data.id]);
    expect(left).toEqual([]);
  });
});
