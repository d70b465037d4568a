import type { FastifyInstance } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import type { JobQueue } from './types.js';

/**
 * GET /metrics in the Prometheus text format: the job counts operators watch (a failed job is
 * kept, never dropped, and shows here until someone looks at it).
 */
export function registerMetrics(app: FastifyInstance, jobs: JobQueue): void {
  // One registry per app, so several apps in one process (tests) do not collide.
  const registry = new Registry();
  let latest: Promise<{ pending: number; failed: number }> | undefined;
  const counts = () => (latest ??= jobs.counts().finally(() => (latest = undefined)));
  new Gauge({
    name: 'parley_jobs_failed_total',
    help: 'Background jobs that exhausted their retries and are kept as failed.',
    registers: [registry],
    async collect() {
      this.set((await counts()).failed);
    },
  });
  new Gauge({
    name: 'parley_jobs_pending',
    help: 'Background jobs waiting, delayed or running.',
    registers: [registry],
    async collect() {
      this.set((await counts()).pending);
    },
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
}
