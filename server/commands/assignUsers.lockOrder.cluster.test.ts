import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../test/cluster.js';
import { buildAccount, buildMember, call } from '../test/factories.js';
import { buildChattingVisitor } from '../test/chatFactories.js';
import { LABEL_COLORS } from '@parley/shared';

/**
 * Assigning a member several conversations (POST /api/vms/team/:id/assign) locks them in one
 * transaction. The message batches of every node lock conversations in id order
 * (sendMessage.lockOrder.cluster.test.ts); a transaction that locked them in another order
 * (its scan's) could hold a higher one while a batch held a lower one and wanted the higher:
 * a deadlock, and PostgreSQL aborted the assign (its statement checks first): the owner got 500.
 * The assign takes its locks in id order too, so it waits instead.
 *
 * The scan order is forced away from the id order: the lower conversation's row is updated in
 * place, so its live version sits after the higher one's in the table (a sequential scan, the
 * plan on a table this small, then meets the higher one first). The other side is a writer that
 * locks in id order, like a batch, and waits 30 s before it checks for a deadlock.
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

async function waitingOnLock(admin: pg.Client, pattern: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await admin.query("select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like $1", [pattern]);
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  const { rows } = await admin.query("select state, wait_event_type, left(query, 300) as q from pg_stat_activity where datname = current_database()");
  throw new Error(`nothing running "${pattern}" waits on a lock: ${JSON.stringify(rows)}`);
}

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
    await waitingOnLock(admin, 'select "conversations"."id", "conversations"."account_id"%');

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
    await waitingOnLock(admin, '%"conversations"%');
    await batch.query('select 1 from conversations where id = $1 for no key update', [high.id]);
    await batch.query('commit');

    const res = await deleted;
    expect({ status: res.status, logged: cluster.nodes[0]!.errors.map((e) => e.sqlState) }).toEqual({ status: 200, logged: [] });
    const { rows: left } = await admin.query('select 1 from conversation_labels where label_id = $1', [label.body.data.id]);
    expect(left).toEqual([]);
  });
});
