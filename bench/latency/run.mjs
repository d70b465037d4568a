// Delivery latency, visitor -> agent across two nodes through Redis, with the database write,
// beside a bare Socket.IO relay over the same Redis (no database) in the same run.
// Run: node bench/latency/run.mjs   (after `npx turbo run build --filter=@parley/server`;
// needs PostgreSQL on 127.0.0.1:5432 and redis-server on the PATH).
// Options (env): BENCH_SECONDS=5 per rate, BENCH_SERVER_ROOT (another checkout's built server: node.mjs), BENCH_RATES=100,500,2000, BENCH_NODE_ARGS (server node flags),
// BENCH_COUNT_QUERIES=/tmp/q (each Parley node writes its SQL statement counts to /tmp/q.<pid>),
// BENCH_P99_LIMIT=50 (after the rates, up to BENCH_SEARCH_STEPS=2 more rates to find where p99
// passes it, at most BENCH_MAX_RATE=3000/s: above it the visitors' sockets meet the event limit),
// BENCH_JSON=<file> (also write the figures as JSON; bench/capacity/run.mjs reads them).
// Each rate also prints the CPU per delivered message of both nodes, Redis and (Parley) the
// PostgreSQL backends of the bench database, and Redis commands per message (INFO commandstats).
// Targets: p50 <= 3x the bare relay, p99 <= 20 ms, CPU per message <= 2x the bare relay's at 500 messages/s.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createClient } from 'redis';
import { io } from 'socket.io-client';
import {
  BENCH_DIR,
  backendPids,
  cpuOf,
  cpuSpent,
  createDatabase,
  loadAverage,
  ms,
  percentile,
  redisCommandCalls,
  sleep,
  startChild,
  startRedis,
  benchContext,
} from '../lib.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATES = (process.env.BENCH_RATES ?? '100,500,2000').split(',').map(Number);
// The server refuses more than 100 events per 10 s per socket (realtime/guard.ts): spread the
// load so no socket sends more than ~6 events/s at the top rate.
const ACCOUNTS = 4; // also keeps each account under the Starter plan's 100 chats a month
const VISITORS_PER_ACCOUNT = 90;
const DRAIN_MS = 5000;
const P99_LIMIT = process.env.BENCH_P99_LIMIT ? Number(process.env.BENCH_P99_LIMIT) : undefined;
const SEARCH_STEPS = Number(process.env.BENCH_SEARCH_STEPS ?? 2);
const MAX_RATE = Number(process.env.BENCH_MAX_RATE ?? 3000);

const connectSocket = (base, auth) =>
  new Promise((resolve, reject) => {
    const s = io(base, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
    s.once('connect', () => resolve(s));
    s.once('connect_error', (e) => reject(new Error(`socket connect failed: ${e.message}`)));
  });

async function post(base, url, body, token) {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `fn` over items with at most `n` at a time. */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

/** Who talks: groups of (one agent socket on node B, visitor sockets on node A). */
async function connectClients(mode, baseA, baseB, dbUrl) {
  const groups = [];
  if (mode === 'bare') {
    for (let a = 0; a < ACCOUNTS; a++) {
      const agent = await connectSocket(baseB, { role: 'agent', room: `a${a}` });
      const visitors = await pool([...Array(VISITORS_PER_ACCOUNT).keys()], 20, () => connectSocket(baseA, { room: `a${a}` }));
      groups.push({ agent, visitors });
    }
    return groups;
  }
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    for (let a = 0; a < ACCOUNTS; a++) {
      const email = `bench-${Date.now()}-${a}@example.com`;
      const password = 'Bench-pass-123!';
      const reg = await post(baseA, '/api/vms/register', { name: `Bench Owner ${a}`, email, password, password_confirmation: password });
      const { rows } = await db.query('select widget_key from accounts where id = $1', [reg.user.account_id]);
      const widgetKey = rows[0].widget_key;
      const agent = await connectSocket(baseB, { token: reg.token });
      const visitors = await pool([...Array(VISITORS_PER_ACCOUNT).keys()], 10, async (j) => {
        const v = await post(baseA, '/api/widget/visitors', { unique_code: widgetKey, name: `Bench Visitor ${j}` });
        return connectSocket(baseA, { widget_key: widgetKey, visitor_token: v.data.visitor_token });
      });
      groups.push({ agent, visitors });
    }
  } finally {
    await db.end();
  }
  return groups;
}

/** Sends `total` messages at `rate`/s round-robin over every visitor socket; times each to its agent. */
async function phase(groups, label, rate, total) {
  const senders = groups.flatMap((g) => g.visitors);
  const sentAt = new Map();
  const latencies = [];
  const failures = new Map();
  let lastRecv = 0;
  const onCreated = (p) => {
    const id = p?.message?.client_id;
    const t0 = id === undefined ? undefined : sentAt.get(id);
    if (t0 === undefined) return;
    const now = performance.now();
    latencies.push(now - t0);
    sentAt.delete(id);
    lastRecv = now;
  };
  for (const g of groups) g.agent.on('message.created', onCreated);
  const ackLatencies = [];
  const ackFor = (id, t0) => (reply) => {
    if (reply?.ok) return void ackLatencies.push(performance.now() - t0);
    const key = reply?.status ?? 'error';
    failures.set(key, (failures.get(key) ?? 0) + 1);
    sentAt.delete(id);
  };
  let sent = 0;
  const start = performance.now();
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (sent < due) {
        const id = `${label}_${sent}`;
        const sock = senders[sent % senders.length];
        const t0 = performance.now();
        sentAt.set(id, t0);
        sock.emit('message.send', { message: `bench message ${sent}`, client_id: id }, ackFor(id, t0));
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const sendEnd = performance.now();
  while (sentAt.size > 0 && performance.now() - sendEnd < DRAIN_MS) await sleep(20);
  for (const g of groups) g.agent.off('message.created', onCreated);
  const sorted = Float64Array.from(latencies).sort();
  const acks = Float64Array.from(ackLatencies).sort();
  return {
    rate,
    sent,
    received: latencies.length,
    late: sentAt.size,
    failures: Object.fromEntries(failures),
    sentPerSec: sent / ((sendEnd - start) / 1000),
    deliveredPerSec: latencies.length / (((lastRecv || sendEnd) - start) / 1000),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    ackP50: percentile(acks, 50),
  };
}

async function suite(mode, ctx) {
  const env = { BENCH_DB_URL: ctx.db.url, BENCH_REDIS_URL: ctx.redis.url, BENCH_DATA_DIR: ctx.dataDir };
  const script = path.join(BENCH_DIR, 'latency/node.mjs');
  // BENCH_NODE_ARGS: extra node flags for the server processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  const opts = { env, execArgv: ['--disable-warning=FSTDEP023', ...extra] };
  const nodes = await Promise.all([startChild(script, [mode], opts), startChild(script, [mode], opts)]);
  ctx.children.push(...nodes);
  const [A, B] = nodes.map((n) => `http://127.0.0.1:${n.ready.port}`);
  const groups = await connectClients(mode, A, B, ctx.db.url);
  const sockets = groups.flatMap((g) => [g.agent, ...g.visitors]);
  try {
    // Warm-up (not measured): one message per visitor (Parley creates the conversations here), then 1 s at 100/s.
    const n = groups.reduce((s, g) => s + g.visitors.length, 0);
    await phase(groups, `${mode}w1`, 200, n);
    await phase(groups, `${mode}w2`, 100, 100);
    await sleep(500);
    // Per rate: CPU of both nodes, Redis and (Parley) the database's backends; Redis commands.
    const stats = createClient({ url: ctx.redis.url });
    stats.on('error', (e) => console.error(`redis (commandstats client): ${e.message}`));
    await stats.connect();
    const fixed = [...nodes.map((x) => x.pid), ctx.redis.pid];
    const measured = async (rate) => {
      await stats.configResetStat();
      const before = cpuOf([...fixed, ...(mode === 'parley' ? await backendPids(ctx.db.name) : [])]);
      const r = await phase(groups, `${mode}r${rate}`, rate, Math.round(rate * SECONDS));
      const after = cpuOf([...new Set([...before.keys(), ...(mode === 'parley' ? await backendPids(ctx.db.name) : [])])]);
      const nodesMs = cpuSpent(before, after, fixed.slice(0, 2));
      const redisMs = cpuSpent(before, after, [ctx.redis.pid]);
      const pgMs = cpuSpent(before, after) - nodesMs - redisMs;
      const redisCalls = await redisCommandCalls(stats);
      const load = loadAverage();
      await sleep(1000);
      return { ...r, cpu: { nodesMs, redisMs, pgMs }, redisCalls, load };
    };
    const results = [];
    try {
      for (const rate of RATES) results.push(await measured(rate));
      // Where does p99 pass the limit? Between the last rate under it and the first over it
      // (the geometric middle), or above the top rate (doubling, up to MAX_RATE).
      for (let i = 0; P99_LIMIT && i < SEARCH_STEPS; i++) {
        const sorted = [...results].sort((a, b) => a.rate - b.rate);
        const over = sorted.find((r) => !(r.p99 <= P99_LIMIT));
        const under = sorted.filter((r) => r.p99 <= P99_LIMIT && (!over || r.rate < over.rate)).at(-1);
        let next;
        if (!over) next = Math.min(MAX_RATE, sorted.at(-1).rate * 2);
        else if (under) next = Math.round(Math.sqrt(under.rate * over.rate) / 50) * 50;
        if (!next || results.some((r) => r.rate === next)) break;
        results.push({ ...(await measured(next)), searched: true });
      }
    } finally {
      await stats.quit();
    }
    return { results, visitors: n, agents: groups.length };
  } finally {
    for (const s of sockets) s.close();
    for (const node of nodes) await node.stop();
  }
}

const { ctx, cleanup } = benchContext();

try {
  ctx.redis = await startRedis();
  ctx.db = await createDatabase();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  console.log(`Delivery latency: visitor socket on node A -> agent socket on node B, through Redis (${ctx.redis.url}, private)`);
  console.log(`Each node is its own process; database ${ctx.db.name} (dropped after). ${SECONDS} s per rate.\n`);
  const bare = await suite('bare', ctx);
  const parley = await suite('parley', ctx);
  console.log(`${bare.visitors} visitor sockets (max ${(Math.max(...RATES) / bare.visitors).toFixed(1)} events/s each), ${bare.agents} agent sockets\n`);
  const head = `${'rate'.padEnd(10)}${'system'.padEnd(8)}${'sent/s'.padStart(9)}${'deliv/s'.padStart(9)}${'p50'.padStart(11)}${'p99'.padStart(11)}${'max'.padStart(11)}${'ack p50'.padStart(11)}  late  refused${'CPU/msg'.padStart(10)}${'Redis/msg'.padStart(11)}   load (1/5 min)`;
  console.log(head);
  console.log('-'.repeat(head.length));
  const legend = `late: sent, not refused, yet not at the agent ${DRAIN_MS / 1000} s after the last send; refused: negative acks;
CPU/msg: CPU of both nodes + Redis (+ PostgreSQL's backends for Parley) per delivered message; Redis/msg: Redis commands per delivered message`;
  const line = (name, r) => {
    const refused = Object.entries(r.failures).map(([k, v]) => `${v}x${k}`).join(' ') || '0';
    const cpu = (r.cpu.nodesMs + r.cpu.redisMs + r.cpu.pgMs) / r.received;
    const cmds = Object.values(r.redisCalls).reduce((a, b) => a + b, 0) / r.received;
    console.log(
      `${`${r.rate}/s`.padEnd(10)}${name.padEnd(8)}${r.sentPerSec.toFixed(0).padStart(9)}${r.deliveredPerSec.toFixed(0).padStart(9)}${ms(r.p50).padStart(11)}${ms(r.p99).padStart(11)}${ms(r.max).padStart(11)}${ms(r.ackP50).padStart(11)}  ${String(r.late).padStart(4)}  ${refused.padStart(7)}${`${cpu.toFixed(2)} ms`.padStart(10)}${cmds.toFixed(2).padStart(11)}   ${r.load}   (nodes ${(r.cpu.nodesMs / r.received).toFixed(2)}, PostgreSQL ${(r.cpu.pgMs / r.received).toFixed(2)}, Redis ${(r.cpu.redisMs / r.received).toFixed(2)} ms)`,
    );
  };
  for (let i = 0; i < RATES.length; i++) {
    line('bare', bare.results[i]);
    line('parley', parley.results[i]);
    const p = parley.results[i];
    const b = bare.results[i];
    const sustained = p.deliveredPerSec >= 0.95 * p.rate && p.late === 0;
    const cpuRatio = (p.cpu.nodesMs + p.cpu.redisMs + p.cpu.pgMs) / p.received / ((b.cpu.nodesMs + b.cpu.redisMs) / b.received);
    console.log(`${''.padEnd(10)}parley/bare: p50 ${(p.p50 / b.p50).toFixed(2)}x, CPU per message ${cpuRatio.toFixed(2)}x${sustained ? '' : `  (parley did NOT sustain ${p.rate}/s: ${p.deliveredPerSec.toFixed(0)}/s delivered)`}\n`);
  }
  for (const [name, sys] of [['bare', bare], ['parley', parley]]) for (const r of sys.results.slice(RATES.length)) line(name, r);
  console.log(legend);
  const crossing = (sys) => {
    if (!P99_LIMIT) return undefined;
    const sorted = [...sys.results].sort((a, b) => a.rate - b.rate);
    const over = sorted.find((r) => !(r.p99 <= P99_LIMIT));
    const under = sorted.filter((r) => r.p99 <= P99_LIMIT && (!over || r.rate < over.rate)).at(-1);
    return { under: under?.rate ?? null, over: over?.rate ?? null };
  };
  const say = (c) => (c.over === null ? `above ${c.under}/s (the top rate tried)` : c.under === null ? `below ${c.over}/s (the lowest rate tried)` : `between ${c.under} and ${c.over}/s`);
  if (P99_LIMIT) {
    console.log(`\np99 passes ${P99_LIMIT} ms: parley ${say(crossing(parley))}; bare ${say(crossing(bare))}`);
  }
  const i500 = RATES.indexOf(500);
  if (i500 >= 0) {
    const p = parley.results[i500];
    const ratio = p.p50 / bare.results[i500].p50;
    console.log('Targets at 500 messages/s:');
    console.log(`  p50 parley/bare = ${ratio.toFixed(2)}x  (target <= 3x): ${ratio <= 3 ? 'ok' : 'OVER'}`);
    console.log(`  p99 parley = ${ms(p.p99)}  (target <= 20 ms): ${p.p99 <= 20 ? 'ok' : 'OVER'}`);
    const b = bare.results[i500];
    const cpu = (p.cpu.nodesMs + p.cpu.redisMs + p.cpu.pgMs) / p.received / ((b.cpu.nodesMs + b.cpu.redisMs) / b.received);
    console.log(`  CPU per message parley/bare = ${cpu.toFixed(2)}x  (target <= 2x): ${cpu <= 2 ? 'ok' : 'OVER'}`);
  }
  if (process.env.BENCH_JSON) {
    await writeFile(process.env.BENCH_JSON, JSON.stringify({ rates: RATES, p99Limit: P99_LIMIT ?? null, bare, parley, crossing: { bare: crossing(bare) ?? null, parley: crossing(parley) ?? null } }));
  }
} finally {
  await cleanup();
}
