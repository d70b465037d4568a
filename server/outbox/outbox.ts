import { type SQL, and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { outbox } from '../db/schema.js';

/** A row of the outbox table. */
export type OutboxRow = typeof outbox.$inferSelect;

/** A row a relay may take at `now`: pending, and no relay's hold on it (a claim's lock) still running. */
export const outboxRowFree = (now: Date): SQL => and(eq(outbox.status, 'pending'), or(isNull(outbox.lockedUntil), lt(outbox.lockedUntil, now))) as SQL;

/** One piece of work to record with the write that causes it. */
export interface OutboxEntry {
  /** Which relay hands it over ('job' today; pushes later). */
  topic: string;
  name: string;
  payload: unknown;
  /** While an unfinished row holds this key, another entry with it is not written (it joins). */
  dedupeKey?: string | undefined;
  /** Due this long after the write. */
  delayMs?: number | undefined;
}

/**
 * What a topic's relay hands rows to. `deliver` returns 'removed' when the receiver took the row
 * out of the outbox itself (in the same transaction as taking it over), 'relayed' when the
 * receiver only accepted it: the row then stays until the work finished (the receiver deletes
 * it), so `check` can tell a lost row from a held one.
 */
export interface OutboxHandOver {
  deliver(row: OutboxRow): Promise<'removed' | 'relayed'>;
  /** For relayed rows: 'held' (still there), 'lost' (relay again) or 'failed' (kept as failed). */
  check?(row: OutboxRow): Promise<'held' | 'lost' | 'failed'>;
}

/**
 * A receiver in the same database (the in-process runner's table): it moves up to `limit` of its
 * topic's pending rows out of the outbox itself, in one statement (atomic by itself: no claim
 * and no hand-over per row). Returns how many rows it took.
 */
export interface OutboxTaker {
  take(topic: string, limit: number): Promise<number>;
}

export type OutboxSink = OutboxHandOver | OutboxTaker;

/**
 * Records entries in the caller's transaction (or alone). Returns how many rows were written
 * (an entry whose dedupe key is held by an unfinished row is skipped).
 */
export async function writeOutbox(db: Tx, entries: OutboxEntry[]): Promise<number> {
  if (entries.length === 0) return 0;
  const now = Date.now();
  const rows = await db
    .insert(outbox)
    .values(
      entries.map((e) => ({
        topic: e.topic,
        name: e.name,
        payload: e.payload,
        dedupeKey: e.dedupeKey ?? null,
        runAt: new Date(now + (e.delayMs ?? 0)),
      })),
    )
    // The only conflict is the partial unique index on dedupe_key: an unfinished row holds it.
    .onConflictDoNothing({ target: outbox.dedupeKey, where: sql`status in ('pending', 'relayed')` })
    .returning({ id: outbox.id });
  return rows.length;
}

/** The receiver finished the work of these rows: they leave the outbox. */
export async function finishOutbox(db: Tx, ids: number[]): Promise<void> {
  if (ids.length > 0) await db.delete(outbox).where(inArray(outbox.id, ids));
}

/** The receiver gave up on this row's work (its retries are spent): kept as failed, not relayed again. */
export async function failOutbox(db: Tx, id: number, error: string): Promise<void> {
  await db
    .update(outbox)
    .set({ status: 'failed', lastError: error.slice(0, 2000), lockedUntil: null })
    .where(and(eq(outbox.id, id), inArray(outbox.status, ['pending', 'relayed'])));
}

/** Drops the unfinished rows holding this key; returns them (a relayed one may need its receiver told). */
export async function dropOutbox(db: Tx, topic: string, dedupeKey: string): Promise<OutboxRow[]> {
  return db
    .delete(outbox)
    .where(and(eq(outbox.topic, topic), eq(outbox.dedupeKey, dedupeKey), inArray(outbox.status, ['pending', 'relayed'])))
    .returning();
}
