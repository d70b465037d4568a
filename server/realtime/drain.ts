import type { FastifyInstance } from 'fastify';
import { EVENTS, type ReconnectHintPayload } from '@parley/shared';

declare module 'fastify' {
  interface FastifyInstance {
    /** True from the start of a drain: /readyz answers 503 and new sockets are refused. */
    draining(): boolean;
    /**
     * Drains this node: readyz 503 at once, new sockets refused, local sockets moved away in
     * batches with a jittered reconnect hint, then app.close() (in-flight requests and jobs
     * finish), all within `graceMs`.
     */
    drain(options: DrainOptions): Promise<DrainReport>;
  }
}

export interface DrainOptions {
  /** The whole drain, socket moves and close included, ends within this. */
  graceMs: number;
  /** Sockets moved per batch (default: a twentieth of them, at least 10). */
  batchSize?: number;
  /** Longest wait between two batches. */
  batchIntervalMs?: number;
  /** Each moved socket is told to reconnect after a random wait up to this. */
  hintSpreadMs?: number;
}

export interface DrainReport {
  /** Sockets told to reconnect elsewhere. */
  moved: number;
  batches: number;
  /** Whether app.close() (in-flight requests, jobs, Redis goodbye) finished within the grace period. */
  closed: boolean;
  ms: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Decorates `app.draining()` and refuses Socket.IO handshakes once a drain started (before any
 * authentication work: engine.io's allowRequest). Call after registerRealtime.
 */
export function registerDrain(app: FastifyInstance): void {
  let draining = false;
  app.decorate('draining', () => draining);
  app.decorate('drain', async (options: DrainOptions) => {
    draining = true;
    return runDrain(app, options);
  });
  const engine = app.io.engine as unknown as { opts: { allowRequest?: (req: unknown, fn: (err: string | null | undefined, ok: boolean) => void) => void } };
  const before = engine.opts.allowRequest;
  engine.opts.allowRequest = (req, fn) => {
    if (draining) return fn('draining', false);
    if (before) return before(req, fn);
    fn(null, true);
  };
}

async function runDrain(app: FastifyInstance, { graceMs, batchSize: size, batchIntervalMs = 250, hintSpreadMs = 3000 }: DrainOptions): Promise<DrainReport> {
  const started = Date.now();
  const deadline = started + graceMs;
  // Load balancers polling /readyz need a moment to take the node out; sockets move meanwhile.
  // Moves use at most a third of the grace period, the hints another third: the rest is for close.
  const sockets = [...app.io.of('/').sockets.values()];
  const batchSize = size ?? Math.max(10, Math.ceil(sockets.length / 20));
  const batches = Math.ceil(sockets.length / batchSize);
  const moveWindow = Math.min(graceMs / 3, batches * batchIntervalMs);
  const interval = batches > 1 ? moveWindow / (batches - 1) : 0;
  const spread = Math.max(0, Math.min(hintSpreadMs, graceMs / 3));
  let moved = 0;
  for (let b = 0; b < batches; b++) {
    if (b > 0) await sleep(interval);
    for (const socket of sockets.slice(b * batchSize, (b + 1) * batchSize)) {
      if (!socket.connected) continue;
      const hint: ReconnectHintPayload = { in_ms: Math.round(Math.random() * spread) };
      socket.emit(EVENTS.serverReconnect, hint);
      // The transport closes once the hint is flushed; no Socket.IO disconnect packet, which
      // clients take as "closed on purpose, do not come back".
      socket.conn.close();
      moved++;
    }
  }
  app.log.info({ moved, batches, ms: Date.now() - started }, 'drain: sockets moved');
  const left = Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    app.close().then(() => true),
    new Promise<boolean>((r) => {
      timer = setTimeout(() => r(false), left);
    }),
  ]).finally(() => clearTimeout(timer));
  return { moved, batches, closed, ms: Date.now() - started };
}
