import fs from 'node:fs/promises';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../paths.js';

export { MIGRATIONS_DIR };

const LOCK_KEY = 7_243_001;

/** Runs SQL text on one connection (several statements allowed; no parameters). */
export type Exec = (sql: string) => Promise<unknown>;

/**
 * Applies migrations/*.sql in file-name order, each once, under a session advisory lock so
 * several nodes may start at once. The same files serve PostgreSQL and PGlite. Files are plain
 * SQL so that each area of the product adds its own file (NNNN_area.sql) without touching a
 * shared journal.
 *
 * Every pending file runs in one transaction: a fresh database (an empty DATA_DIR) gets all of
 * them with one commit instead of one per file, and a failing file leaves the database as it
 * was before the start (the error names the file). So a migration must not rely on an earlier
 * pending one having committed (e.g. use an enum value added by `ALTER TYPE ... ADD VALUE`);
 * statements that cannot run in a transaction go in `NNNN_area.concurrently.sql` files, which
 * this runner skips (the operator runs them).
 */
export async function runMigrations(
  exec: Exec,
  query: <T>(sql: string, params: unknown[]) => Promise<T[]>,
  dir: string = MIGRATIONS_DIR,
): Promise<string[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  await exec(`select pg_advisory_lock(${LOCK_KEY})`);
  try {
    await exec('create table if not exists parley_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await query<{ name: string }>('select name from parley_migrations', [])).map((r) => r.name));
    const pending = files.filter((f) => !done.has(f));
    if (pending.length === 0) return [];
    const texts = await Promise.all(pending.map((f) => fs.readFile(path.join(dir, f), 'utf8')));
    await exec('begin');
    let current = '';
    try {
      for (let i = 0; i < pending.length; i++) {
        current = pending[i]!;
        await exec(texts[i]!);
      }
      current = '';
      await query('insert into parley_migrations (name) select unnest($1::text[])', [pending]);
      await exec('commit');
    } catch (e) {
      await exec('rollback');
      throw new Error(`migration ${current || pending.join(', ')} failed: ${(e as Error).message}`);
    }
    return pending;
  } finally {
    await exec(`select pg_advisory_unlock(${LOCK_KEY})`);
  }
}
