import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { type Db, type Tx, rowsOf } from './client.js';

/**
 * A commit-safe cursor for polls and catch-up (PRODUCT.md section 11; issue 11, finding 9).
 *
 * Ids come from a sequence before commit, so "id > last id" skips a row whose transaction
 * commits after a higher id's. Instead, a table the cursor covers has an `xact_id xid8`
 * column whose DEFAULT is `pg_current_xact_id()` (the writing transaction; no writer names
 * it). A read runs in one REPEATABLE READ snapshot and hands back that snapshot as the cursor;
 * the next read returns exactly the rows whose transaction the previous snapshot could not
 * see (in progress or not started then, committed now). Every committed row is returned once
 * and none is skipped, whatever the commit order, on PostgreSQL and PGlite alike.
 *
 * The cursor is opaque to clients: base64url of PostgreSQL's snapshot text `xmin:xmax:xip,...`.
 */

const SNAPSHOT = /^(\d{1,20}):(\d{1,20}):((?:\d{1,20},)*\d{1,20})?$/;
/** Enough for a snapshot of several hundred concurrent transactions. */
export const MAX_CURSOR_LENGTH = 16_384;

export const encodeCursor = (snapshot: string): string => Buffer.from(snapshot, 'utf8').toString('base64url');

/** The snapshot inside a cursor, or null when the text is not a cursor this server gave out. */
export function decodeCursor(cursor: string): string | null {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const snapshot = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = SNAPSHOT.exec(snapshot);
  if (!m || BigInt(m[1]!) > BigInt(m[2]!)) return null;
  return snapshot;
}

/**
 * Runs `read` in a read-only REPEATABLE READ transaction and returns its result with the cursor
 * of the snapshot it read under: pass it to `committedSince` next time.
 */
export async function readWithCursor<T>(db: Db, read: (tx: Tx) => Promise<T>): Promise<{ result: T; nextCursor: string }> {
  return db.transaction(
    async (tx) => {
      // The first statement fixes the transaction's snapshot; `read` sees exactly that one.
      const snap = await tx.execute<{ s: string }>(sql`select pg_current_snapshot()::text as s`);
      const snapshot = rowsOf<{ s: string }>(snap)[0]!.s;
      return { result: await read(tx), nextCursor: encodeCursor(snapshot) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/**
 * Rows written by transactions the cursor's snapshot could not see: everything committed since.
 * `xactId` is the table's `xact_id` column. Rows older than the column (null) are in every
 * snapshot taken after it was added, so they never match.
 */
export function committedSince(xactId: SQLWrapper, snapshot: string): SQL {
  return sql`(${xactId} >= pg_snapshot_xmin(${snapshot}::pg_snapshot) and not pg_visible_in_snapshot(${xactId}, ${snapshot}::pg_snapshot))`;
}
