import fs from 'node:fs/promises';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../paths.js';

export { MIGRATIONS_DIR };

const LOCK_KEY = 7_243_001;

/** Runs SQL text on one connection (several statements allowed; no parameters). */
export type Exec = (sql: string) => Promise<unknown>;

/**
 * Applies migrations/*.sql in file-name order, each once and in its own transaction, under a
 * session advisory lock so several nodes may start at once. The same files serve PostgreSQL
 * and PGlite. Files are plain SQL so that each area of the product adds its own file
 * (NNNN_area.sql) without touching a shared journal.
 */
export async function runMigrations(exec: Exec, query: <T>(sql: string, params: unknown[]) => Promise<T[]>): Promise<string[]> {
  const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await exec(`select pg_advisory_lock(${LOCK_KEY})`);
  try {
    await exec('create table if not exists parley_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await query<{ name: string }>('select name from parley_migrations', [])).map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await fs.readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
      await exec('begin');
      try {
        await exec(sql);
        await query('insert into parley_migrations (name) values ($1)', [file]);
        await exec('commit');
      } catch (e) {
        await exec('rollback');
        throw new Error(`migration ${file} failed: ${(e as Error).message}`);
      }
      applied.push(file);
    }
  } finally {
    await exec(`select pg_advisory_unlock(${LOCK_KEY})`);
  }
  return applied;
}
