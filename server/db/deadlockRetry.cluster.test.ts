import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../test/harness.js';
import { waitingOnLock } from '../test/locks.js';
import { openPostgres, type Database } from './client.js';

/**
 * A statement of its own that PostgreSQL aborts to break a deadlock (40P01) is run again by the
 * pool (db/client.ts): the abort undid it, and the other side of the cycle went on. Before, the
 * caller got the error, and a console call answered 500 for a lock cycle it did not make.
 *
 * The cycle is forced, not left to timing: the other side waits 30 s before it checks for a
 * deadlock, so the pool's statement (1 s, the default) is the one PostgreSQL aborts.
 */
let db: { url: string; drop: () => Promise<void> };
let database: Database;
let other: pg.Client;
let admin: pg.Client;

beforeAll(async () => {
  db = await createPgDatabase();
  database = await openPostgres(db.url);
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query('create table deadlock_probe (id int primary key, v int not null)');
  other = new pg.Client({ connectionString: db.url });
  await other.connect();
  await other.query("set deadlock_timeout = '30s'");
});

afterAll(async () => {
  await other?.end().catch(() => {});
  await admin?.end().catch(() => {});
  await database?.close();
  await db?.drop();
});

describe('a statement chosen as a deadlock victim', () => {
  it('is run again, and ends as if it had waited its turn', async () => {
    await admin.query('insert into deadlock_probe values (1, 0), (2, 0)');
    // The other side holds row 2.
    await other.query('begin');
    await other.query('update deadlock_probe set v = v + 100 where id = 2');
    // The app's statement locks row 1, then waits for row 2.
    const app = database.db
      .execute(sql`update deadlock_probe set v = v + 1 where id in (select id from deadlock_probe where id in (1, 2) order by id for update)`)
      .then(
        () => 'done',
        (err: { code?: string }) => `failed ${err.code ?? (err as { cause?: { code?: string } }).cause?.code}`,
      );
    await waitingOnLock(admin, 'query like $1', ['%set v = v + 1%']);
    // Now the other side wants row 1: a cycle. The app's statement checks first and is aborted.
    const otherDone = other.query('update deadlock_probe set v = v + 100 where id = 1');
    await otherDone; // it got row 1 once the app's first run was undone
    await waitingOnLock(admin, 'query like $1', ['%set v = v + 1%']); // the second run waits for row 2 again
    await other.query('commit');
    expect(await app).toBe('done');
    const { rows } = await admin.query<{ id: number; v: number }>('select id, v from deadlock_probe order by id');
    expect(rows).toEqual([
      { id: 1, v: 101 },
      { id: 2, v: 101 },
    ]);
  });

  it('is not run again for an error of another kind', async () => {
    await admin.query('create sequence probe_runs');
    const err = await database.db.execute(sql`select nextval('probe_runs') / 0`).then(
      () => undefined,
      (e: unknown) => e as { cause?: { code?: string } },
    );
    expect(err?.cause?.code).toBe('22012'); // division by zero
    const { rows } = await admin.query<{ last_value: string }>('select last_value from probe_runs');
    expect(Number(rows[0]!.last_value)).toBe(1); // one run
  });
});
