// The REST polling fallback's cost on one node: visitors whose socket is blocked poll
// GET /api/widget/messages?cursor=... every 10 s (widget/src/ui/chat.ts, POLL_INTERVAL_MS), so N
// polling visitors make N/10 polls/s. Steps up the number of visitors; at each step prints the
// CPU per poll (the node, PostgreSQL's backends for this database, the private Redis), the
// latency p50/p99 and how many polls were answered; then the polls/s the node sustains with
// p99 <= 100 ms, Redis commands and SQL statements per poll.
// The node: PostgreSQL + a private redis-server (the many-node deployment), bench/latency/node.mjs.
// Visitors, their conversations and two messages each are inserted in SQL; every visitor polls
// with the cursor its previous poll returned (sending If-None-Match when the answer had an ETag,
// as the browser's cache would). Requests go over keep-alive connections from 127.0.0.2-9.
// Run: node bench/capacity/polling.mjs   (after `npm run build`; PostgreSQL on 127.0.0.1:5432,
// redis-server on the PATH). Options (env): BENCH_POLL_VISITORS=1000,2500,5000,10000,20000,
// BENCH_POLL_SECONDS=10 per step, BENCH_JSON=<file>.
// Targets: 10,000 polling visitors on one node with p99 <= 100 ms.
import http from 'node:http';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { BENCH_DIR, backendPids, cpuOf, cpuSpent, createDatabase, loadAverage as load, ms, percentile, redisCommandCalls, sleep, startChild, startRedis } from '../lib.mjs';

const STEPS = (process.env.BENCH_POLL_VISITORS ?? '1000,2500,5000,10000,20000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 10);
const INTERVAL_MS = 10_000;
const P99_LIMIT = 100;
const DRAIN_MS = 5000;
const SOURCES = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
const agents = SOURCES.map((localAddress) => new http.Agent({ keepAlive: true, maxSockets: 256, localAddress }));

const ctx = { children: [], redis: undefined, db: undefined, dataDir: undefined, queryDir: undefined };
async function cleanup() {
  for (const a of agents) a.destroy();
  for (const c of ctx.children) await c.stop().catch(() => {});
  await ctx.redis?.stop().catch(() => {});
  await ctx.db?.drop().catch((e) => console.error(`could not drop ${ctx.db.name}: ${e.message}`));
  for (const d of [ctx.dataDir, ctx.queryDir]) if (d) await rm(d, { recursive: true, force: true });
}
process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

/** One GET over the keep-alive agents: { status, ms, body, etag }. */
function get(port, visitor, i) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const headers = { authorization: `Bearer ${visitor.token}` };
    if (visitor.etag) headers['if-none-match'] = visitor.etag;
    const req = http.request(
      { host: '127.0.0.1', port, path: visitor.cursor ? `/api/widget/messages?cursor=${visitor.cursor}` : '/api/widget/messages', headers, agent: agents[i % agents.length] },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, body: Buffer.concat(chunks), etag: res.headers.etag }));
      },
    );
    req.on('error', (e) => resolve({ status: 0, ms: performance.now() - t0, error: e.message }));
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

async function poll(port, visitor, i) {
  const r = await get(port, visitor, i);
  if (r.status === 200) {
    const json = JSON.parse(r.body.toString('utf8'));
    if (json.next_cursor) visitor.cursor = json.next_cursor;
    visitor.etag = r.etag;
  }
  return r;
}

/** `visitors` visitors poll every 10 s, spread evenly (open loop), for SECONDS; a visitor's next poll waits for its last, as the widget's does. */
async function step(port, visitors, measure) {
  const rate = visitors.length / (INTERVAL_MS / 1000);
  const total = Math.round(rate * SECONDS);
  const latencies = [];
  const statuses = new Map();
  let skipped = 0;
  let done = 0;
  let started = 0;
  const before = await measure.before();
  const t0 = performance.now();
  // Each visitor keeps its place in the 10 s cycle: visitor k polls at k/rate s, then every 10 s.
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
      while (started < due) {
        const k = started++ % visitors.length;
        const v = visitors[k];
        if (v.busy) {
          skipped++;
          continue;
        }
        v.busy = true;
        poll(port, v, k).then((r) => {
          v.busy = false;
          done++;
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status === 200 || r.status === 304) latencies.push(r.ms);
        });
      }
      if (started >= total) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  const sendEnd = performance.now();
  while (done + skipped < started && performance.now() - sendEnd < DRAIN_MS) await sleep(20);
  const elapsed = (performance.now() - t0) / 1000;
  const after = await measure.after(before);
  const sorted = Float64Array.from(latencies).sort();
  const answered = latencies.length;
  return {
    visitors: visitors.length,
    rate,
    tried: started,
    answered,
    skipped,
    unanswered: started - skipped - done,
    statuses: Object.fromEntries(statuses),
    answeredPerSec: answered / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
    ...after,
    load: load(),
  };
}

/** Visitors with a conversation and two messages each, straight in the database. */
async function seed(dbUrl, accountId, count) {
  const tokens = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
  const hashes = tokens.map((t) => createHash('sha256').update(t).digest('hex'));
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await db.query(
      `with v as (insert into visitors (account_id, token_hash, name) select $1, h, 'Polling visitor' from unnest($2::text[]) h returning id),
            c as (insert into conversations (account_id, visitor_id, last_message, last_message_at, unread_count)
                  select $1, id, 'Is anyone there?', now(), 2 from v returning id)
       insert into messages (account_id, conversation_id, sender_type, message)
       select $1, c.id, 'visitor', m from c, (values ('Hello, a question about my order'), ('Is anyone there?')) x(m)`,
      [accountId, hashes],
    );
    await db.query('analyze');
  } finally {
    await db.end();
  }
  return tokens;
}

try {
  ctx.redis = await startRedis();
  ctx.db = await createDatabase();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  ctx.queryDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-q-'));
  const env = { BENCH_DB_URL: ctx.db.url, BENCH_REDIS_URL: ctx.redis.url, BENCH_DATA_DIR: ctx.dataDir, BENCH_COUNT_QUERIES: path.join(ctx.queryDir, 'q') };
  const node = await startChild(path.join(BENCH_DIR, 'latency/node.mjs'), ['parley'], { env, execArgv: ['--disable-warning=FSTDEP023'] });
  ctx.children.push(node);
  const port = node.ready.port;
  const redisPid = ctx.redis.pid;
  const stats = createClient({ url: ctx.redis.url });
  stats.on('error', (e) => console.error(`redis (commandstats client): ${e.message}`));
  await stats.connect();

  const password = 'Bench-pass-123!';
  const res = await fetch(`http://127.0.0.1:${port}/api/vms/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench Owner', email: `bench-poll-${Date.now()}@example.com`, password, password_confirmation: password }),
  });
  const reg = await res.json();
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(reg)}`);
  console.log(`REST polling on one node (PostgreSQL ${ctx.db.name}, private Redis ${ctx.redis.url}); ${SECONDS} s per step`);
  // Visitors are seeded as the steps need them (a step that fails ends the run before the next seeding).
  const tokens = await seed(ctx.db.url, reg.user.account_id, STEPS[0]);
  // Every visitor starts from the cursor a poll after the seeding returns (the cursor is a database snapshot, not per visitor).
  const first = await poll(port, { token: tokens[0], cursor: '' }, 0).catch(() => undefined);
  const startCursor = first && first.status === 200 ? JSON.parse(first.body.toString('utf8')).next_cursor : undefined;
  if (!startCursor) throw new Error(`the first poll failed: ${first?.status} ${first?.body?.toString().slice(0, 200)}`);
  const visitors = tokens.map((token) => ({ token, cursor: startCursor, etag: undefined, busy: false }));
  const need = async (n) => {
    if (visitors.length >= n) return;
    const t0 = Date.now();
    const more = await seed(ctx.db.url, reg.user.account_id, n - visitors.length);
    // Their first cursor: one poll's answer after the seeding (every visitor of a step polls from the same snapshot).
    const probe = { token: more[0], cursor: startCursor };
    await poll(port, probe, 0);
    for (const token of more) visitors.push({ token, cursor: probe.cursor, etag: undefined, busy: false });
    console.log(`  (${more.length} more visitors seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  };

  const measure = {
    async before() {
      await stats.configResetStat();
      const pids = [node.pid, redisPid, ...(await backendPids(ctx.db.name))];
      return cpuOf(pids);
    },
    async after(before) {
      const pids = [...new Set([...before.keys(), ...(await backendPids(ctx.db.name))])];
      const now = cpuOf(pids);
      const nodeMs = now.get(node.pid) - before.get(node.pid);
      const redisMs = now.get(redisPid) - before.get(redisPid);
      const pgMs = cpuSpent(before, now) - nodeMs - redisMs;
      const calls = await redisCommandCalls(stats);
      return { nodeMs, pgMs, redisMs, redisCalls: calls };
    },
  };

  // Warm-up (not counted): the smallest step once.
  await step(port, visitors.slice(0, STEPS[0]), measure);
  const results = [];
  const passed = (r) => r.p99 <= P99_LIMIT && r.unanswered === 0 && r.answered >= 0.95 * (r.tried - r.skipped);
  const show = (r) => console.log(`  ${r.visitors} visitors, ${r.rate.toFixed(0)} polls/s: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, ${r.answered} answered, ${r.unanswered} unanswered  (load ${r.load})`);
  for (const n of STEPS) {
    await need(n);
    const r = await step(port, visitors.slice(0, n), measure);
    show(r);
    results.push(r);
    await sleep(1000);
    if (passed(r)) continue;
    // Past the limit: one step between the last that held and this one, then stop.
    const lo = results.filter(passed).at(-1);
    if (lo) {
      const mid = Math.round(Math.sqrt(lo.visitors * n) / 100) * 100;
      if (mid > lo.visitors && mid < n) {
        const m = await step(port, visitors.slice(0, mid), measure);
        show(m);
        results.splice(results.length - 1, 0, m);
      }
    }
    if (n !== STEPS.at(-1)) console.log(`(stopped stepping up at ${n} visitors: p99 ${ms(r.p99)})`);
    break;
  }
  const totalPolls = results.reduce((s, r) => s + r.answered, 0) + STEPS[0]; // + the warm-up
  await node.stop();
  const files = (await readdir(ctx.queryDir)).filter((f) => f.startsWith('q.'));
  let statements = 0;
  for (const f of files) for (const line of (await readFile(path.join(ctx.queryDir, f), 'utf8')).split('\n')) statements += Number(line.split('\t')[0]) || 0;

  const head = `${'visitors'.padStart(9)}${'polls/s'.padStart(9)}${'answered/s'.padStart(11)}${'p50'.padStart(11)}${'p99'.padStart(11)}${'node CPU/poll'.padStart(15)}${'PG CPU/poll'.padStart(13)}${'Redis CPU/poll'.padStart(16)}${'Redis cmds/poll'.padStart(17)}   load (1/5 min)`;
  console.log(`\n${head}`);
  console.log('-'.repeat(head.length + 20));
  for (const r of results) {
    const per = (x) => `${(x / r.answered).toFixed(3)} ms`;
    const cmds = Object.values(r.redisCalls).reduce((a, b) => a + b, 0) / r.answered;
    const notes = [r.skipped ? `${r.skipped} skipped (the visitor's last poll still running)` : '', r.unanswered ? `${r.unanswered} unanswered` : '', Object.keys(r.statuses).some((s) => s !== '200' && s !== '304') ? `statuses ${JSON.stringify(r.statuses)}` : '']
      .filter(Boolean)
      .join('; ');
    console.log(
      `${String(r.visitors).padStart(9)}${r.rate.toFixed(0).padStart(9)}${r.answeredPerSec.toFixed(0).padStart(11)}${ms(r.p50).padStart(11)}${ms(r.p99).padStart(11)}${per(r.nodeMs).padStart(15)}${per(r.pgMs).padStart(13)}${per(r.redisMs).padStart(16)}${cmds.toFixed(2).padStart(17)}   ${r.load}${notes ? `\n${''.padStart(9)}${notes}` : ''}`,
    );
  }
  const sustained = results.filter(passed);
  const best = sustained.at(-1);
  const at1000 = results.find((r) => r.visitors === 1000) ?? results[0];
  const cpuPer = (r) => (r.nodeMs + r.pgMs + r.redisMs) / r.answered;
  console.log(`\nPer 1,000 polling visitors (100 polls/s, measured at ${at1000.visitors}): ${cpuPer(at1000).toFixed(2)} ms of CPU per poll (node ${(at1000.nodeMs / at1000.answered).toFixed(2)}, PostgreSQL ${(at1000.pgMs / at1000.answered).toFixed(2)}, Redis ${(at1000.redisMs / at1000.answered).toFixed(2)}) = ${((cpuPer(at1000) * 100) / 10).toFixed(1)} % of one core`);
  console.log(`SQL statements per poll (whole run, the node's count): ${(statements / totalPolls).toFixed(2)}`);
  const calls = {};
  for (const r of results) for (const [k, v] of Object.entries(r.redisCalls)) calls[k] = (calls[k] ?? 0) + v;
  const answeredAll = results.reduce((s, r) => s + r.answered, 0);
  console.log(`Redis commands per poll: ${Object.entries(calls).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / answeredAll).toFixed(2)}`).join(', ') || 'none'}`);
  console.log(`Sustained with p99 <= ${P99_LIMIT} ms: ${best ? `${best.rate.toFixed(0)} polls/s (${best.visitors} visitors)` : 'none of the steps'}${best === results.at(-1) ? ' (the top step: the limit is higher)' : ''}`);
  const at10k = results.find((r) => r.visitors === 10_000);
  console.log(`Target: 10,000 polling visitors with p99 <= 100 ms: ${at10k ? `p99 ${ms(at10k.p99)}: ${at10k.p99 <= P99_LIMIT && at10k.unanswered === 0 ? 'ok' : 'OVER'}` : 'not reached (stopped before)'}`);
  if (process.env.BENCH_JSON) {
    await writeFile(process.env.BENCH_JSON, JSON.stringify({ results, statementsPerPoll: statements / totalPolls, redisPerPoll: Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, v / answeredAll])), sustained: best ? { rate: best.rate, visitors: best.visitors } : null, per1000: { cpuMsPerPoll: cpuPer(at1000), coreShare: (cpuPer(at1000) * 100) / 1000, load: at1000.load } }));
  }
  await stats.quit();
} finally {
  await cleanup();
}
