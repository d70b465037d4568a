import { DelayedError, Queue, UnrecoverableError, Worker } from 'bullmq';
import { createClient } from 'redis';
import { runJob, validatePayload } from './registry.js';
import { DeferJob, PermanentJobError, type EnqueueOptions, type JobContext, type JobCounts, type JobRunner } from './types.js';

const QUEUE_NAME = 'parley-jobs';
const CONCURRENCY = 2;

type RedisClient = ReturnType<typeof createClient>;

/**
 * The runner with REDIS_URL: BullMQ over node-redis (no ioredis needed). Delays, retries with
 * exponential backoff and deduplication are BullMQ's own; failed jobs are kept (removeOnFail: false).
 */
export class BullmqRunner implements JobRunner {
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

  async enqueue(name: string, payload: unknown, opts: EnqueueOptions = {}): Promise<void> {
    const data = validatePayload(name, payload);
    const { attempts, backoffMs } = this.ctx.settings;
    await this.queue.add(name, data, {
      delay: opts.delayMs ?? 0,
      attempts,
      // BullMQ's exponential: backoffMs * 2^(attempt - 1), the same as the in-process runner.
      backoff: { type: 'exponential', delay: backoffMs },
      removeOnComplete: true,
      removeOnFail: false,
      ...(opts.dedupeKey ? { deduplication: { id: opts.dedupeKey } } : {}),
    });
  }

  async cancel(dedupeKey: string): Promise<void> {
    const id = await this.queue.getDeduplicationJobId(dedupeKey);
    if (!id) return;
    // An active job finishes (handlers re-check their condition); a failed one is kept.
    const state = await this.queue.getJobState(id);
    if (state === 'delayed' || state === 'waiting') await this.queue.remove(id);
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
    });
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    // Worker.close waits for the active jobs; a job cut short by a crash is retried by BullMQ (stalled).
    await this.worker?.close().catch((err) => this.ctx.log.warn({ err }, 'job worker close failed'));
    await this.queue.close().catch((err) => this.ctx.log.warn({ err }, 'job queue close failed'));
    for (const client of [this.workerClient, this.queueClient]) {
      if (client?.isOpen) await client.quit().catch(() => {});
    }
  }
}
