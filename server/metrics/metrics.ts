import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { EVENTS } from '@parley/shared';
import { jobDefinitions } from '../jobs/registry.js';
import { serveMetrics } from '../routes/health/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This node's Prometheus registry (served at /metrics) and the figures events record in it. */
    metrics: AppMetrics;
  }
}

export interface AppMetrics {
  registry: Registry;
  /** A message's push was emitted: counts it and observes the time since it was stored. */
  pushed(storedAt: Date): void;
  /** A background job ran on this node: its duration by job name and outcome. */
  jobRan(name: string, seconds: number, outcome: 'done' | 'failed'): void;
  /** Messages this node pushed for a node that died before pushing them (outbox/pushRelay.ts). */
  relayedPushes(n: number): void;
}

type EventSource = { on(event: string, listener: (...args: unknown[]) => void): unknown };
type PoolLike = EventSource & { totalCount: number; idleCount: number; waitingCount: number };
type AdapterLike = { pubClient?: EventSource & { isReady?: boolean }; subClient?: EventSource & { isReady?: boolean } };

/** Latency buckets (seconds) for HTTP calls and message delivery: 1 ms to 10 s. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** An ack this long after its message's receipt is not a delivery figure (a replay, a client long asleep). */
const ACK_MAX_MS = 10 * 60_000;
/** The database's clock (created_at) may run this far ahead of the node's. */
const ACK_SKEW_MS = 5000;
/** The last message id each socket acked (an entry only for sockets that acked). */
const lastAcked = new WeakMap<object, number>();

/**
 * One prom-client registry per app (several apps in one process in tests), every series labelled
 * with this node's id (NODE_ID, or host:port): process and Node.js figures (CPU, heap, RSS, GC,
 * event-loop lag) plus event-loop utilisation, HTTP durations by route and status, sockets,
 * messages, delivery latency, the PostgreSQL pool, the Redis adapter, rate-limit refusals and,
 * registered by the jobs (jobs/metrics.ts), the job queue and outbox.
 */
export function registerMetrics(app: FastifyInstance): void {
  const registry = new Registry();
  registry.setDefaultLabels({ node: process.env.NODE_ID || `${os.hostname()}:${app.config.port}` });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  let elu = performance.eventLoopUtilization();
  new Gauge({
    name: 'parley_event_loop_utilization',
    help: 'Share of the time the event loop was busy since the previous scrape (0-1).',
    registers,
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, elu).utilization);
      elu = now;
    },
  });

  const http = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP requests by method, route (the pattern, not the URL) and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers,
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    http.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  const refusals = new Counter({
    name: 'parley_rate_limit_refusals_total',
    help: 'Calls refused with 429 by a rate limit, by limit.',
    labelNames: ['limit'],
    registers,
  });
  app.addHook('onError', async (_request, reply, error) => {
    if (reply.statusCode === 429 || (error as { statusCode?: number }).statusCode === 429) {
      refusals.inc({ limit: (error as { limit?: string }).limit ?? 'other' });
    }
  });

  const stored = new Counter({ name: 'parley_messages_stored_total', help: 'Chat messages stored by this node, by sender.', labelNames: ['sender'], registers });
  app.events.on('message.stored', ({ message }) => void stored.inc({ sender: message.senderType }));
  const pushedTotal = new Counter({ name: 'parley_messages_pushed_total', help: 'Chat messages whose socket push this node emitted.', registers });
  const delivery = new Histogram({
    name: 'parley_message_delivery_seconds',
    help: 'From a message stored (its created_at, in the committed transaction) to its socket push emitted.',
    buckets: BUCKETS,
    registers,
  });

  const acked = new Histogram({
    name: 'parley_message_ack_seconds',
    help: "From a message received by the server (its created_at) to the other side's delivery ack (message.delivered), by the acking socket's kind.",
    labelNames: ['kind'],
    buckets: BUCKETS,
    registers,
  });

  // The PostgreSQL pool (drizzle's $client); the embedded PGlite has none and shows zeros.
  const pool = (app.db as unknown as { $client?: Partial<PoolLike> }).$client;
  const poolErrors = new Counter({ name: 'parley_db_pool_errors_total', help: 'Errors of idle pooled PostgreSQL connections (lost server).', registers });
  if (app.database.kind === 'postgres' && pool?.on) pool.on('error', () => poolErrors.inc());
  const poolGauge = (name: string, help: string, read: (p: PoolLike) => number) =>
    new Gauge({ name, help, registers, collect() { this.set(app.database.kind === 'postgres' && pool ? read(pool as PoolLike) : 0); } });
  poolGauge('parley_db_pool_in_use', 'PostgreSQL connections checked out of the pool.', (p) => p.totalCount - p.idleCount);
  poolGauge('parley_db_pool_idle', 'PostgreSQL connections idle in the pool.', (p) => p.idleCount);
  poolGauge('parley_db_pool_waiting', 'Queries waiting for a free PostgreSQL connection.', (p) => p.waitingCount);

  const connects = new Counter({ name: 'parley_socket_connects_total', help: 'Sockets accepted, by kind (console, widget).', labelNames: ['kind'], registers });
  const disconnects = new Counter({ name: 'parley_socket_disconnects_total', help: 'Sockets closed, by kind.', labelNames: ['kind'], registers });
  const kinds = ['console', 'widget'];
  for (const kind of kinds) {
    connects.inc({ kind }, 0);
    disconnects.inc({ kind }, 0);
  }
  new Gauge({
    name: 'parley_sockets_connected',
    help: 'Sockets connected to this node, by kind (console, widget).',
    labelNames: ['kind'],
    registers,
    collect() {
      const counts = new Map(kinds.map((k) => [k, 0]));
      for (const socket of app.io?.of('/').sockets.values() ?? []) {
        const kind = (socket.data as { kind?: string }).kind ?? 'widget';
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
      }
      for (const [kind, n] of counts) this.set({ kind }, n);
    },
  });

  const adapterErrors = new Counter({ name: 'parley_redis_adapter_errors_total', help: 'Errors of the Socket.IO Redis adapter clients (publish or subscribe).', registers });
  let adapter: AdapterLike | undefined;
  new Gauge({
    name: 'parley_redis_adapter_up',
    help: 'Whether the Socket.IO Redis adapter can publish and receive (1), or not (0); 1 without Redis (one node, in memory).',
    registers,
    collect() {
      this.set(!app.config.redisUrl || (adapter?.pubClient?.isReady && adapter.subClient?.isReady) ? 1 : 0);
    },
  });

  app.addHook('onReady', async () => {
    if (!app.io) return;
    adapter = app.io.of('/').adapter as unknown as AdapterLike;
    for (const client of [adapter.pubClient, adapter.subClient]) client?.on('error', () => adapterErrors.inc());
    // One pair of listeners for every socket (Socket.IO calls them with the socket as `this`):
    // an idle socket keeps no closure of its own (issue 15).
    const kindOf = (socket: { data: unknown }) => (socket.data as { kind?: string }).kind ?? 'widget';
    function onDisconnect(this: { data: unknown }): void {
      disconnects.inc({ kind: kindOf(this) });
    }
    // Each message counts once per socket (ids only grow), and only when received lately: a
    // client cannot replay or invent old acks to bend the figure. No SQL, no Redis.
    function onDelivered(this: object & { data: unknown }, p: unknown): void {
      const { id, created_at } = (p ?? {}) as { id?: unknown; created_at?: unknown };
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= (lastAcked.get(this) ?? 0) || typeof created_at !== 'string') return;
      const ms = Date.now() - Date.parse(created_at);
      if (!(ms > -ACK_SKEW_MS && ms < ACK_MAX_MS)) return;
      lastAcked.set(this, id);
      acked.observe({ kind: kindOf(this) }, Math.max(0, ms) / 1000);
    }
    app.io.on('connection', (socket) => {
      connects.inc({ kind: kindOf(socket) });
      socket.on('disconnect', onDisconnect);
      socket.on(EVENTS.messageDelivered, onDelivered);
    });
  });

  const jobDuration = new Histogram({
    name: 'parley_job_duration_seconds',
    help: 'Background job runs on this node, by job name and outcome (done, failed: retried or kept as failed).',
    labelNames: ['job', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  // Every job's series exist from the start (0), so dashboards and rate() see a job before its first run.
  for (const { name } of jobDefinitions) for (const outcome of ['done', 'failed']) jobDuration.zero({ job: name, outcome });
  const relayedPushes = new Counter({
    name: 'parley_push_relayed_total',
    help: 'Messages this node pushed from push_outbox for a node that died between storing and pushing them.',
    registers,
  });

  app.decorate('metrics', {
    registry,
    pushed(storedAt: Date) {
      pushedTotal.inc();
      delivery.observe(Math.max(0, Date.now() - storedAt.getTime()) / 1000);
    },
    jobRan(name: string, seconds: number, outcome: 'done' | 'failed') {
      jobDuration.observe({ job: name, outcome }, seconds);
    },
    relayedPushes(n: number) {
      relayedPushes.inc(n);
    },
  } satisfies AppMetrics);
  serveMetrics(app, registry);
}
