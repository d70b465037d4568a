// REST polling on one node: N widget visitors each polling GET /api/widget/messages?cursor=...
// every 10 s (the widget's fallback while its socket is down), as a browser does it: the answer's
// ETag is kept per URL and sent back as If-None-Match. A few visitors write meanwhile, so some
// polls find something new and take the full read. Beside it in the same run:
//   bare  plain Fastify answering the same URL with a constant page (the HTTP floor);
//   full  Parley made to take the full read on every poll (an extra query parameter skips the
//         cheap check), i.e. the cost of a poll before the check existed.
// Run: node bench/polling/run.mjs   (after `npx turbo run build --filter=@parley/server`;
// needs PostgreSQL on 127.0.0.1:5432 and redis-server on the PATH: Parley's node runs on PostgreSQL
// with a private Redis, as each of many nodes does). Options (env): BENCH_POLL_VISITORS=10000,
// BENCH_POLL_SECONDS=20, BENCH_POLL_INTERVAL_MS=10000, BENCH_POLL_MODES=bare,full,parley,
// BENCH_POLL_CONNECTIONS=256 (keep-alive connections of the load generator), BENCH_POLL_CLIENTS=2
// (its worker threads, bench/polling/client.mjs), BENCH_NODE_ARGS,
// BENCH_SERVER_ROOT (another checkout's built server, for a before/after pair).
// Target: 10,000 polling visitors on one node with p99 <= 100 ms.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { BENCH_DIR, PG_ADMIN_URL, createDatabase, ms, percentile, sleep, startChild, startRedis, benchContext } from '../lib.mjs';
import { cpuMeter, postgresBackends } from '../latency/cpu.mjs';
import { request as requestOn } from './client.mjs';

const VISITORS = Number(process.env.BENCH_POLL_VISITORS ?? 10_000);
const SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 20);
const INTERVAL_MS = Number(process.env.BENCH_POLL_INTERVAL_MS ?? 10_000);
const MODES = (process.env.BENCH_POLL_MODES ?? 'bare,full,parley').split(',');
const CONNECTIONS = Number(process.env.BENCH_POLL_CONNECTIONS ?? 256);
/** Worker threads of the load generator (the visitors and connections split between them). */
const CLIENTS = Math.max(1, Number(process.env.BENCH_POLL_CLIENTS ?? 2));
/** BENCH_POLL_TIMELINE=1: p50/p99 of the polls sent in each second (where the tail comes from). */
const TIMELINE = Boolean(process.env.BENCH_POLL_TIMELINE);
/** The node's first seconds under full load (cold JIT, pool connections opening) printed apart as well: "steady" is the polls sent after them. */
const COLD_SECONDS = Number(process.env.BENCH_POLL_COLD_SECONDS ?? 5);
/** Visitors who write during the run (one message each per second, spread): their next polls find something new. */
const WRITERS = 20;
const TARGET_P99_MS = 100;

const { ctx, cleanup } = benchContext();

/** The set-up's own calls (registering the account). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const request = (...args) => requestOn(agent, ...args);

/** An account and N visitors straight in the database (tokens hashed as server/services/secrets.ts does); a first cursor for all. */
async function setUp(port) {
  const password = 'Bench-pass-123!';
  const reg = await request(
    port,
    'POST',
    '/api/vms/register',
    { 'content-type': 'application/json' },
    JSON.stringify({ name: 'Bench Owner', email: `bench-poll-${Date.now()}@example.com`, password, password_confirmation: password }),
  );
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.body}`);
  const accountId = JSON.parse(reg.body).user.account_id;
  const tokens = Array.from({ length: VISITORS }, () => randomBytes(32).toString('base64url'));
  const hashes = tokens.map((t) => createHash('sha256').update(t).digest('hex'));
  const db = new pg.Client({ connectionString: ctx.db.url });
  await db.connect();
  try {
    await db.query(`insert into visitors (account_id, token_hash, name) select $1, h, 'Polling visitor' from unnest($2::text[]) as h`, [accountId, hashes]);
    // Statistics as a live database has them (autovacuum would take up to a minute to notice the
    // 10,000 rows): without them the first seconds' plans scan the table.
    await db.query('analyze visitors');
    // A commit-safe cursor is a snapshot (server/db/commitCursor.ts): every visitor starts from this one.
    const { rows } = await db.query('select pg_current_snapshot()::text as s');
    return { tokens, cursor: Buffer.from(rows[0].s, 'utf8').toString('base64url') };
  } finally {
    await db.end();
  }
}

/**
 * Every visitor polls once per INTERVAL_MS (each at its own phase) for SECONDS, from CLIENTS worker
 * threads (bench/polling/client.mjs, a slice of the visitors each); WRITERS visitors also send a
 * message a second between them. Returns the poll figures, the CPU used, and the event-loop delay
 * of the node and of the load generator's threads.
 */
async function load(mode, node, visitors, meter) {
  const port = node.ready.port;
  const phases = visitors.map(() => Math.random() * INTERVAL_MS);
  const startAt = Date.now() + 1000;
  const size = Math.ceil(visitors.length / CLIENTS);
  const workers = Array.from({ length: CLIENTS }, (_, i) => {
    const slice = [i * size, Math.min(visitors.length, (i + 1) * size)];
    const pollClient = {
      mode,
      port,
      visitors: visitors.slice(...slice),
      phases: phases.slice(...slice),
      intervalMs: INTERVAL_MS,
      seconds: SECONDS,
      startAt,
      connections: Math.ceil(CONNECTIONS / CLIENTS),
      // The writers are the first visitors, all in the first slice.
      writers: i === 0 ? WRITERS : 0,
    };
    const worker = new Worker(new URL('./client.mjs', import.meta.url), { workerData: { pollClient } });
    return new Promise((resolve, reject) => {
      worker.once('message', (m) => (m?.error ? reject(new Error(m.error)) : resolve(m)));
      worker.once('error', reject);
    }).finally(() => worker.terminate());
  });
  await sleep(Math.max(0, startAt - Date.now()));
  const window = await meter.start();
  await node.request({ eventLoopDelay: 'reset' });
  const started = performance.now();
  const parts = await Promise.all(workers);
  const serverDelay = await node.request({ eventLoopDelay: 'read' });
  const used = await window.stop();
  const elapsed = (performance.now() - started) / 1000;

  const took = [];
  const steady = [];
  const late = [];
  const timeline = [];
  const statuses = {};
  const errorKinds = {};
  let errors = 0;
  let writes = 0;
  let skipped = 0;
  let maxInFlight = 0;
  for (const part of parts) {
    for (let i = 0; i < part.took.length; i++) {
      took.push(part.took[i]);
      late.push(part.late[i]);
      if (part.due[i] >= COLD_SECONDS * 1000) steady.push(part.took[i]);
      if (TIMELINE) (timeline[Math.floor(part.due[i] / 1000)] ??= []).push(part.took[i]);
    }
    for (const [k, v] of Object.entries(part.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
    for (const [k, v] of Object.entries(part.errorKinds)) errorKinds[k] = (errorKinds[k] ?? 0) + v;
    errors += part.errors;
    writes += part.writes;
    skipped += part.skipped;
    maxInFlight += part.maxInFlight;
  }
  if (TIMELINE) {
    for (const [second, values] of timeline.entries()) {
      const sortedSecond = Float64Array.from(values ?? []).sort();
      console.log(`  ${mode} second ${second}: ${sortedSecond.length} polls, p50 ${ms(percentile(sortedSecond, 50))}, p99 ${ms(percentile(sortedSecond, 99))}, max ${ms(sortedSecond[sortedSecond.length - 1] ?? 0)}`);
    }
  }
  const sorted = Float64Array.from(took).sort();
  const sortedSteady = Float64Array.from(steady).sort();
  const sortedLate = Float64Array.from(late).sort();
  const n = Math.max(1, took.length);
  return {
    mode,
    answered: took.length,
    rate: took.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    steady: { n: steady.length, p50: percentile(sortedSteady, 50), p99: percentile(sortedSteady, 99), max: sortedSteady[sortedSteady.length - 1] ?? 0 },
    late: { p99: percentile(sortedLate, 99), max: sortedLate[sortedLate.length - 1] ?? 0 },
    serverDelay,
    clientDelay: parts.map((p) => p.loopDelay),
    statuses,
    errors,
    errorKinds,
    writes,
    skipped,
    maxInFlight,
    cpu: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, v / n])),
  };
}

async function runMode(mode) {
  // PostgreSQL with Redis: the topology of many nodes (PRODUCT.md section 9), where a node answers
  // polls it already checked from memory (it hears every node's pushes through Redis).
  const env = { BENCH_DB_URL: ctx.db.url, BENCH_REDIS_URL: ctx.redis.url, BENCH_DATA_DIR: ctx.dataDir };
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  const script = mode === 'bare' ? path.join(BENCH_DIR, 'polling/bare.mjs') : path.join(BENCH_DIR, 'latency/node.mjs');
  const node = await startChild(script, mode === 'bare' ? [] : ['parley'], { env, execArgv: ['--disable-warning=FSTDEP023', ...extra] });
  ctx.children.push(node);
  try {
    const port = node.ready.port;
    const { tokens, cursor } = mode === 'bare' ? { tokens: Array.from({ length: VISITORS }, () => 'x'), cursor: 'x' } : await setUp(port);
    const visitors = tokens.map((token) => ({ token, cursor, etag: undefined, etagUrl: undefined }));
    const groups = { node: async () => [node.pid] };
    if (mode !== 'bare') {
      groups.postgres = postgresBackends(PG_ADMIN_URL, ctx.db.name);
      groups.redis = async () => [ctx.redis.pid];
    }
    return await load(mode, node, visitors, cpuMeter(groups));
  } finally {
    await node.stop();
  }
}

try {
  ctx.db = await createDatabase();
  ctx.redis = await startRedis();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  console.log(`REST polling on one node: ${VISITORS} visitors, one poll each per ${INTERVAL_MS / 1000} s (${((VISITORS * 1000) / INTERVAL_MS).toFixed(0)} polls/s), ${SECONDS} s per mode,`);
  console.log(`${CONNECTIONS} keep-alive connections from ${CLIENTS} client threads, If-None-Match as a browser sends it; ${WRITERS} of the visitors write one message a second between them.\n`);
  const results = [];
  for (const mode of MODES) results.push(await runMode(mode));
  const head = `${'mode'.padEnd(8)}${'polls/s'.padStart(9)}${'p50'.padStart(11)}${'p99'.padStart(11)}${'max'.padStart(11)}${'CPU/poll'.padStart(11)}  answers`;
  console.log(head);
  console.log('-'.repeat(head.length + 30));
  for (const r of results) {
    const cpu = Object.values(r.cpu).reduce((a, b) => a + b, 0);
    const answers = Object.entries(r.statuses).map(([k, v]) => `${v}x${k}`).join(' ');
    console.log(
      `${r.mode.padEnd(8)}${r.rate.toFixed(0).padStart(9)} ${ms(r.p50).padStart(10)} ${ms(r.p99).padStart(10)} ${ms(r.max).padStart(10)} ${`${cpu.toFixed(3)} ms`.padStart(10)}  ${answers}${r.errors ? ` ${r.errors} errors (${Object.entries(r.errorKinds).map(([k, v]) => `${v}x ${k}`).join(', ')})` : ''}`,
    );
    console.log(`${''.padEnd(8)}CPU: ${Object.entries(r.cpu).map(([k, v]) => `${k} ${v.toFixed(3)} ms`).join(', ')}; ${r.writes} messages written; at most ${r.maxInFlight} polls in flight; ${r.skipped} polls skipped (the visitor's last still in flight)`);
    console.log(`${''.padEnd(8)}steady (the ${r.steady.n} polls due after the first ${COLD_SECONDS} s): p50 ${ms(r.steady.p50)}, p99 ${ms(r.steady.p99)}, max ${ms(r.steady.max)}`);
    const delay = (d) => `p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}`;
    console.log(`${''.padEnd(8)}event-loop delay: server ${delay(r.serverDelay)}; load generator ${r.clientDelay.map(delay).join(' | ')}; polls sent late by p99 ${ms(r.late.p99)}, max ${ms(r.late.max)}`);
  }
  console.log('\nCPU/poll: CPU time of the node (+ this database\'s PostgreSQL backends and the private Redis) over the run, per answered poll; the load generator is not counted.');
  console.log(`Load average when done: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`);
  const parley = results.find((r) => r.mode === 'parley');
  if (parley) {
    const ok = parley.p99 <= TARGET_P99_MS && parley.errors === 0 && parley.rate >= 0.95 * ((VISITORS * 1000) / INTERVAL_MS);
    console.log(`Target: ${VISITORS} polling visitors on one node, p99 <= ${TARGET_P99_MS} ms: p99 ${ms(parley.p99)} at ${parley.rate.toFixed(0)} polls/s: ${ok ? 'ok' : 'OVER'}`);
    const steadyOk = parley.steady.p99 <= TARGET_P99_MS && parley.errors === 0;
    console.log(`        after the node's first ${COLD_SECONDS} s under load: p99 ${ms(parley.steady.p99)}: ${steadyOk ? 'ok' : 'OVER'}`);
  }
} finally {
  agent.destroy();
  await cleanup();
}
