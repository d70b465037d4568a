import { readMigrationFiles } from 'drizzle-orm/migrator';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type { Db } from './client.js';
import { MIGRATIONS_DIR } from '../paths.js';

export { MIGRATIONS_DIR };


const LOCK_KEY = 7_243_001;

/**
 * Applies migrations/ in order, each once, under a session advisory lock, on one connection.
 * drizzle's own migrator does the bookkeeping (drizzle.__drizzle_migrations).
 */
export async function runMigrations(db: Db, query: (sql: string) => Promise<unknown>): Promise<void> {
  readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR }); // fails early and clearly if the folder is missing
  await query(`select pg_advisory_lock(${LOCK_KEY})`);
  try {
    // drizzle's dialect-specific migrate() functions are one engine; this one also serves PGlite.
    await migrate(db as never, { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await query(`select pg_advisory_unlock(${LOCK_KEY})`);
  }
}
