import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_DB, createPgDatabase } from '../test/harness.js';
import { type Exec, runMigrations } from './migrate.js';

/**
 * The migration runner on both databases: every pending file once, in name order, all in one
 * transaction (a fresh database commits once; a failing file leaves nothing of the batch).
 */

interface Conn {
  exec: Exec;
  query: <T>(sql: string, params: unknown[]) => Promise<T[]>;
  close(): Promise<void>;
}

async function connect(): Promise<Conn> {
  if (TEST_DB === 'postgres') {
    const created = await createPgDatabase();
    const client = new pg.Client({ connectionString: created.url });
    await client.connect();
    return {
      exec: (text) => client.query(text),
      query: async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows as T[],
      async close() {
        await client.end();
        await created.drop();
      },
    };
  }
  const client = new PGlite();
  await client.waitReady;
  return {
    exec: (text) => client.exec(text),
    query: async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
    close: () => client.close(),
  };
}

let dir: string;
let conn: Conn;
const tables = async () =>
  (await conn.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public' order by 1", [])).map((r) => r.name);
const applied = async () => (await conn.query<{ name: string }>('select name from parley_migrations order by name', [])).map((r) => r.name);
const write = (name: string, text: string) => fs.writeFile(path.join(dir, name), text);

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-migrations-'));
  conn = await connect();
});
afterEach(async () => {
  await conn.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('runMigrations', () => {
  it('applies the pending files in name order, each once; files of other shapes are skipped', async () => {
    await write('0002_b.sql', 'create table b (id int references a (id));');
    await write('0001_a.sql', 'create table a (id int primary key);');
    await write('0003_c.concurrently.sql', 'create table not_mine (id int);');
    await write('notes.txt', 'not a migration');
    expect(await runMigrations(conn.exec, conn.query, dir)).toEqual(['0001_a.sql', '0002_b.sql']);
    expect(await tables()).toEqual(['a', 'b', 'parley_migrations']);
    expect(await applied()).toEqual(['0001_a.sql', '0002_b.sql']);
    // Again: nothing to do. A new file: only it.
    expect(await runMigrations(conn.exec, conn.query, dir)).toEqual([]);
    await write('0004_d.sql', 'alter table a add column note text;');
    expect(await runMigrations(conn.exec, conn.query, dir)).toEqual(['0004_d.sql']);
    expect(await applied()).toEqual(['0001_a.sql', '0002_b.sql', '0004_d.sql']);
  });

  it('a failing file leaves nothing of the batch, names itself, and the next start applies the whole batch once fixed', async () => {
    await write('0001_a.sql', 'create table a (id int primary key);');
    await runMigrations(conn.exec, conn.query, dir);
    await write('0002_b.sql', 'create table b (id int);');
    await write('0003_c.sql', 'create table c (id int references missing_table (id));');
    await expect(runMigrations(conn.exec, conn.query, dir)).rejects.toThrow(/migration 0003_c\.sql failed: .*missing_table/);
    // 0002 ran in the same transaction: rolled back with 0003; 0001 (an earlier start) stays.
    expect(await tables()).toEqual(['a', 'parley_migrations']);
    expect(await applied()).toEqual(['0001_a.sql']);
    await write('0003_c.sql', 'create table c (id int references a (id));');
    expect(await runMigrations(conn.exec, conn.query, dir)).toEqual(['0002_b.sql', '0003_c.sql']);
    expect(await tables()).toEqual(['a', 'b', 'c', 'parley_migrations']);
  });
});
