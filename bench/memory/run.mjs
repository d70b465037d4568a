// Memory per idle widget connection on one node, beside a bare Socket.IO server measured the
// same way in the same run. The connections come from a separate process; the server runs
// with --expose-gc and is measured after full collections, before and after connecting.
// Run: node bench/memory/run.mjs   (after `npx turbo run build --filter=@parley/server`;
// needs PostgreSQL on 127.0.0.1:5432). Option: BENCH_CONNECTIONS=10000.
// Target: Parley <= 1.3x bare per connection.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, createDatabase, sleep, startChild, benchContext } from '../lib.mjs';
import { parleyAuths } from './auths.mjs';

const WANTED = Number(process.env.BENCH_CONNECTIONS ?? 10_000);
const WARM = 200;
const FD_LIMIT = 65_536;
// Each side needs one descriptor per connection: raise the soft limit (and, as root, the hard one).
const ULIMIT = `ulimit -n ${FD_LIMIT} 2>/dev/null || ulimit -n $(ulimit -Hn)`;
const serverScript = path.join(BENCH_DIR, 'memory/server.mjs');
const clientScript = path.join(BENCH_DIR, 'memory/clients.mjs');

const { ctx, cleanup } = benchContext();

async function measureSystem(mode, wanted) {
  const env = { BENCH_DB_URL: ctx.db?.url ?? '', BENCH_DATA_DIR: ctx.dataDir };
  const server = await startChild(serverScript, [mode], { env, execArgv: ['--expose-gc', '--disable-warning=FSTDEP023'], shellPrefix: ULIMIT });
  ctx.children.push(server);
  const clients = await startChild(clientScript, [], { shellPrefix: ULIMIT });
  ctx.children.push(clients);
  try {
    const limit = Math.min(server.ready.fdLimit, clients.ready.fdLimit);
    const count = Math.min(wanted, limit - 500);
    const url = `http://127.0.0.1:${server.ready.port}`;
    const auths = mode === 'parley' ? await parleyAuths(url, ctx.db.url, count) : Array.from({ length: count }, () => ({}));
    // Warm-up: code paths compiled, pools and buffers allocated, before the baseline.
    const warm = await clients.request({ cmd: 'connect', url, auths: auths.slice(0, WARM) });
    if (warm.failed) throw new Error(`${mode}: warm-up connections failed: ${warm.firstError}`);
    await clients.request({ cmd: 'close' });
    await sleep(1500);
    const before = await server.request({ cmd: 'measure' });
    const t0 = Date.now();
    const got = await clients.request({ cmd: 'connect', url, auths });
    const connectSeconds = (Date.now() - t0) / 1000;
    await sleep(3000); // connect-time work (presence pushes, last-seen writes) settles
    const after = await server.request({ cmd: 'measure' });
    await clients.request({ cmd: 'close' });
    return { mode, limit, count, got, connectSeconds, before, after };
  } finally {
    await clients.stop();
    await server.stop();
  }
}

try {
  ctx.db = await createDatabase();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-bench-'));
  console.log(`Memory per idle widget connection: one node, ${WANTED} websocket connections from a separate process,`);
  console.log(`server measured after global.gc() before and after (PostgreSQL database ${ctx.db.name}, dropped after)\n`);
  const bare = await measureSystem('bare', WANTED);
  const parley = await measureSystem('parley', WANTED);
  const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
  const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
  const per = (r, k) => (r.after[k] - r.before[k]) / r.got.connected;
  const heap = (m) => m.heapUsed + m.external;
  const head = `${'system'.padEnd(8)}${'connected'.padStart(10)}${'RSS before'.padStart(12)}${'RSS after'.padStart(12)}${'RSS/conn'.padStart(11)}${'heap+ext/conn'.padStart(15)}${'connect time'.padStart(14)}`;
  console.log(head);
  console.log('-'.repeat(head.length));
  for (const r of [bare, parley]) {
    const h = (heap(r.after) - heap(r.before)) / r.got.connected;
    console.log(
      `${r.mode.padEnd(8)}${String(r.got.connected).padStart(10)}${mb(r.before.rss).padStart(12)}${mb(r.after.rss).padStart(12)}${kb(per(r, 'rss')).padStart(11)}${kb(h).padStart(15)}${`${r.connectSeconds.toFixed(1)} s`.padStart(14)}`,
    );
    if (r.got.failed) console.log(`        ${r.got.failed} connections failed: ${r.got.firstError}`);
    if (r.count < WANTED) console.log(`        only ${r.count} attempted: the open-file limit here is ${r.limit}`);
    if (r.after.sockets !== r.got.connected) console.log(`        server counted ${r.after.sockets} sockets`);
  }
  const ratioRss = per(parley, 'rss') / per(bare, 'rss');
  const ratioHeap = (heap(parley.after) - heap(parley.before)) / parley.got.connected / ((heap(bare.after) - heap(bare.before)) / bare.got.connected);
  console.log(`\nparley/bare per connection: RSS ${ratioRss.toFixed(2)}x, heap+external ${ratioHeap.toFixed(2)}x  (target <= 1.3x): ${ratioRss <= 1.3 ? 'ok' : 'OVER'}`);
} finally {
  await cleanup();
}
