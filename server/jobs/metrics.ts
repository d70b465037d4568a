import { Counter, Gauge, type Registry } from 'prom-client';
import type { JobQueue } from './types.js';

/**
 * The jobs' figures operators watch on /metrics: the queue (a failed job is kept, never dropped,
 * and shows here until someone looks at it) and the outbox in front of it, whose rows say what
 * the queue should hold: rows waiting for the relay and their age (Redis down), relayed rows
 * not finished, and rows the queue lost (a Redis restart without persistence) and got again.
 */
export function registerJobMetrics(registry: Registry, jobs: JobQueue): void {
  // One read per scrape for all the gauges of a source.
  const once = <T>(load: () => Promise<T>) => {
    let latest: Promise<T> | undefined;
    return () => (latest ??= load().finally(() => (latest = undefined)));
  };
  const queue = once(() => jobs.counts().then((c) => ({ up: 1, ...c }), () => ({ up: 0, pending: Number.NaN, failed: Number.NaN })));
  const outbox = once(() => jobs.outbox());
  const gauge = (name: string, help: string, read: () => Promise<number>) =>
    new Gauge({ name, help, registers: [registry], async collect() { this.set(await read()); } });
  const counter = (name: string, help: string, read: () => Promise<number>) =>
    new Counter({ name, help, registers: [registry], async collect() { this.reset(); this.inc(await read()); } });

  gauge('parley_jobs_queue_up', 'Whether the job queue (Redis, or the jobs table) answered this scrape.', async () => (await queue()).up);
  gauge('parley_jobs_failed_total', 'Background jobs that exhausted their retries and are kept as failed.', async () => (await queue()).failed);
  gauge('parley_jobs_pending', 'Background jobs waiting (in the outbox or the queue), delayed or running.', async () => (await queue()).pending);
  gauge('parley_outbox_pending', 'Outbox rows not yet handed to the queue (the queue is down, or the relay is behind).', async () => (await outbox()).pending);
  gauge('parley_outbox_oldest_pending_seconds', 'Age of the oldest outbox row not yet handed to the queue (0 when none).', async () => (await outbox()).oldestPendingSeconds);
  gauge('parley_outbox_relayed', 'Outbox rows handed to the queue whose job has not finished yet.', async () => (await outbox()).relayed);
  gauge('parley_outbox_failed', 'Outbox rows whose job exhausted its retries.', async () => (await outbox()).failed);
  counter('parley_outbox_relayed_total', 'Outbox rows this process handed to the queue.', async () => (await outbox()).totals.relayed);
  counter('parley_outbox_lost_total', 'Relayed rows the queue no longer had (e.g. Redis restarted without persistence), relayed again by this process.', async () => (await outbox()).totals.lost);
  counter('parley_outbox_relay_errors_total', 'Hand-overs that failed (queue down) and will be retried, in this process.', async () => (await outbox()).totals.errors);
}
