import type { FastifyInstance } from 'fastify';

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  /** Liveness: the process answers. */
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  /** Readiness: the database (and Redis when configured) answer. */
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {};
    try {
      await app.database.ping();
      checks.database = 'ok';
    } catch {
      checks.database = 'down';
    }
    if (app.redis) {
      try {
        await app.redis.ping();
        checks.redis = 'ok';
      } catch {
        checks.redis = 'down';
      }
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
}
