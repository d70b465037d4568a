import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterNode, startCluster, type TestCluster } from '../../test/cluster.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { buildChattingVisitor, type TestVisitor } from '../../test/chatFactories.js';

// Two nodes on one PostgreSQL database (issue 11, finding 9): ids are taken before commit, so a
// lower id can become visible after a higher one. Pollers on both nodes must still end with
// every message, none twice.
let cluster: TestCluster;
let admin: pg.Client;
let dbUrl: string;

beforeAll(async () => {
  cluster = await startCluster({ db: 'postgres', redis: false });
  dbUrl = cluster.dbUrl!;
  admin = new pg.Client({ connectionString: dbUrl });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end();
  await cluster?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls one conversation with the cursor until stopped; counts every id it was given. A failed poll reports its answer and the node's logged errors. */
function poller(
  node: ClusterNode,
  get: (cursor: string | undefined) => Promise<{ status: number; body: { data: { id: number }[]; next_cursor: string } }>,
  ids?: Set<number>,
) {
  const seen = new Map<number, number>();
  let cursor: string | undefined;
  let running = true;
  const once = async () => {
    const res = await get(cursor);
    if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(res.body)}; the node logged: ${JSON.stringify(node.errors)}`);
    for (const m of res.body.data) seen.set(m.id, (seen.get(m.id) ?? 0) + 1);
    cursor = res.body.next_cursor;
  };
  const loop = (async () => {
    while (running) {
      await once();
      await sleep(5);
    }
  })();
  loop.catch(() => {
    running = false;
  });
  return {
    seen,
    ids,
    stop() {
      running = false;
    },
    async finish() {
      running = false;
      await loop;
      await once(); // everything is committed now: one last poll
    },
  };
}

describe('polling with the cursor on two nodes', () => {
  it('gives every poller every message exactly once although ids commit out of order', async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[number], (typeof cluster.nodes)[number]];
    const owner: TestOwner = await buildAccount(a.app);
    const visitors: TestVisitor[] = [];
    for (let i = 0; i < 3; i++) visitors.push(await buildChattingVisitor(i % 2 ? b.app : a.app, owner.widgetKey, `start ${i}`));
    const { rows: convs } = await admin.query<{ id: number }>('select id from conversations');

    // Pollers from the first load on, on both nodes: the console and each visitor's widget.
    const pollers = [];
    for (const v of visitors) {
      for (const node of [a, b]) {
        pollers.push({
          visitor: v.id,
          p: poller(node, (cursor) => call(node.app, 'GET', `/api/widget/messages${cursor ? `?cursor=${cursor}` : ''}`, { token: v.token })),
        });
        pollers.push({
          visitor: v.id,
          p: poller(node, (cursor) => call(node.app, 'GET', `/api/vms/messages/${v.id}${cursor ? `?cursor=${cursor}` : ''}`, { token: owner.token })),
        });
      }
    }

    // The old way, for contrast: `since_id` of the highest id seen skips what commits late.
    const bySinceId = visitors.map((v) => {
      let last = 0;
      const seen = new Set<number>();
      return poller(a, async () => {
        const res = await call(a.app, 'GET', `/api/widget/messages?since_id=${last}`, { token: v.token });
        for (const m of res.body.data as { id: number }[]) {
          seen.add(m.id);
          last = Math.max(last, m.id);
        }
        return { status: res.status, body: { data: [], next_cursor: '' } };
      }, seen);
    });

    // A transaction holding a low id open while higher ids commit around it.
    const held: pg.Client[] = [];
    const holdOne = async (conversationId: number) => {
      const c = new pg.Client({ connectionString: dbUrl });
      await c.connect();
      // Without the conversation triggers (migration 0017), whose update of the conversation row
      // would make every other send to it wait for this commit: the race kept here is the id
      // taken before the commit, which the app's own sends still have (nextval comes before the
      // row lock).
      await c.query('set session_replication_role = replica');
      await c.query('begin');
      await c.query(
        `insert into messages (account_id, conversation_id, sender_type, message) select account_id, id, 'visitor', 'held back' from conversations where id = $1`,
        [conversationId],
      );
      held.push(c);
    };

    try {
    const sends: Promise<unknown>[] = [];
    for (let round = 0; round < 20; round++) {
      if (round === 2 || round === 9) for (const c of convs) await holdOne(c.id);
      for (const [i, v] of visitors.entries()) {
        const node = (round + i) % 2 ? b : a;
        sends.push(call(node.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: `v${i} r${round}` } }));
        sends.push(call(node === a ? b.app : a.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: `agent ${i} r${round}` } }));
      }
      await sleep(10);
    }
    const answers = (await Promise.all(sends)) as { status: number; body: unknown }[];
    expect(answers.filter((r) => r.status !== 201).map((r) => ({ status: r.status, body: r.body }))).toEqual([]);
    await sleep(100); // pollers see the later, higher ids while the lower ones are still held
    for (const c of held) {
      await c.query('commit');
      await c.end();
    }
    await sleep(50);
    for (const { p } of pollers) await p.finish();

    const { rows } = await admin.query<{ id: number; visitor_id: string }>(
      'select m.id, c.visitor_id from messages m join conversations c on c.id = m.conversation_id',
    );
    expect(rows.length).toBe(3 + 20 * 6 + 2 * convs.length);
    for (const { visitor, p } of pollers) {
      const expected = rows.filter((r) => r.visitor_id === visitor).map((r) => Number(r.id)).sort((x, y) => x - y);
      expect([...p.seen.keys()].sort((x, y) => x - y)).toEqual(expected);
      expect([...p.seen.values()].every((n) => n === 1)).toBe(true);
    }
      // The since_id pollers missed the held-back messages for good.
      for (const p of bySinceId) await p.finish();
      const missed = visitors.map((v) => rows.filter((r) => r.visitor_id === v.id && !bySinceId[visitors.indexOf(v)]!.ids!.has(Number(r.id))).length);
      expect(missed).toEqual(visitors.map(() => 2));
    } finally {
      for (const { p } of pollers) p.stop();
      for (const p of bySinceId) p.stop();
      for (const c of held) await c.end().catch(() => {});
    }
  });
});
