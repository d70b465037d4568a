import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { TEST_DB, createPgDatabase, createTestApp, testConfig } from '../test/harness.js';
import { buildAccount, call } from '../test/factories.js';
import { buildVisitor } from '../test/chatFactories.js';
import { type Database, openPglite, openPostgres } from './client.js';
import { FairQueue, LanePacer, LaneSlots, laneOfAccount, runForAccount, runInLane } from './fair.js';

/**
 * One tenant's flood never slows another (issue 11): the database is shared round-robin between
 * accounts, not first come first served, on both databases (PGlite's one connection, and the
 * PostgreSQL pool's waiters).
 */

/** drizzle's execute() answers the driver's result: rows on both drivers. */
const rowsOf = (result: unknown) => (result as { rows: { n: number }[] }).rows;

describe('FairQueue', () => {
  it('serves lanes in turn: a newcomer waits one call per other waiting lane, not for the whole queue', async () => {
    // Every lane's use equal (a frozen clock: calls of no duration), so the rotation alone decides;
    // on a loaded machine the call in progress could otherwise hold the slot past the tie margin.
    const clock = vi.spyOn(performance, 'now').mockReturnValue(1000);
    onTestFinished(() => clock.mockRestore());
    const q = new FairQueue(1);
    const order: string[] = [];
    const hold = await q.acquire('a'); // a call in progress
    const waits: Promise<void>[] = [];
    const take = (lane: string, name: string) =>
      waits.push(
        q.acquire(lane).then((release) => {
          order.push(name);
          release();
        }),
      );
    for (let i = 0; i < 50; i++) take('a', `a${i}`);
    take('b', 'b0');
    take('c', 'c0');
    take('b', 'b1');
    expect(q.pending).toBe(53);
    hold();
    await Promise.all(waits);
    // a, b and c alternate while each has waiters; b's second call does not wait for a's 50.
    expect(order.slice(0, 6)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2']);
    expect(order).toHaveLength(53);
    expect(q.pending).toBe(0);
  });

  it('serves the lane that held the slot least lately first: a light tenant goes right after the call in progress', async () => {
    const q = new FairQueue(1);
    // Tenant a has held the slot for 40 ms just now (long writes); b has not used it.
    const long = await q.acquire('a');
    await new Promise((r) => setTimeout(r, 40));
    long();
    expect(q.useOf('a')).toBeGreaterThan(20);
    const hold = await q.acquire('a'); // a's next write in progress
    const order: string[] = [];
    const waits = ['a', 'a', 'a', 'b', 'b'].map((lane, i) =>
      q.acquire(lane).then((release) => {
        order.push(`${lane}${i}`);
        release();
      }),
    );
    hold();
    await Promise.all(waits);
    // Round-robin would have served a0 first (a was first in the rotation); by time, b goes first.
    expect(order.slice(0, 2)).toEqual(['b3', 'b4']);
    expect(order).toHaveLength(5);
  });

  it("does not let an idle lane bank its idle time: a busy console's next call waits for one call of a flood that just began, not until the flood has caught up", async () => {
    let now = 1000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    onTestFinished(() => clock.mockRestore());
    const q = new FairQueue(1);
    // The console (lane c) has just held the slot for 200 ms: a busy agent's list queries.
    const c0 = await q.acquire('c');
    now += 200;
    c0();
    // A flood begins (lane f, idle until now): a call in progress and 20 more of 20 ms each queued.
    const hold = await q.acquire('f');
    const order: string[] = [];
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      waits.push(
        q.acquire('f').then((release) => {
          order.push(`f${i}`);
          now += 20;
          release();
        }),
      );
    }
    waits.push(
      q.acquire('c').then((release) => {
        order.push('c');
        now += 2;
        release();
      }),
    );
    now += 20;
    hold();
    await Promise.all(waits);
    // Counted from nothing, the flood would have gone first until its use passed the console's: ten calls, 200 ms.
    expect(order.indexOf('c')).toBeLessThanOrEqual(1);
    expect(order).toHaveLength(21);
  });

  it('keeps each lane in order and uses every slot', async () => {
    const q = new FairQueue(3);
    const releases = await Promise.all([q.acquire('a'), q.acquire('a'), q.acquire('b')]);
    const got: string[] = [];
    const next = [q.acquire('a').then(() => got.push('a3')), q.acquire('a').then(() => got.push('a4')), q.acquire('b').then(() => got.push('b1'))];
    expect(q.pending).toBe(3);
    for (const r of releases) r();
    await Promise.all(next);
    expect(got).toEqual(['a3', 'b1', 'a4']);
  });

  it('a waiter that times out leaves the queue; the others are still served', async () => {
    const q = new FairQueue(1);
    const hold = await q.acquire('a');
    const late = q.acquire('a', 20, () => new Error('timeout exceeded when trying to connect'));
    const patient = q.acquire('b');
    await expect(late).rejects.toThrow('timeout exceeded when trying to connect');
    expect(q.pending).toBe(1);
    hold();
    const release = await patient;
    release();
    expect(q.pending).toBe(0);
  });
});

describe(`fair database access (${TEST_DB})`, () => {
  let database: Database;
  let drop = async () => {};

  beforeAll(async () => {
    if (TEST_DB === 'postgres') {
      const created = await createPgDatabase();
      drop = created.drop;
      // Two connections: a flood of 40 calls fills the pool's queue.
      database = await openPostgres(created.url, { poolMax: 2 });
    } else {
      database = await openPglite(undefined);
    }
    await database.db.execute(sql`create table counters (id int primary key, n int not null)`);
    await database.db.execute(sql`insert into counters values (1, 0)`);
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  it("serves another account's query after a bounded number of turns, not after the flooding account's whole queue", async () => {
    const { db } = database;
    const done: string[] = [];
    const flood = Array.from({ length: 40 }, (_, i) =>
      runForAccount('flooder', async () => await db.execute(sql`select pg_sleep(0.005), ${i}::int as i`)).then(() => done.push(`flood${i}`)),
    );
    // Queued after all 40: first come first served would answer it last.
    const other = runForAccount('other', async () => await db.execute(sql`select 1 as one`)).then(() => done.push('other'));
    await Promise.all([...flood, other]);
    expect(done).toHaveLength(41);
    // At most the calls already holding a connection, plus one turn of the flooder, come first.
    expect(done.indexOf('other')).toBeLessThanOrEqual(4);
  });

  it('transactions keep their connection under the scheduler: no deadlock, all or nothing', async () => {
    const { db } = database;
    // Many transactions of two accounts, interleaved with single queries of both, all at once.
    const bump = (account: string) =>
      runForAccount(account, () =>
        db.transaction(async (tx) => {
          const [row] = rowsOf(await tx.execute(sql`select n from counters where id = 1 for update`));
          await tx.execute(sql`select pg_sleep(0.001)`);
          await tx.execute(sql`update counters set n = ${(row?.n ?? 0) + 1} where id = 1`);
        }),
      );
    const reads = (account: string) => Array.from({ length: 10 }, () => runForAccount(account, async () => await db.execute(sql`select n from counters where id = 1`)));
    const failed = runForAccount('a', () =>
      db.transaction(async (tx) => {
        await tx.execute(sql`update counters set n = n + 1000 where id = 1`);
        throw new Error('rolled back');
      }),
    );
    await Promise.all([
      ...Array.from({ length: 15 }, () => bump('a')),
      ...reads('b'),
      ...Array.from({ length: 15 }, () => bump('b')),
      ...reads('a'),
      expect(failed).rejects.toThrow('rolled back'),
    ]);
    const [row] = rowsOf(await db.execute(sql`select n from counters where id = 1`));
    expect(row?.n).toBe(30);
  });

  it('calls outside any request share the server lane and still run', async () => {
    const results = await Promise.all([database.db.execute(sql`select 1 as one`), runInLane('x', async () => await database.db.execute(sql`select 2 as two`))]);
    expect(results.map((r) => rowsOf(r).length)).toEqual([1, 1]);
  });
});

describe(`requests wait in their account's lane (${TEST_DB})`, () => {
  const t = {} as { app: FastifyInstance; database: Database; dataDir: string; drop: () => Promise<void> };
  beforeAll(async () => {
    t.dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-fair-'));
    t.drop = async () => {};
    if (TEST_DB === 'postgres') {
      const created = await createPgDatabase();
      t.drop = created.drop;
      // Few connections: the flood's calls queue for them as they do for PGlite's one (no
      // connect timeout on a slow test machine: waiting is what is measured).
      t.database = await openPostgres(created.url, { poolMax: 2, connectTimeoutMs: 60_000 });
    } else {
      t.database = await openPglite(undefined);
    }
    await t.database.migrate();
    // The database's turns are what is measured: the widget-write lanes (services/widgetWrites.ts) out of the way.
    t.app = await buildApp({ config: testConfig(t.dataDir, { WIDGET_WRITES_PER_ACCOUNT: '1000', WIDGET_WRITE_SHARE: '100' }), database: t.database, logger: false });
    await t.app.ready();
  });
  afterAll(async () => {
    await t.app.close();
    await t.database.close();
    await t.drop();
    await fs.rm(t.dataDir, { recursive: true, force: true });
  });

  it("another tenant's console waits a few turns, not a turn per queued flood call", async () => {
    const flooded = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const visitors = await Promise.all(Array.from({ length: 40 }, () => buildVisitor(t.app, flooded.widgetKey)));
    // Each token once, as any earlier call would: the node then knows whose it is before reading.
    await Promise.all(visitors.map((v) => call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'hello' } })));
    const alone = t.database.fair.granted;
    expect((await call(t.app, 'GET', '/api/vms/conversations', { token: other.token })).status).toBe(200);
    const own = t.database.fair.granted - alone; // the console call's own database calls

    // 40 visitors send at once, twice each, with the console call among them.
    let during = 0;
    const flood = visitors.flatMap((v, i) =>
      [0, 1].map((j) =>
        call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: `flood ${i}-${j}` } }).then((r) => expect(r.status).toBe(201)),
      ),
    );
    const before = t.database.fair.granted;
    const console = call(t.app, 'GET', '/api/vms/conversations', { token: other.token }).then((r) => {
      during = t.database.fair.granted - before;
      expect(r.status).toBe(200);
    });
    await Promise.all([...flood, console]);
    // First come first served, each of its calls would wait for the flood's 40 queued ones. In
    // turns, each waits for about one call per other busy lane (the flooded account's, the server's).
    expect(during).toBeLessThan(own * 4 + 10);
    expect(during).toBeLessThan(40);
  }, 120_000);

  it('lanes are per account: laneOfAccount names them', () => {
    expect(laneOfAccount('x')).not.toBe(laneOfAccount('y'));
  });
});

describe('LanePacer', () => {
  afterEach(() => vi.useRealTimers());
  const refused = (s: number) => Object.assign(new Error('paced out'), { retryAfterSeconds: s });

  it("lets a lane's burst through at once, then paces it, in order; another lane is not held by it", async () => {
    vi.useFakeTimers();
    const pacer = new LanePacer(3, 10, 5000, refused);
    const done: string[] = [];
    const calls = Array.from({ length: 8 }, (_, i) => pacer.wait('account:big').then(() => done.push(`big${i}`)));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['big0', 'big1', 'big2']);
    // Another tenant's call, made while the big one waits, goes at once.
    await pacer.wait('account:tiny');
    expect(done).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(100);
    expect(done).toEqual(['big0', 'big1', 'big2', 'big3']);
    await vi.advanceTimersByTimeAsync(400);
    await Promise.all(calls);
    expect(done).toEqual(Array.from({ length: 8 }, (_, i) => `big${i}`));
    // After a quiet second the burst is back.
    await vi.advanceTimersByTimeAsync(1000);
    const t0 = Date.now();
    await Promise.all([pacer.wait('account:big'), pacer.wait('account:big'), pacer.wait('account:big')]);
    expect(Date.now()).toBe(t0);
  });

  it('refuses a call that would wait longer than its limit, and that refusal takes no turn', async () => {
    vi.useFakeTimers();
    const pacer = new LanePacer(2, 2, 1000, refused);
    const waits = Array.from({ length: 4 }, () => pacer.wait('account:x')); // 2 at once, then 500 ms and 1000 ms
    await expect(pacer.wait('account:x')).rejects.toMatchObject({ retryAfterSeconds: 2 });
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(waits);
    // The refused call held no token: the next one waits 500 ms, not 1000.
    const next = pacer.wait('account:x');
    let passed = false;
    void next.then(() => (passed = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(passed).toBe(true);
  });
});

describe('LaneSlots', () => {
  afterEach(() => vi.useRealTimers());
  const refused = (s: number) => Object.assign(new Error('no turn'), { retryAfterSeconds: s });

  it("holds a lane's calls beyond its slots in order, and never holds another lane", async () => {
    const slots = new LaneSlots(2, 10_000, refused);
    const order: string[] = [];
    const a = await slots.enter('account:big');
    const b = await slots.enter('account:big');
    const waiting = [
      slots.enter('account:big').then((r) => (order.push('new1'), r)),
      slots.enter('account:big').then((r) => (order.push('new2'), r)),
    ];
    expect(slots.load('account:big')).toEqual({ busy: 2, waiting: 2 });
    // Another lane goes at once.
    (await slots.enter('account:tiny'))();
    expect(order).toEqual([]);
    const settle = () => new Promise((r) => setImmediate(r));
    a();
    a(); // a second release of the same turn frees nothing
    await settle();
    expect(order).toEqual(['new1']);
    b();
    await settle();
    expect(order).toEqual(['new1', 'new2']);
    (await waiting[0]!)();
    (await waiting[1]!)();
    expect(slots.load('account:big')).toEqual({ busy: 0, waiting: 0 });
  });

  it('refuses a waiter that is not served within its limit and takes it out of the queue; the next waiter still gets its turn', async () => {
    vi.useFakeTimers();
    const slots = new LaneSlots(1, 1500, refused);
    const held = await slots.enter('account:x');
    const late = slots.enter('account:x');
    const lateResult = expect(late).rejects.toMatchObject({ retryAfterSeconds: 2 });
    await vi.advanceTimersByTimeAsync(1000);
    const next = slots.enter('account:x');
    await vi.advanceTimersByTimeAsync(500);
    await lateResult;
    expect(slots.load('account:x')).toEqual({ busy: 1, waiting: 1 });
    held();
    (await next)();
    expect(slots.load('account:x')).toEqual({ busy: 0, waiting: 0 });
  });

  it('with a share of one half, a slot rests as long as it was held before its next call; another lane is not held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'Date', 'performance'] });
    const slots = new LaneSlots(1, 10_000, refused, 0.5);
    const first = await slots.enter('account:x');
    let second: (() => void) | undefined;
    void slots.enter('account:x').then((r) => (second = r));
    await vi.advanceTimersByTimeAsync(300);
    first(); // held 300 ms: the slot rests 300 ms
    await vi.advanceTimersByTimeAsync(290);
    expect(second).toBeUndefined();
    (await slots.enter('account:y'))(); // another lane: at once
    await vi.advanceTimersByTimeAsync(20);
    expect(second).toBeDefined();
    second!(); // held 20 ms: rests 20 ms
    await vi.advanceTimersByTimeAsync(25);
    expect(slots.load('account:x')).toEqual({ busy: 0, waiting: 0 });
  });

  it('lets a lane off its rests up to the burst, earned back over time; calls that keep coming then rest', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'Date', 'performance'] });
    // Share one quarter: a call held d ms owes 3d of rest, and the lane earns back a quarter of the
    // time passed; it is let off up to 1,000 ms of rest.
    const slots = new LaneSlots(1, 10_000, refused, 0.25, 1000);
    const hold = async (ms: number) => {
      const release = await slots.enter('account:x');
      await vi.advanceTimersByTimeAsync(ms);
      release();
    };
    // A visitor's few writes, one after another: none waits for the one before.
    for (let i = 0; i < 3; i++) {
      await hold(50); // owes 150 ms, let off (1,000 + 12.5 earned - 150 each: 575 left)
      expect(slots.load('account:x')).toEqual({ busy: 0, waiting: 0 });
    }
    // Then one held 400 ms (owes 1,200; 575 + 100 earned meanwhile are let off) with a call waiting:
    // it waits the remaining 525 ms of rest.
    const release = await slots.enter('account:x');
    let next: (() => void) | undefined;
    void slots.enter('account:x').then((r) => (next = r));
    await vi.advanceTimersByTimeAsync(400);
    release();
    await vi.advanceTimersByTimeAsync(515);
    expect(next).toBeUndefined();
    await vi.advanceTimersByTimeAsync(20);
    expect(next).toBeDefined();
    next!();
    // Quiet for a while, the lane earns its whole burst back: a call owing 900 ms does not rest.
    await vi.advanceTimersByTimeAsync(5000);
    await hold(300);
    expect(slots.load('account:x')).toEqual({ busy: 0, waiting: 0 });
  });
});

describe("one account's conversation-list polls are paced; another account's list is not held", () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const t = await createTestApp({ CONSOLE_LIST_BURST: '3', CONSOLE_LIST_PER_SECOND: '4' });
    app = t.app;
    close = t.close;
  });
  afterAll(async () => close?.());

  it('answers every paced call, in the pace; the other tenant is answered meanwhile', async () => {
    const big = await buildAccount(app, { email: 'big-poller@example.com' });
    const tiny = await buildAccount(app, { email: 'tiny-owner@example.com' });
    const started = Date.now();
    const ended: number[] = [];
    const polls = Array.from({ length: 7 }, () =>
      call(app, 'GET', '/api/vms/conversations?limit=20', { token: big.token }).then((r) => {
        expect(r.status).toBe(200);
        ended.push(Date.now() - started);
      }),
    );
    const other = await call(app, 'GET', '/api/vms/conversations?limit=20', { token: tiny.token });
    expect(other.status).toBe(200);
    const otherAt = Date.now() - started;
    await Promise.all(polls);
    // 3 at once, then 4 a second: the 7th no earlier than about a second in.
    expect(Math.max(...ended)).toBeGreaterThanOrEqual(950);
    expect(otherAt).toBeLessThan(Math.max(...ended));
  });

  it('refuses what would wait more than 5 s with 429 and Retry-After, in the envelope', async () => {
    const owner = await buildAccount(app, { email: 'flood-poller@example.com' });
    const replies = await Promise.all(Array.from({ length: 30 }, () => call(app, 'GET', '/api/vms/conversations?limit=5', { token: owner.token })));
    const refused = replies.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(3 + 4 * 5);
    expect(refused[0]!.body).toMatchObject({ message: 'Too many requests. Please try again later.' });
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
