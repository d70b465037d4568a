// Reconnect storm across two nodes: N widget sockets connected (alternating nodes A and B, an
// agent socket on B hearing their presence), then every socket drops and comes back on the other
// node at a random moment within STORM seconds, as a rolling restart or a network blip makes them.
// Parley's widgets then resume from their cursor (GET /api/widget/messages?cursor=..., as the
// widget does after each reconnect) instead of reloading their history. Beside a bare Socket.IO
// relay on the same Redis in the same run.
// Run: node bench/latency/storm.mjs   (after `npx turbo run build --filter=@parley/server`; needs
// PostgreSQL on 127.0.0.1:5432 and redis-server on the PATH). Options (env):
// BENCH_STORM_SOCKETS=5000, BENCH_STORM_SECONDS=5, BENCH_STORM_MODES=bare,parley, BENCH_NODE_ARGS.
// Target: every Parley socket back (and resumed) within 2x the bare relay's time.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { io } from 'socket.io-client';
import { BENCH_DIR, PG_ADMIN_URL, createDatabase, ms, percentile, sleep, startChild, startRedis, benchContext } from '../lib.mjs';
import { cpuMeter, postgresBackends } from './cpu.mjs';

const SOCKETS = Number(process.env.BENCH_STORM_SOCKETS ?? 5000);
const STORM_S = Number(process.env.BENCH_STORM_SECONDS ?? 5);
const MODES = (process.env.BENCH_STORM_MODES ?? 'bare,parley').split(',');
/** A socket not back this long after the storm began counts as lost. */
const DEADLINE_MS = 60_000;
const RETRY_MS = 500;

const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });

function get(port, url, token) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: url, headers: { authorization: `Bearer ${token}` }, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const open = (base, auth) =>
  new Promise((resolve, reject) => {
    const s = io(base, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
    s.once('connect', () => resolve(s));
    s.once('connect_error', (e) => {
      s.close();
      reject(new Error(e.message));
    });
  });

/** An account and N visitors straight in the database (tokens hashed as server/services/secrets.ts does). */
async function parleyVisitors(base, dbUrl) {
  const password = 'Bench-pass-123!';
  const res = await fetch(`${base}/api/vms/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench Owner', email: `bench-storm-${Date.now()}@example.com`, password, password_confirmation: password }),
  });
  const reg = await res.json();
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(reg)}`);
  const tokens = Array.from({ length: SOCKETS }, () => randomBytes(32).toString('base64url'));
  const hashes = tokens.map((t) => createHash('sha256').update(t).digest('hex'));
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const { rows } = await db.query('select widget_key from accounts where id = $1', [reg.user.account_id]);
    await db.query(`insert into visitors (account_id, token_hash, name) select $1, h, 'Storm visitor' from unnest($2::text[]) as h`, [reg.user.account_id, hashes]);
    const snap = await db.query('select pg_current_snapshot()::text as s');
    const cursor = Buffer.from(snap.rows[0].s, 'utf8').toString('base64url');
    return { agentAuth: { token: reg.token }, visitors: tokens.map((visitor_token) => ({ auth: { widget_key: rows[0].widget_key, visitor_token }, cursor })) };
  } finally {
    await db.end();
  }
}

/** Runs `fn` over items with at most `n` at a time. */
async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function storm(mode, ctx) {
  const env = { BENCH_DB_URL: ctx.db.url, BENCH_REDIS_URL: ctx.redis.url, BENCH_DATA_DIR: ctx.dataDir };
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  const opts = { env, execArgv: ['--disable-warning=FSTDEP023', ...extra] };
  const script = path.join(BENCH_DIR, 'latency/node.mjs');
  const nodes = await Promise.all([startChild(script, [mode], opts), startChild(script, [mode], opts)]);
  ctx.children.push(...nodes);
  const bases = nodes.map((n) => `http://127.0.0.1:${n.ready.port}`);
  const ports = nodes.map((n) => n.ready.port);
  const live = new Set();
  try {
    const setup =
      mode === 'bare'
        ? { agentAuth: { role: 'agent', room: 'storm' }, visitors: Array.from({ length: SOCKETS }, () => ({ auth: { room: 'storm' } })) }
        : await parleyVisitors(bases[0], ctx.db.url);
    const agentSocket = await open(bases[1], setup.agentAuth);
    live.add(agentSocket);
    const clients = setup.visitors.map((v, i) => ({ ...v, node: i % 2, socket: undefined }));
    await pool(clients, 100, async (c) => {
      c.socket = await open(bases[c.node], c.auth);
      live.add(c.socket);
    });
    await sleep(2000); // connect-time pushes settle

    const groups = { nodes: async () => nodes.map((n) => n.pid), redis: async () => [ctx.redis.pid] };
    if (mode !== 'bare') groups.postgres = postgresBackends(PG_ADMIN_URL, ctx.db.name);
    const window = await cpuMeter(groups).start();
    const t0 = performance.now();
    const back = [];
    const resumed = [];
    let retries = 0;
    let lost = 0;
    let resumeFailed = 0;
    const firstErrors = new Map();
    await Promise.all(
      clients.map(async (c) => {
        await sleep(Math.random() * STORM_S * 1000);
        const dropped = performance.now();
        live.delete(c.socket);
        c.socket.close();
        c.node = 1 - c.node; // back on the other node
        for (;;) {
          try {
            c.socket = await open(bases[c.node], c.auth);
            live.add(c.socket);
            break;
          } catch (e) {
            retries++;
            firstErrors.set(e.message, (firstErrors.get(e.message) ?? 0) + 1);
            if (performance.now() - t0 > DEADLINE_MS) {
              lost++;
              return;
            }
            await sleep(RETRY_MS);
          }
        }
        const at = performance.now();
        back.push({ took: at - dropped, at: at - t0 });
        if (mode === 'bare') return;
        // The widget's catch-up after a reconnect: what committed since its cursor.
        const res = await get(ports[c.node], `/api/widget/messages?cursor=${c.cursor}`, c.auth.visitor_token).catch(() => ({ status: 0 }));
        if (res.status !== 200 && res.status !== 304) resumeFailed++;
        resumed.push(performance.now() - t0);
      }),
    );
    await sleep(1000); // disconnect/connect pushes settle
    const used = await window.stop();
    const took = Float64Array.from(back.map((b) => b.took)).sort();
    const allBack = Math.max(...back.map((b) => b.at));
    return {
      mode,
      sockets: clients.length,
      back: back.length,
      lost,
      retries,
      errors: Object.fromEntries(firstErrors),
      allBackMs: allBack,
      allResumedMs: resumed.length ? Math.max(...resumed) : undefined,
      resumeFailed,
      p50: percentile(took, 50),
      p99: percentile(took, 99),
      cpuPerReconnect: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, v / Math.max(1, back.length)])),
    };
  } finally {
    for (const s of live) s.close();
    for (const node of nodes) await node.stop();
  }
}

const { ctx, cleanup } = benchContext(() => agent.destroy());

try {
  ctx.redis = await startRedis();
  ctx.db = await createDatabase();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  console.log(`Reconnect storm: ${SOCKETS} widget sockets on two nodes (private Redis ${ctx.redis.url}), each dropped and back on the other node`);
  console.log(`at a random moment within ${STORM_S} s; Parley's widgets resume from their cursor after reconnecting.\n`);
  const results = [];
  for (const mode of MODES) results.push(await storm(mode, ctx));
  const head = `${'system'.padEnd(8)}${'back'.padStart(7)}${'all back'.padStart(11)}${'resumed'.padStart(11)}${'p50'.padStart(11)}${'p99'.padStart(11)}${'CPU/reconnect'.padStart(15)}  retries`;
  console.log(head);
  console.log('-'.repeat(head.length + 10));
  for (const r of results) {
    const cpu = Object.values(r.cpuPerReconnect).reduce((a, b) => a + b, 0);
    const s = (x) => (x === undefined ? '-' : `${(x / 1000).toFixed(2)} s`);
    console.log(
      `${r.mode.padEnd(8)}${String(r.back).padStart(7)}${s(r.allBackMs).padStart(11)}${s(r.allResumedMs).padStart(11)}${ms(r.p50).padStart(11)}${ms(r.p99).padStart(11)}${`${cpu.toFixed(3)} ms`.padStart(15)}  ${r.retries}`,
    );
    const detail = Object.entries(r.cpuPerReconnect).map(([k, v]) => `${k} ${v.toFixed(3)} ms`).join(', ');
    console.log(`${''.padEnd(8)}CPU: ${detail}${r.lost ? `; ${r.lost} never back` : ''}${r.resumeFailed ? `; ${r.resumeFailed} resumes failed` : ''}${r.retries ? `; refusals ${JSON.stringify(r.errors)}` : ''}`);
  }
  console.log('\nall back: from the storm\'s start until the last socket connected again (the drops themselves are spread over the first seconds);');
  console.log('p50/p99: each socket\'s own time from its drop to its connect; CPU: both nodes + redis-server (+ this database\'s PostgreSQL backends) per reconnect.');
  console.log(`Load average when done: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`);
  const bare = results.find((r) => r.mode === 'bare');
  const parley = results.find((r) => r.mode === 'parley');
  if (bare && parley) {
    const ratio = (parley.allResumedMs ?? parley.allBackMs) / bare.allBackMs;
    const ok = ratio <= 2 && parley.lost === 0 && parley.resumeFailed === 0;
    console.log(`Target: every socket back and resumed within 2x bare: ${ratio.toFixed(2)}x (${((parley.allResumedMs ?? parley.allBackMs) / 1000).toFixed(2)} s vs ${(bare.allBackMs / 1000).toFixed(2)} s): ${ok ? 'ok' : 'OVER'}`);
  }
} finally {
  await cleanup();
}
