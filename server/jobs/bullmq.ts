import { DelayedError, Queue, UnrecoverableError, Worker } from 'bullmq';
import { createClient } from 'redis';
import { failOutbox, finishOutbox, type OutboxHandOver, type OutboxRow } from '../outbox/outbox.js';
import { runJob } from './registry.js';
import { DeferJob, PermanentJobError, type JobBackendBase, type JobContext, type JobCounts } from './types.js';

const QUEUE_NAME = 'parley-jobs';
const CONCURRENCY = 2;
/** How long close() waits for running jobs. */
const CLOSE_GRACE_MS = 10_000;

type RedisClient = ReturnType<typeof createClient>;

/** BullMQ job ids of relayed outbox rows (not a bare number: BullMQ refuses integer custom ids). */
const jobIdOf = (outboxId: number) => `ob-${outboxId}`;
const outboxIdOf = (jobId: string | undefined): number | undefined => (jobId?.startsWith('ob-') ? Number(jobId.slice(3)) : undefined);

/**
 * The runner with REDIS_URL: BullMQ over node-redis (no ioredis needed). The outbox relay adds
 * the jobs; delays and retries with exponential backoff are BullMQ's own; failed jobs are kept
 * (removeOnFail: false). Deduplication is the outbox's (a key is held until the job finished).
 */
export class BullmqRunner implements JobBackendBase, OutboxHandOver {
  readonly kind = 'bullmq' as const;
  private queue: Queue;
  private queueClient: RedisClient;
  private worker: Worker | undefined;
  private workerClient: RedisClient | undefined;

  constructor(
    private redisUrl: string,
    private ctx: JobContext,
  ) {
    this.queueClient = this.client();
    this.queue = new Queue(QUEUE_NAME, { connection: this.queueClient, prefix: ctx.settings.queuePrefix });
    this.queue.on('error', (err) => ctx.log.warn({ err }, 'job queue error'));
  }

  private client(): RedisClient {
    const client = createClient({ url: this.redisUrl });
    client.on('error', (err) => this.ctx.log.warn({ err }, 'job queue redis error'));
    return client;
  }

  /**
   * Outbox sink: adds the job under a job id made from the outbox row, so relaying the same row
   * twice (a timeout, a second node) adds it once. The row stays until the job finished.
   */
  async deliver(row: OutboxRow): Promise<'relayed'> {
    const { attempts, backoffMs } = this.ctx.settings;
    await this.queue.add(row.name, row.payload, {
      jobId: jobIdOf(row.id),
      delay: Math.max(0, new Date(row.runAt).getTime() - Date.now()),
      attempts,
      // BullMQ's exponential: backoffMs * 2^(attempt - 1), the same as the in-process runner.
      backoff: { type: 'exponential', delay: backoffMs },
      removeOnComplete: true,
      removeOnFail: false,
    });
    return 'relayed';
  }

  /** Whether Redis still holds a relayed job (a restart without persistence loses them all). */
  async check(row: OutboxRow): Promise<'held' | 'lost' | 'failed'> {
    const state = await this.queue.getJobState(jobIdOf(row.id));
    return state === 'unknown' ? 'lost' : state === 'failed' ? 'failed' : 'held';
  }

  async cancel(_dedupeKey: string, relayed: OutboxRow[]): Promise<void> {
    for (const row of relayed) {
      const id = jobIdOf(row.id);
      // An active job finishes (handlers re-check their condition); a failed one is kept.
      const state = await this.queue.getJobState(id);
      if (state === 'delayed' || state === 'waiting' || state === 'prioritized') await this.queue.remove(id);
    }
  }

  async counts(): Promise<JobCounts> {
    const c = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'failed');
    const n = (k: string) => c[k] ?? 0;
    return { pending: n('waiting') + n('delayed') + n('active') + n('prioritized'), failed: n('failed') };
  }

  async startWorkers(): Promise<void> {
    const { ctx } = this;
    this.workerClient = this.client();
    this.worker = new Worker(
      QUEUE_NAME,
      async (job, token) => {
        try {
          await runJob(job.name, job.data, ctx);
          // Done: the outbox row leaves before BullMQ removes the job, so a check never sees a finished job as lost.
          const outboxId = outboxIdOf(job.id);
          if (outboxId !== undefined) await finishOutbox(ctx.db, [outboxId]);
        } catch (err) {
          if (err instanceof DeferJob) {
            // BullMQ's way to run the same job later: no attempt used, its deduplication id kept.
            await job.moveToDelayed(err.untilMs, token);
            throw new DelayedError();
          }
          if (err instanceof PermanentJobError) throw new UnrecoverableError(err.message);
          throw err;
        }
      },
      {
        connection: this.workerClient,
        prefix: ctx.settings.queuePrefix,
        concurrency: CONCURRENCY,
      },
    );
    this.worker.on('error', (err) => ctx.log.warn({ err }, 'job worker error'));
    this.worker.on('failed', (job, err) => {
      const exhausted = !job || job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
      ctx.log[exhausted ? 'error' : 'warn']({ err, job: job?.name, id: job?.id }, exhausted ? 'job failed' : 'job will retry');
      const outboxId = outboxIdOf(job?.id);
      if (exhausted && outboxId !== undefined) {
        failOutbox(ctx.db, outboxId, err.message).catch((e: unknown) => ctx.log.error({ err: e }, 'could not mark the outbox row failed'));
      }
    });
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    // Worker.close waits for the active jobs; a job cut short by a crash is retried by BullMQ
    // (stalled). With Redis down nothing can be said to it: the waits are bounded.
    const bounded = (what: string, p: Promise<unknown> | undefined, ms: number) =>
      Promise.race([p?.catch((err: unknown) => this.ctx.log.warn({ err }, `${what} failed`)), new Promise((r) => setTimeout(r, ms).unref())]);
    await bounded('job worker close', this.worker?.close(), CLOSE_GRACE_MS);
    await bounded('job queue close', this.queue.close(), 2000);
    for (const client of [this.workerClient, this.queueClient]) {
      if (client?.isReady) await bounded('job queue quit', client.quit(), 2000);
      if (client?.isOpen) client.destroy();
    }
  }
}
