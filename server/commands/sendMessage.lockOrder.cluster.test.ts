import { fillPlaceholders } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND_QUERY } from './sendMessage.js';
import { startCluster, type TestCluster } from '../test/cluster.js';
import { buildAccount, call } from '../test/factories.js';
import { buildChattingVisitor } from '../test/chatFactories.js';

/**
 * The append statement (group commit) of two nodes writes to the same conversations at once,
 * each node's batch in the order its messages arrived. Row locks taken in two different orders
 * deadlocked the two batches; and a console opening one of those conversations (its mark-read,
 * one UPDATE waiting on the row) could be the one PostgreSQL aborted: that poll answered 500
 * (cursor.cluster.test.ts failed that way once in CI). The statement locks its conversations in
 * id order, so batches wait for each other instead, and so does the mark-read.
 *
 * The interleaving is forced with row locks, not left to timing: each step starts once the
 * previous one is seen waiting on a lock in pg_stat_activity.
 */
let cluster: TestCluster;
const clients: pg.Client[] = [];

beforeAll(async () => {
  cluster = await startCluster({ db: 'postgres', redis: false, nodes: 1 });
});

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await cluster?.close();
});

async function connect(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: cluster.dbUrl });
  await c.connect();
  clients.push(c);
  return c;
}

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

/** Resolves once a backend matching `where` waits on a lock. */
async function waitingOnLock(admin: pg.Client, where: string, args: unknown[]): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query(`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and ${where}`, args);
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`nothing waits on a lock where ${where}`);
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

    // The other writer is done: A goes on.
    await x.query('commit');
    const resultA = await byA;
    await a.query(resultA.ok ? 'commit' : 'rollback');
    const open = await opened;
    const resultB = await byB;
    await b.query(resultB.ok ? 'commit' : 'rollback');

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
    // (unread 2), the console's read (0), B's message (1).
    const stored = await admin.query<{ message: string }>("select message from messages where message like 'a %' or message like 'b %' order by message");
    expect(stored.rows.map((r) => r.message)).toEqual(['a 0', 'a 1', 'a 2', 'b 0', 'b 1']);
    const unread = await admin.query<{ unread_count: number }>('select unread_count from conversations where id = $1', [low.conversationId]);
    expect(unread.rows[0]!.unread_count).toBe(1);
  });
});
