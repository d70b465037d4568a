import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema.js';
import { runMigrations } from './migrate.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction or the database itself: commands accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Runs the SQL migrations under an advisory lock (safe when several nodes start at once). */
  migrate(): Promise<void>;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    async migrate() {
      const client = await pool.connect();
      try {
        await runMigrations(
          (text) => client.query(text),
          async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows as T[],
        );
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    close: () => pool.end(),
  };
}

/** The embedded default: PGlite in dataDir (or in memory when dataDir is undefined). */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  let client: PGlite;
  if (dataDir) {
    const dir = path.join(dataDir, 'pgdata');
    await fs.mkdir(dir, { recursive: true });
    client = new PGlite(dir);
  } else {
    client = new PGlite();
  }
  await client.waitReady;
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async migrate() {
      await runMigrations(
        (text) => client.exec(text),
        async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
      );
    },
    async ping() {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

export function openDatabase(config: { databaseUrl?: string | undefined; dataDir: string }): Promise<Database> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite(config.dataDir);
}
