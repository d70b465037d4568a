import { type SQL, and, asc, count, eq, inArray, lte, min, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { jobs, outbox } from '../db/schema.js';
import type { OutboxEntry, OutboxRow } from '../outbox/outbox.js';
import { backoffDelay, runJob } from './registry.js';
import { DeferJob, PermanentJobError, type JobBackend, type JobContext, type JobCounts } from './types.js';

/** A running job whose process died is handed back after this long. */
const LOCK_MS = 5 * 60_000;
/**
 * How often a tick looks for running jobs whose lock ran out (a dead process's): a lock lasts
 * LOCK_MS, so once every 30 s is soon enough, not at every tick (a tick follows every finished
 * job: under a burst of chats that was an UPDATE per job on the database everyone shares).
 */
const RECLAIM_EVERY_MS = 30_000;
const CONCURRENCY = 2;
/** How long close() waits for running jobs before handing them back. */
const CLOSE_GRACE_MS = 10_000;

type JobRow = typeof jobs.$inferSelect;

/**
 * The runner without Redis: the relay moves a job from the outbox into this table (so a delayed
 * or pending job survives a restart), claimed with FOR UPDATE SKIP LOCKED (safe with several
 * processes on PostgreSQL).
 */
export class InProcessRunner implements JobBackend {
  readonly kind = 'in-process' as const;
  private running = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private ticking = false;
  private again = false;
  private reclaimedAt = 0;

  constructor(
    private db: Db,
    private ctx: JobContext,
  ) {}

  /**
   * Outbox sink: the job moves into the runner's table and leaves the outbox in one statement
   * (atomic by itself: no transaction's begin and commit around two statements, which made up
   * most of a new chat's statements on the embedded database; issue 11). The row is taken out
   * first: a second relay moving the same row (its lock ran out) finds it gone and adds nothing.
   */
  async deliver(row: OutboxRow): Promise<'removed'> {
    const taken = sql`with taken as (delete from ${outbox} where ${outbox.id} = ${row.id} returning 1)`;
    const runAt = new Date(row.runAt);
    if (await this.insert({ name: row.name, payload: row.payload, runAt, dedupeKey: row.dedupeKey }, taken)) this.wakeAt(runAt.getTime());
    return 'removed';
  }

  /** Without a transaction to join, a job goes straight into the table (durable at once; no relay needed). */
  async insertNow(entry: OutboxEntry): Promise<void> {
    const runAt = new Date(Date.now() + (entry.delayMs ?? 0));
    if (await this.insert({ name: entry.name, payload: entry.payload, runAt, dedupeKey: entry.dedupeKey ?? null })) this.wakeAt(runAt.getTime());
  }

  /**
   * Adds a job, or joins the one already pending under its dedupe key (the partial unique index:
   * the only conflict). With `taken` (a CTE named taken), only if that yields a row. Whether it was added.
   */
  private async insert(job: { name: string; payload: unknown; runAt: Date; dedupeKey: string | null }, taken?: SQL): Promise<boolean> {
    const { attempts, backoffMs } = this.ctx.settings;
    const added = await this.db.execute(sql`${taken ?? sql``}
      insert into ${jobs} (name, payload, max_attempts, backoff_ms, run_at, dedupe_key)
      select ${job.name}, ${JSON.stringify(job.payload)}::jsonb, ${attempts}, ${backoffMs}, ${job.runAt.toISOString()}::timestamptz, ${job.dedupeKey}
      ${taken ? sql`from taken` : sql``}
      on conflict do nothing
      returning id`);
    return (added as unknown as { rows: unknown[] }).rows.length > 0;
  }

  async cancel(dedupeKey: string): Promise<void> {
    await this.db.delete(jobs).where(and(eq(jobs.dedupeKey, dedupeKey), eq(jobs.status, 'pending')));
  }

  async counts(): Promise<JobCounts> {
    const rows = await this.db.select({ status: jobs.status, n: count() }).from(jobs).groupBy(jobs.status);
    const of = (s: JobRow['status']) => rows.find((r) => r.status === s)?.n ?? 0;
    return { pending: of('pending') + of('running'), failed: of('failed') };
  }

  async startWorkers(): Promise<void> {
    this.started = true;
    this.wakeAt(Date.now());
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const inFlight = [...this.running.values()];
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(inFlight), new Promise((r) => (timeout = setTimeout(r, CLOSE_GRACE_MS)))]);
    clearTimeout(timeout);
    if (this.running.size > 0) {
      // Still running after the grace period: hand them back so the next start runs them.
      await this.db
        .update(jobs)
        .set({ status: 'pending', lockedUntil: null, updatedAt: new Date() })
        .where(and(inArray(jobs.id, [...this.running.keys()]), eq(jobs.status, 'running')))
        .catch((err) => this.ctx.log.error({ err }, 'could not hand back running jobs'));
    }
  }

  /** Schedules the next look at the table: at `when`, or sooner at the poll interval. */
  private wakeAt(when: number): void {
    if (!this.started || this.stopped) return;
    const delay = Math.max(0, Math.min(when - Date.now(), this.ctx.settings.pollMs));
    if (delay === 0) {
      void this.tick();
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.again = false;
        if (Date.now() - this.reclaimedAt >= RECLAIM_EVERY_MS) {
          this.reclaimedAt = Date.now();
          await this.reclaimStale();
        }
        while (!this.stopped && this.running.size < CONCURRENCY) {
          const job = await this.claim();
          if (!job) break;
          const run = this.execute(job).finally(() => {
            this.running.delete(job.id);
            this.wakeAt(Date.now());
          });
          this.running.set(job.id, run);
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      if (!this.stopped) this.ctx.log.error({ err }, 'job runner poll failed');
    } finally {
      this.ticking = false;
    }
    if (!this.stopped) await this.scheduleNext();
  }

  private async scheduleNext(): Promise<void> {
    if (this.running.size >= CONCURRENCY) {
      // Every slot busy: nothing can start before one of them finishes, which ticks again.
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.tick(), this.ctx.settings.pollMs);
      return;
    }
    try {
      const [row] = await this.db.select({ next: min(jobs.runAt) }).from(jobs).where(eq(jobs.status, 'pending'));
      if (this.stopped) return;
      const next = row?.next ? new Date(row.next).getTime() : Date.now() + this.ctx.settings.pollMs;
      clearTimeout(this.timer);
      const delay = Math.max(10, Math.min(next - Date.now(), this.ctx.settings.pollMs));
      this.timer = setTimeout(() => void this.tick(), delay);
    } catch (err) {
      if (!this.stopped) this.ctx.log.error({ err }, 'job runner schedule failed');
    }
  }

  private async reclaimStale(): Promise<void> {
    await this.db
      .update(jobs)
      .set({ status: 'pending', lockedUntil: null, updatedAt: new Date() })
      .where(and(eq(jobs.status, 'running'), lte(jobs.lockedUntil, new Date())));
  }

  private async claim(): Promise<JobRow | undefined> {
    const now = new Date();
    const due = this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.status, 'pending'), lte(jobs.runAt, now)))
      .orderBy(asc(jobs.runAt), asc(jobs.id))
      .limit(1)
      .for('update', { skipLocked: true });
    const [job] = await this.db
      .update(jobs)
      .set({ status: 'running', lockedUntil: new Date(now.getTime() + LOCK_MS), updatedAt: now })
      .where(and(inArray(jobs.id, due), eq(jobs.status, 'pending')))
      .returning();
    return job;
  }

  private async execute(job: JobRow): Promise<void> {
    const attempts = job.attempts + 1;
    try {
      await runJob(job.name, job.payload, this.ctx);
      // Done jobs are not kept (like BullMQ's removeOnComplete); failed ones are.
      await this.db.delete(jobs).where(eq(jobs.id, job.id));
    } catch (err) {
      if (err instanceof DeferJob) {
        await this.db
          .update(jobs)
          .set({ status: 'pending', lockedUntil: null, runAt: new Date(err.untilMs), updatedAt: new Date() })
          .where(eq(jobs.id, job.id))
          .catch((e) => this.ctx.log.error({ err: e }, 'could not defer job'));
        this.wakeAt(err.untilMs);
        return;
      }
      const error = err instanceof Error ? err.message : String(err);
      const exhausted = err instanceof PermanentJobError || attempts >= job.maxAttempts;
      this.ctx.log[exhausted ? 'error' : 'warn']({ err, job: job.name, id: job.id, attempts }, exhausted ? 'job failed' : 'job will retry');
      await this.db
        .update(jobs)
        .set({
          status: exhausted ? 'failed' : 'pending',
          attempts,
          lastError: error.slice(0, 2000),
          lockedUntil: null,
          runAt: new Date(Date.now() + (exhausted ? 0 : backoffDelay(job.backoffMs, attempts))),
          updatedAt: new Date(),
        })
        .where(eq(jobs.id, job.id))
        .catch((e) => this.ctx.log.error({ err: e }, 'could not record job failure'));
    }
  }
}
