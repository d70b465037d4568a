// Idle widget sockets on one node at 5k, 10k and 20k: RSS and heap+external per socket beside a
// bare Socket.IO server, measured the same way in the same run (bench/memory's server and
// client processes). The node: PostgreSQL, no Redis (one node), real widget auth.
// Run: node bench/capacity/sockets.mjs   (after `npm run build`; needs PostgreSQL on 127.0.0.1:5432).
// Options (env): BENCH_SOCKET_STEPS=5000,10000,20000, BENCH_JSON=<file>, BENCH_HEAP_SNAPSHOTS=<dir>
// (a heap snapshot of each server at each step, as <dir>/<system>-<sockets>.heapsnapshot: compare
// two with bench/memory/heapdiff.mjs; use small steps, e.g. 2000,4000: a snapshot takes a while).
// Target: memory per idle socket <= 1.3x bare.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, createDatabase, kb, loadAverage as load, mb, sleep, startChild, benchContext } from '../lib.mjs';
import { parleyAuths } from '../memory/auths.mjs';

const SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOTS;
const STEPS = (process.env.BENCH_SOCKET_STEPS ?? '5000,10000,20000').split(',').map(Number);
const WARM = 200;
// Open files: each side needs one per socket. Raise the soft limit up to the hard one (a
// container may not allow more: then the top step is cut to what one process can hold).
const ULIMIT = 'ulimit -n 65536 2>/dev/null || ulimit -n $(ulimit -Hn)';
// Sockets per client process, well under any process's limit.
const PER_CLIENT = 8000;
// Source addresses taken in turn: 20k connections to one port would use most of one address's ephemeral ports.
const SOURCES = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
const serverScript = path.join(BENCH_DIR, 'memory/server.mjs');
const clientScript = path.join(BENCH_DIR, 'memory/clients.mjs');

const { ctx, cleanup } = benchContext();

async function measureSystem(mode) {
  const env = { BENCH_DB_URL: ctx.db.url, BENCH_DATA_DIR: ctx.dataDir };
  const server = await startChild(serverScript, [mode], { env, execArgv: ['--expose-gc', '--disable-warning=FSTDEP023'], shellPrefix: ULIMIT });
  ctx.children.push(server);
  // A node holds at most its open-file limit minus what it uses besides sockets.
  const cap = server.ready.fdLimit - 400;
  const top = Math.min(Math.max(...STEPS), cap);
  const clients = [];
  for (let i = 0; i < Math.ceil(top / PER_CLIENT); i++) {
    const c = await startChild(clientScript, [], { shellPrefix: ULIMIT });
    ctx.children.push(c);
    clients.push(c);
  }
  const url = `http://127.0.0.1:${server.ready.port}`;
  try {
    // Spare credentials: a refused connection's visitor is not tried again.
    const count = Math.ceil(top * 1.05) + WARM;
    const auths = mode === 'parley' ? await parleyAuths(url, ctx.db.url, count) : Array.from({ length: count }, () => ({}));
    const warm = await clients[0].request({ cmd: 'connect', url, auths: auths.slice(0, WARM), localAddresses: SOURCES });
    const pool = auths.slice(WARM);
    if (warm.failed) throw new Error(`${mode}: warm-up connections failed: ${warm.firstError}`);
    await clients[0].request({ cmd: 'close' });
    await sleep(1500);
    const before = await server.request({ cmd: 'measure' });
    const steps = [];
    let held = 0; // sockets the server counts
    let nextAuth = 0;
    let failed = 0;
    let firstError;
    for (const c of clients) c.held = 0;
    for (const wanted of STEPS) {
      const target = Math.min(wanted, cap);
      if (target <= held) continue;
      // The new sockets go to the client processes with room, each up to PER_CLIENT.
      const t0 = Date.now();
      let left = target - held;
      const jobs = [];
      for (const c of clients) {
        const n = Math.min(PER_CLIENT - c.held, left, pool.length - nextAuth);
        if (n <= 0) continue;
        const slice = pool.slice(nextAuth, nextAuth + n);
        nextAuth += n;
        left -= n;
        const had = c.held;
        jobs.push(
          c.request({ cmd: 'connect', url, auths: slice, localAddresses: SOURCES }).then((g) => {
            c.held = g.connected; // the process's total
            failed += g.failed;
            firstError ??= g.firstError;
            return g.connected - had;
          }),
        );
      }
      const connected = (await Promise.all(jobs)).reduce((a, b) => a + b, 0);
      const seconds = (Date.now() - t0) / 1000;
      await sleep(3000); // connect-time work (presence, last-seen writes) settles
      const after = await server.request({ cmd: 'measure' });
      held = after.sockets;
      if (SNAPSHOTS) await server.request({ cmd: 'snapshot', file: path.join(SNAPSHOTS, `${mode}-${held}.heapsnapshot`) });
      steps.push({ wanted, target, held, seconds, rate: connected / seconds, after, load: load() });
    }
    for (const c of clients) await c.request({ cmd: 'close' });
    return { mode, before, steps, cap, failed, firstError };
  } finally {
    for (const c of clients) await c.stop();
    await server.stop();
  }
}

try {
  ctx.db = await createDatabase();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  console.log(`Idle widget sockets on one node (${STEPS.join(' / ')}), from separate client processes on ${SOURCES[0]}-${SOURCES.at(-1)};`);
  console.log(`the server is measured after global.gc() before connecting and at each step (database ${ctx.db.name}, dropped after)\n`);
  const bare = await measureSystem('bare');
  const parley = await measureSystem('parley');
  const heap = (m) => m.heapUsed + m.external;
  const per = (r, s, f) => (f(s.after) - f(r.before)) / s.held;
  const head = `${'step'.padEnd(7)}${'system'.padEnd(8)}${'sockets'.padStart(9)}${'RSS'.padStart(11)}${'RSS/socket'.padStart(12)}${'heap+ext/sock'.padStart(15)}${'connects/s'.padStart(12)}   load (1/5 min)`;
  console.log(head);
  console.log('-'.repeat(head.length + 20));
  const out = [];
  for (let i = 0; i < Math.max(bare.steps.length, parley.steps.length); i++) {
    const b = bare.steps[i];
    const p = parley.steps[i];
    for (const [name, r, s] of [['bare', bare, b], ['parley', parley, p]]) {
      if (!s) continue;
      console.log(
        `${`${s.wanted / 1000}k`.padEnd(7)}${name.padEnd(8)}${String(s.held).padStart(9)}${mb(s.after.rss).padStart(11)}${kb(per(r, s, (m) => m.rss)).padStart(12)}${kb(per(r, s, heap)).padStart(15)}${s.rate.toFixed(0).padStart(12)}   ${s.load}`,
      );
    }
    if (b && p) {
      const rss = per(parley, p, (m) => m.rss) / per(bare, b, (m) => m.rss);
      const hp = per(parley, p, heap) / per(bare, b, heap);
      console.log(`${''.padEnd(7)}parley/bare per socket: RSS ${rss.toFixed(2)}x, heap+external ${hp.toFixed(2)}x  (target <= 1.3x): ${Math.max(rss, hp) <= 1.3 ? 'ok' : 'OVER'}\n`);
      out.push({ wanted: p.wanted, sockets: p.held, bareSockets: b.held, rssPerSocket: per(parley, p, (m) => m.rss), heapPerSocket: per(parley, p, heap), bareRssPerSocket: per(bare, b, (m) => m.rss), bareHeapPerSocket: per(bare, b, heap), rss: p.after.rss, connectsPerSecond: p.rate, rssRatio: rss, heapRatio: hp, load: p.load });
    }
  }
  for (const r of [bare, parley]) {
    if (r.failed) console.log(`${r.mode}: ${r.failed} connections failed (first: ${r.firstError})`);
    if (r.cap < Math.max(...STEPS)) console.log(`${r.mode}: the top step is cut to ${r.cap} sockets: one process may open ${r.cap + 400} files here (hard limit)`);
  }
  console.log(`baseline RSS before connecting: bare ${mb(bare.before.rss)}, parley ${mb(parley.before.rss)}`);
  if (process.env.BENCH_JSON) await writeFile(process.env.BENCH_JSON, JSON.stringify({ steps: out, baseline: { bare: bare.before.rss, parley: parley.before.rss }, cap: parley.cap }));
} finally {
  await cleanup();
}
