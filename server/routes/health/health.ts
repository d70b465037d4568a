import type { FastifyInstance } from 'fastify';

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  /** Liveness: the process answers. */
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  /**
   * Readiness: the database (and Redis when configured) answer, each within READYZ_TIMEOUT_MS,
   * so a hung dependency makes this answer 503 in seconds instead of never. A draining node
   * answers 503 at once.
   */
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    // Draining (SIGTERM): out of the load balancer at once, whatever the dependencies say.
    if (app.draining()) return reply.status(503).send({ status: 'draining', checks: {} });
    const checks: Record<string, string> = {};
    const within = async (check: () => Promise<unknown>): Promise<string> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        // The database ping has this deadline itself (and opens the pool's breaker on it); this
        // guard, a little later, covers everything else.
        timer = setTimeout(() => reject(new Error('timeout')), app.config.database.readyTimeoutMs + 250);
      });
      try {
        await Promise.race([check(), late]);
        return 'ok';
      } catch {
        return 'down';
      } finally {
        clearTimeout(timer);
      }
    };
    const redis = app.redis;
    const [database, cache] = await Promise.all([within(() => app.database.ping()), redis ? within(() => redis.ping()) : undefined]);
    checks.database = database;
    if (cache) checks.redis = cache;
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
}
