import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.js';
import { openPglite, openPostgres } from '../db/client.js';
import { pushOutbox } from '../db/schema.js';
import { TEST_DB, createPgDatabase } from '../test/harness.js';
import { NODE_ID, PUSH_RELAY_SETTINGS, PushRelay, type PushRelaySettings } from './pushRelay.js';

/**
 * The push outbox (issue 15): the storing node deletes its own rows in batches; any node pushes
 * the rows of a node that died between commit and push, once; a live node's rows are its own
 * until they are very late; rows too old to matter are dropped unpushed.
 */

const quiet = () => undefined;
const log = { level: 'silent', fatal: quiet, error: quiet, warn: quiet, info: quiet, debug: quiet, trace: quiet, silent: quiet, child: () => log } as FastifyBaseLogger;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A timer that never fires within a test: passes are run by hand. */
const manual: PushRelaySettings = { ...PUSH_RELAY_SETTINGS, pollMs: 3_600_000, afterMs: 300, anywayMs: 5000, staleMs: 30_000, deleteEveryMs: 50 };

let database: Database;
let drop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (TEST_DB === 'postgres') {
    const pg = await createPgDatabase();
    drop = pg.drop;
    database = await openPostgres(pg.url);
  } else {
    database = await openPglite(undefined);
  }
  await database.migrate();
});

afterAll(async () => {
  await database?.close();
  await drop?.();
});

beforeEach(async () => {
  await database.db.delete(pushOutbox);
});

/** A row owed by `node`, `ageMs` old by the database's clock. */
async function owed(messageId: number, node: string, ageMs: number): Promise<void> {
  await database.db.insert(pushOutbox).values({ messageId, node, createdAt: sql`now() - ${ageMs}::int * interval '1 millisecond'` });
}

const left = async () => (await database.db.select({ id: pushOutbox.messageId }).from(pushOutbox).orderBy(pushOutbox.messageId)).map((r) => r.id);

function relayWith(live: Set<string> | undefined, settings = manual) {
  const pushes: number[][] = [];
  const relay = new PushRelay(
    database.db,
    log,
    async (_tx, ids) => {
      pushes.push(ids);
      return ids.length;
    },
    async () => live,
    settings,
  );
  return { relay, pushes };
}

describe('PushRelay', () => {
  it("deletes the rows this node pushed, many in one statement, and never relays them meanwhile", async () => {
    for (let id = 1; id <= 300; id++) await owed(id, NODE_ID, 10_000); // old enough to be overdue
    const { relay, pushes } = relayWith(new Set([NODE_ID]));
    for (let id = 1; id <= 300; id++) relay.pushed(id);
    // Not deleted yet (the batch waits for its period): this node's own pending rows are not relayed.
    expect(await relay.pass()).toEqual([]);
    await sleep(manual.deleteEveryMs + 100);
    await relay.close();
    expect(await left()).toEqual([]);
    expect(pushes).toEqual([]);
  });

  it("pushes, once, the rows of a node that is gone once they are old enough; leaves a live node's and young rows alone", async () => {
    await owed(1, 'dead-node', 1000); // its node died after the commit: pushed
    await owed(2, 'live-node', 1000); // its node is alive and pushes it itself
    await owed(3, 'dead-node', 0); // too young to tell (its node may still be about to push it)
    await owed(4, 'live-node', 6000); // very late: pushed whatever its node (a lost push)
    await owed(5, 'dead-node', 60_000); // too old: its clients caught up since; dropped unpushed
    const a = relayWith(new Set([NODE_ID, 'live-node']));
    const b = relayWith(new Set([NODE_ID, 'live-node']));
    const [fromA, fromB] = await Promise.all([a.relay.pass(), b.relay.pass()]);
    expect([...fromA, ...fromB].sort()).toEqual([1, 4]);
    expect([...a.pushes, ...b.pushes].flat().sort()).toEqual([1, 4]);
    expect(await left()).toEqual([2, 3]);
    // A second look pushes nothing again.
    expect(await a.relay.pass()).toEqual([]);
    await a.relay.close();
    await b.relay.close();
  });

  it('cannot tell which nodes are alive (Redis down): only very late rows are pushed', async () => {
    await owed(1, 'dead-node', 1000);
    await owed(2, 'dead-node', 6000);
    const { relay, pushes } = relayWith(undefined);
    expect(await relay.pass()).toEqual([2]);
    expect(pushes).toEqual([[2]]);
    expect(await left()).toEqual([1]);
    await relay.close();
  });

  it('runs on its own timer: a dead node\'s row is pushed without being asked', async () => {
    await owed(7, 'dead-node', 0);
    const { relay, pushes } = relayWith(new Set([NODE_ID]), { ...manual, pollMs: 100 });
    relay.start();
    const t0 = Date.now();
    while (pushes.length === 0 && Date.now() - t0 < 3000) await sleep(20);
    await relay.close();
    expect(pushes).toEqual([[7]]);
    expect(await left()).toEqual([]);
  });
});
