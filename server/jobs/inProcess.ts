import { type SQL, and, asc, count, eq, inArray, lte, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../db/client.js';
import { jobs, outbox } from '../db/schema.js';
import { type OutboxEntry, type OutboxTaker, outboxRowFree } from '../outbox/outbox.js';
import { backoffDelay, runJob } from './registry.js';
import { DeferJob, PermanentJobError, type JobBackendBase, type JobContext, type JobCounts } from './types.js';

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
/** What running a claimed job needs. */
type ClaimedJob = Pick<JobRow, 'id' | 'name' | 'payload' | 'attempts' | 'maxAttempts' | 'backoffMs'>;

/**
 * The runner without Redis: the relay moves a job from the outbox into this table (so a delayed
 * or pending job survives a restart), claimed with FOR UPDATE SKIP LOCKED (safe with several
 * processes on PostgreSQL).
 */
export class InProcessRunner implements JobBackendBase, OutboxTaker {
  readonly kind = 'in-process' as const;
  private running = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private ticking = false;
  private again = false;
  private reclaimedAt = 0;
  /** Jobs done since the last look at the table: the next look deletes them. */
  private finished: number[] = [];
  /** The look at the table running now, which deletes finished jobs (settled either way). */
  private releasing: Promise<unknown> = Promise.resolve();

  constructor(
    private db: Db,
    private ctx: JobContext,
  ) {}

  /**
   * Outbox taker: up to `limit` of the topic's pending rows move into the runner's table and
   * leave the outbox in one statement (atomic by itself: no claim, no hand-over per row; a new
   * chat's jobs used to cost a claim and a move each, most of its statements on the embedded
   * database; issue 11). A row whose dedupe key a pending job holds joins it (the first row wins
   * within a pass, as one by one).
   */
  async take(topic: string, limit: number): Promise<number> {
    const free = this.db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.topic, topic), outboxRowFree(new Date())))
      .orderBy(asc(outbox.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    return this.addJobs(sql`
      delete from ${outbox} where ${inArray(outbox.id, free)}
      returning ${outbox.id}, ${outbox.name}, ${outbox.payload}, ${outbox.runAt}, ${outbox.dedupeKey}`);
  }

  /** Without a transaction to join, a job goes straight into the table (durable at once; no relay needed). */
  async insertNow(entry: OutboxEntry): Promise<void> {
    const runAt = new Date(Date.now() + (entry.delayMs ?? 0)).toISOString();
    await this.addJobs(
      sql`select 0::bigint as id, ${entry.name}::text as name, ${JSON.stringify(entry.payload)}::jsonb as payload, ${runAt}::timestamptz as run_at, ${entry.dedupeKey ?? null}::text as dedupe_key`,
    );
  }

  /**
   * Adds a job for each row of `taken` (id, name, payload, run_at, dedupe_key), in id order; a
   * row whose dedupe key a pending or running job holds joins it (the partial unique index: the
   * only conflict). Wakes the runner for the earliest added. Returns how many rows `taken` had.
   */
  private async addJobs(taken: SQL): Promise<number> {
    await this.releaseFinished();
    const { attempts, backoffMs } = this.ctx.settings;
    const res = await this.db.execute(sql`
      with taken as (${taken}),
      added as (
        insert into ${jobs} (name, payload, max_attempts, backoff_ms, run_at, dedupe_key)
        select name, payload, ${attempts}, ${backoffMs}, run_at, dedupe_key from taken order by id
        on conflict do nothing
        returning run_at)
      select (select count(*)::int from taken) as taken, (select min(run_at) from added) as next_at`);
    const [row] = rowsOf<{ taken: number; next_at: Date | string | null }>(res);
    if (row?.next_at) this.wakeAt(new Date(row.next_at).getTime());
    return row?.taken ?? 0;
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
    // Finished since the last look (no tick runs once stopped): they leave the table now.
    await this.releaseFinished().catch((err) => this.ctx.log.error({ err }, 'could not delete finished jobs'));
    if (this.running.size > 0) {
      // Still running after the grace period: hand them back so the next start runs them.
      await this.db
        .update(jobs)
        .set({ status: 'pending', lockedUntil: null, updatedAt: new Date() })
        .where(and(inArray(jobs.id, [...this.running.keys()]), eq(jobs.status, 'running')))
        .catch((err) => this.ctx.log.error({ err }, 'could not hand back running jobs'));
    }
  }

  /**
   * Finished jobs leave the table before new rows go in (after the look at the table deleting
   * some now, if one runs): a job holds its dedupe key until it finished, not until the next
   * look, so a row with the key of a job that just finished is a new job, not joined to that one.
   * A statement only when jobs finished since the last look.
   */
  private async releaseFinished(): Promise<void> {
    await this.releasing;
    const done = this.finished.splice(0);
    if (done.length === 0) return;
    try {
      await this.db.delete(jobs).where(inArray(jobs.id, done));
    } catch (err) {
      this.finished.unshift(...done); // deleted with the next look
      throw err;
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
    let nextAt: number | null = null;
    try {
      do {
        this.again = false;
        if (Date.now() - this.reclaimedAt >= RECLAIM_EVERY_MS) {
          this.reclaimedAt = Date.now();
          await this.reclaimStale();
        }
        const free = this.stopped ? 0 : CONCURRENCY - this.running.size;
        const done = this.finished.splice(0);
        if (free <= 0 && done.length === 0) break;
        let claimed: ClaimedJob[];
        try {
          const look = this.claim(done, Math.max(0, free));
          this.releasing = look.catch(() => undefined);
          ({ claimed, nextAt } = await look);
        } catch (err) {
          this.finished.unshift(...done); // deleted with the next claim
          throw err;
        }
        for (const job of claimed) {
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
    if (!this.stopped) this.scheduleNext(nextAt);
  }

  /** The next look: when the earliest pending job is due, at the latest after the poll interval. */
  private scheduleNext(nextAt: number | null): void {
    clearTimeout(this.timer);
    const { pollMs } = this.ctx.settings;
    // Every slot busy: nothing can start before one of them finishes, which ticks again.
    const delay = this.running.size >= CONCURRENCY || nextAt === null ? pollMs : Math.max(10, Math.min(nextAt - Date.now(), pollMs));
    this.timer = setTimeout(() => void this.tick(), delay);
  }

  private async reclaimStale(): Promise<void> {
    await this.db
      .update(jobs)
      .set({ status: 'pending', lockedUntil: null, updatedAt: new Date() })
      .where(and(eq(jobs.status, 'running'), lte(jobs.lockedUntil, new Date())));
  }

  /**
   * One statement per look at the table: the jobs that finished since the last look leave it,
   * up to `limit` due jobs are claimed (FOR UPDATE SKIP LOCKED), and the earliest pending job's
   * time comes back for the next look (three statements per finished job before: the delete, a
   * claim that found nothing, the earliest's select).
   */
  private async claim(done: number[], limit: number): Promise<{ claimed: ClaimedJob[]; nextAt: number | null }> {
    const now = new Date();
    const lockedUntil = new Date(now.getTime() + LOCK_MS);
    const res = await this.db.execute(sql`
      with done as (delete from ${jobs} where ${jobs.id} = any(${`{${done.join(',')}}`}::bigint[])),
      due as (
        select ${jobs.id} from ${jobs} where ${jobs.status} = 'pending' and ${jobs.runAt} <= ${now.toISOString()}::timestamptz
        order by ${jobs.runAt}, ${jobs.id} limit ${limit} for update skip locked),
      claimed as (
        update ${jobs} set status = 'running', locked_until = ${lockedUntil.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
        where ${jobs.id} in (select id from due) and ${jobs.status} = 'pending'
        returning id, name, payload, attempts, max_attempts, backoff_ms)
      select claimed.*, (select min(${jobs.runAt}) from ${jobs} where ${jobs.status} = 'pending' and ${jobs.id} not in (select id from due)) as next_at
      from (select 1) as one left join claimed on true`);
    type Row = { id: string | number | null; name: string; payload: unknown; attempts: number; max_attempts: number; backoff_ms: number; next_at: Date | string | null };
    const rows = rowsOf<Row>(res);
    const next = rows[0]?.next_at;
    return {
      claimed: rows
        .filter((r) => r.id !== null)
        .map((r) => ({ id: Number(r.id), name: r.name, payload: r.payload, attempts: r.attempts, maxAttempts: r.max_attempts, backoffMs: r.backoff_ms })),
      nextAt: next ? new Date(next).getTime() : null,
    };
  }

  private async execute(job: ClaimedJob): Promise<void> {
    const attempts = job.attempts + 1;
    try {
      await runJob(job.name, job.payload, this.ctx);
      // Done jobs are not kept (like BullMQ's removeOnComplete); failed ones are. The next look at
      // the table deletes it (at once: a finished job wakes the runner).
      this.finished.push(job.id);
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
