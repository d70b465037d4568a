import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { HttpError } from '../../errors.js';

/** The same text in `message` and `error` (the envelope), for both listeners. */
const REFUSALS = {
  token: { status: 401, message: 'Unauthenticated' },
  remote: { status: 403, message: 'Metrics are served only to this machine: set METRICS_TOKEN or METRICS_PORT to scrape them from elsewhere' },
} as const;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the Authorization header carries the token (constant time). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * Who may read /metrics (issue 11): with METRICS_TOKEN, whoever sends it as a bearer token; with
 * METRICS_PORT, whoever reaches that port (and the token when set too), and the public port
 * answers 404; with neither, only this machine (a loopback peer with no proxy header: a request
 * a local reverse proxy forwards from elsewhere is not local).
 */
function refusal(
  m: { token: string | undefined },
  req: { authorization: string | undefined; peer: string | undefined; forwarded: boolean },
  onMetricsPort: boolean,
): (typeof REFUSALS)[keyof typeof REFUSALS] | undefined {
  if (m.token) return bearerMatches(req.authorization, m.token) ? undefined : REFUSALS.token;
  if (onMetricsPort) return undefined;
  return LOOPBACK.test(req.peer ?? '') && !req.forwarded ? undefined : REFUSALS.remote;
}

const forwardedOf = (h: http.IncomingHttpHeaders) => h['x-forwarded-for'] !== undefined || h.forwarded !== undefined;

/** GET /metrics in the Prometheus text format, on the app or on its own port. */
export function serveMetrics(app: FastifyInstance, registry: Registry): void {
  const m = app.config.metrics;

  app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply) => {
    if (m.port !== undefined) throw new HttpError(404, 'Not found');
    const refused = refusal(
      m,
      { authorization: request.headers.authorization, peer: request.socket.remoteAddress, forwarded: forwardedOf(request.headers) },
      false,
    );
    if (refused) throw new HttpError(refused.status, refused.message);
    return reply.type(registry.contentType).send(await registry.metrics());
  });

  if (m.port === undefined) return;
  const server = http.createServer((req, res) => {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type }).end(body);
    };
    const envelope = (status: number, message: string) => send(status, 'application/json; charset=utf-8', JSON.stringify({ message, error: message }));
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') return envelope(404, 'Not found');
    const refused = refusal(m, { authorization: req.headers.authorization, peer: req.socket.remoteAddress, forwarded: false }, true);
    if (refused) return envelope(refused.status, refused.message);
    registry.metrics().then(
      (body) => send(200, registry.contentType, body),
      (err: unknown) => {
        app.log.error({ err }, 'metrics failed');
        envelope(500, 'Internal Server Error');
      },
    );
  });
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(m.port, app.config.host, () => resolve());
    });
    app.log.info(`metrics on port ${m.port}`);
  });
  app.addHook('onClose', async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}
