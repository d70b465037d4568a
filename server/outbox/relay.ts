import { and, asc, count, eq, inArray, lt, min, notInArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { outbox } from '../db/schema.js';
import { type OutboxHandOver, type OutboxRow, type OutboxSink, type OutboxTaker, outboxRowFree } from './outbox.js';

export interface RelaySettings {
  /** How often the table is looked at when nothing wakes the relay. */
  pollMs: number;
  /** A relayed row not finished after this long is checked with its receiver (lost: relayed again). */
  checkAfterMs: number;
  /** A receiver that does not answer within this is treated as down for this pass. */
  deliverTimeoutMs: number;
}

/** Rows taken per pass. */
const BATCH = 100;
/** A relay that died while holding rows (a crash mid-hand-over) lets them go after twice its hand-over timeout. */
const lockMs = (s: RelaySettings) => Math.max(2000, 2 * s.deliverTimeoutMs);
/** Longest wait between tries of a row whose receiver is down. */
const MAX_RETRY_MS = 30_000;

export interface OutboxCounts {
  /** Written, not yet handed over (the receiver was down, or not yet looked at). */
  pending: number;
  /** Handed over, work not finished yet. */
  relayed: number;
  /** The receiver gave up on them (kept). */
  failed: number;
  /** Age of the oldest pending row, 0 when none. */
  oldestPendingSeconds: number;
}

export interface RelayTotals {
  /** Rows handed over by this process. */
  relayed: number;
  /** Relayed rows the receiver no longer had (lost, e.g. a Redis restart without persistence), relayed again. */
  lost: number;
  /** Hand-overs that failed (receiver down): retried. */
  errors: number;
}

class Timeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Timeout(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Hands outbox rows to their topic's sink, on every live node at once (rows are claimed with
 * FOR UPDATE SKIP LOCKED and a lock that expires). A row is never dropped: while its receiver
 * is down it stays pending and is retried with backoff, which /metrics shows. Relayed rows that
 * stay unfinished are checked with their receiver and relayed again when it lost them.
 */
export class OutboxRelay {
  readonly totals: RelayTotals = { relayed: 0, lost: 0, errors: 0 };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopped = false;
  private lastCheck = 0;
  /** Receivers that take their rows themselves (one statement per pass), by topic. */
  private takers: [string, OutboxTaker][];
  /** Receivers rows are handed to one by one, by topic. */
  private sinks: Record<string, OutboxHandOver>;

  constructor(
    private db: Db,
    private log: FastifyBaseLogger,
    sinks: Record<string, OutboxSink>,
    private settings: RelaySettings,
  ) {
    this.takers = Object.entries(sinks).filter((e): e is [string, OutboxTaker] => 'take' in e[1]);
    this.sinks = Object.fromEntries(Object.entries(sinks).filter((e): e is [string, OutboxHandOver] => !('take' in e[1])));
  }

  start(): void {
    this.started = true;
    this.wake();
  }

  /** Look at the table now (a row was just written). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.wake();
      } else {
        this.timer = setTimeout(() => this.wake(), this.settings.pollMs);
      }
    });
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  async counts(): Promise<OutboxCounts> {
    const rows = await this.db
      .select({ status: outbox.status, n: count(), oldest: min(outbox.createdAt) })
      .from(outbox)
      .groupBy(outbox.status);
    const of = (s: OutboxRow['status']) => rows.find((r) => r.status === s);
    const oldest = of('pending')?.oldest;
    return {
      pending: of('pending')?.n ?? 0,
      relayed: of('relayed')?.n ?? 0,
      failed: of('failed')?.n ?? 0,
      oldestPendingSeconds: oldest ? Math.max(0, (Date.now() - new Date(oldest).getTime()) / 1000) : 0,
    };
  }

  private async pass(): Promise<void> {
    try {
      for (const [topic, sink] of this.takers) {
        for (let taken = BATCH; taken === BATCH && !this.stopped; ) {
          taken = await sink.take(topic, BATCH);
          this.totals.relayed += taken;
        }
      }
      // Rows of the other topics are claimed and handed over one by one (nothing to claim when
      // every receiver takes its rows itself, as the in-process runner does).
      while (!this.stopped && Object.keys(this.sinks).length > 0) {
        const rows = await this.claim();
        if (rows.length === 0) break;
        const delivered = await this.deliver(rows);
        if (!delivered || rows.length < BATCH) break;
      }
      // Relayed rows are checked about twice per checkAfterMs: a lost one is relayed again within 1.5x that.
      if (!this.stopped && Date.now() - this.lastCheck >= this.settings.checkAfterMs / 2) {
        this.lastCheck = Date.now();
        for (let i = 0; i < 10 && !this.stopped && (await this.checkRelayed()) === BATCH; i++);
      }
    } catch (err) {
      if (!this.stopped) this.log.error({ err }, 'outbox relay pass failed');
    }
  }

  private async claim(): Promise<OutboxRow[]> {
    const now = new Date();
    const free = this.db
      .select({ id: outbox.id })
      .from(outbox)
      .where(
        and(
          outboxRowFree(now),
          ...(this.takers.length > 0 ? [notInArray(outbox.topic, this.takers.map(([topic]) => topic))] : []),
        ),
      )
      .orderBy(asc(outbox.id))
      .limit(BATCH)
      .for('update', { skipLocked: true });
    const rows = await this.db
      .update(outbox)
      .set({ lockedUntil: new Date(now.getTime() + lockMs(this.settings)), attempts: sql`${outbox.attempts} + 1` })
      .where(and(inArray(outbox.id, free), eq(outbox.status, 'pending')))
      .returning();
    return rows.sort((a, b) => a.id - b.id);
  }

  /** Hands rows over in order; stops at the first failure (the receiver is down) and lets the rest go. Returns whether all went. */
  private async deliver(rows: OutboxRow[]): Promise<boolean> {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const sink = this.sinks[row.topic];
      try {
        if (!sink) throw new Error(`no relay for outbox topic ${row.topic}`);
        const outcome = await withTimeout(sink.deliver(row), this.settings.deliverTimeoutMs);
        this.totals.relayed++;
        if (outcome === 'relayed') {
          await this.db
            .update(outbox)
            .set({ status: 'relayed', relayedAt: new Date(), lockedUntil: null, lastError: null })
            .where(and(eq(outbox.id, row.id), eq(outbox.status, 'pending')));
        }
      } catch (err) {
        this.totals.errors++;
        const retryMs = Math.min(MAX_RETRY_MS, this.settings.pollMs * 2 ** Math.min(10, row.attempts - 1));
        this.log.warn({ err, outboxId: row.id, topic: row.topic, name: row.name, attempts: row.attempts }, 'outbox relay failed; will retry');
        const rest = rows.slice(i).map((r) => r.id);
        await this.db
          .update(outbox)
          .set({ lockedUntil: new Date(Date.now() + retryMs), lastError: (err instanceof Error ? err.message : String(err)).slice(0, 2000) })
          .where(and(inArray(outbox.id, rest), eq(outbox.status, 'pending')));
        return false;
      }
    }
    return true;
  }

  /** Relayed rows still unfinished a while later: does the receiver still hold them? Returns how many were looked at. */
  private async checkRelayed(): Promise<number> {
    const before = new Date(Date.now() - this.settings.checkAfterMs);
    const rows = await this.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.status, 'relayed'), lt(outbox.relayedAt, before)))
      .orderBy(asc(outbox.relayedAt))
      .limit(BATCH);
    for (const row of rows) {
      const sink = this.sinks[row.topic];
      if (!sink?.check) continue;
      let state: 'held' | 'lost' | 'failed';
      try {
        state = await withTimeout(sink.check(row), this.settings.deliverTimeoutMs);
      } catch (err) {
        this.log.warn({ err, topic: row.topic }, 'outbox check failed; will look again');
        return 0; // the receiver is down: nothing to learn now
      }
      const mine = and(eq(outbox.id, row.id), eq(outbox.status, 'relayed'));
      if (state === 'held') {
        await this.db.update(outbox).set({ relayedAt: new Date() }).where(mine);
      } else if (state === 'failed') {
        await this.db.update(outbox).set({ status: 'failed', lastError: 'failed in the queue' }).where(mine);
      } else {
        const back = await this.db.update(outbox).set({ status: 'pending', lockedUntil: null, lastError: 'lost by the queue' }).where(mine).returning({ id: outbox.id });
        if (back.length > 0) {
          this.totals.lost++;
          this.log.error({ outboxId: row.id, topic: row.topic, name: row.name }, 'the queue lost a relayed row: relaying it again');
          this.again = true;
        }
      }
    }
    return rows.length;
  }
}
