// Abuse floods against the built server on 127.0.0.1, while another tenant's console is timed.
// Usage: node bench/abuse/run.mjs   (needs `npx turbo run build --filter=@parley/server`)
// Options (env): BENCH_ABUSE_MODES=embedded,cluster  BENCH_ABUSE_SECONDS=10 (each idle window, and
// each flood: it floods for the whole window)  BENCH_ABUSE_REPEAT=2 (runs of each flood, each
// between two idle windows)  BENCH_ABUSE_SCENARIOS=sockets,visitors,uploads,mail
// embedded: one node on PGlite, no Redis. cluster: two nodes on PostgreSQL + a private redis-server;
// the floods hit node A (sockets alternate A and B), the other tenant's console calls node B.
// The server runs with its default limits: the bench shows what they let through.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { io } from 'socket.io-client';
import { BENCH_DIR, createDatabase, ms, percentile, sleep, startChild, startRedis } from '../lib.mjs';
import { call, closeAgents, dropAgent } from './http.mjs';
import { registerAccount, serverEntry, startServer } from './server.mjs';

const MODES = (process.env.BENCH_ABUSE_MODES ?? 'embedded,cluster').split(',').filter(Boolean);
const SECONDS = Number(process.env.BENCH_ABUSE_SECONDS ?? 10);
// Each flood runs this many times, each between two idle windows.
const REPEAT = Number(process.env.BENCH_ABUSE_REPEAT ?? 2);
const SCENARIOS = (process.env.BENCH_ABUSE_SCENARIOS ?? 'sockets,visitors,uploads,mail').split(',').filter(Boolean);
// BENCH_ABUSE_SERVER: another build's entry point (e.g. the previous commit's, to compare back to back).
const SERVER = serverEntry(process.env.BENCH_ABUSE_SERVER);
// Where the attacker runs: on this 2-core machine the flood's own client (thousands of requests
// a second) takes CPU from the servers, which no remote attacker can do. BENCH_ABUSE_PIN=split
// (needs taskset and 2+ CPUs) runs the flooding process on the last CPU and the servers, their
// Redis and the timed console on the others, idle windows measured the same way; the servers
// then have fewer CPUs, so neither layout is the real one: the default (off) shares every CPU.
const CPU_COUNT = os.cpus().length;
const HAS_TASKSET = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
const PIN = process.env.BENCH_ABUSE_PIN === 'split' && CPU_COUNT >= 2 && HAS_TASKSET;
const FLOOD_CPU = String(CPU_COUNT - 1);
const SERVER_CPUS = CPU_COUNT > 2 ? `0-${CPU_COUNT - 2}` : '0';
// Extra node flags for the servers, e.g. BENCH_ABUSE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a flood.
const NODE_ARGS = (process.env.BENCH_ABUSE_NODE_ARGS ?? '').split(' ').filter(Boolean);
// Extra server environment, e.g. BENCH_ABUSE_SERVER_ENV="WIDGET_BURST_PER_IP=10000000 WIDGET_BURST_PER_VISITOR=10000000"
// to compare with the burst buckets out of the way, back to back on the same machine.
const SERVER_ENV = Object.fromEntries(
  (process.env.BENCH_ABUSE_SERVER_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

// ---- CPU time of the servers (steadier than latency on a shared machine) -------------------

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
/** User + system CPU of these processes so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
    } catch {
      return Number.NaN;
    }
  }
  return total;
}

// ---- HTTP from a chosen 127.0.0.x source address ------------------------------------------

function multipart(fields, file) {
  const boundary = `----abuse${randomBytes(8).toString('hex')}`;
  const parts = Object.entries(fields).map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`), file, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A real PNG of about 5 MB (random pixels, stored uncompressed): just under the 5 MiB image limit. */
function bigPng(side = 1290) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = [];
  for (let y = 0; y < side; y++) rows.push(Buffer.from([0]), randomBytes(side * 3));
  const idat = zlib.deflateSync(Buffer.concat(rows), { level: 0 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Runs `task(i)` for i = 0.. with `concurrency` in flight, until `count` tasks (default: no bound) or `seconds` pass. */
async function pool(count, concurrency, seconds, task) {
  const deadline = Date.now() + seconds * 1000;
  let next = 0;
  const lane = async () => {
    while (next < count && Date.now() < deadline) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return next;
}

// ---- servers --------------------------------------------------------------------------------

const startNode = (env) =>
  startServer({ entry: SERVER, env: { ...SERVER_ENV, ...env }, nodeArgs: NODE_ARGS, cpus: PIN ? SERVER_CPUS : undefined, stdout: Boolean(process.env.BENCH_ABUSE_SERVER_STDOUT) });

// ---- scenarios ------------------------------------------------------------------------------

const SOCKETS = 200;

/**
 * Where run `run` of a flood comes from: fresh addresses for each run, so the second run meets the
 * same budgets as the first (not the ones the first spent).
 */
const source = (run, host) => `127.3.${run}.${host}`;

/** The flooder's own visitor (its token), or a clear error. */
async function floodVisitor(base, from, key) {
  const v = await call(base, 'POST', '/api/widget/visitors', { from, json: { unique_code: key } });
  if (v.status !== 201) throw new Error(`the flood's visitor was not created: ${v.status} ${JSON.stringify(v.body)}`);
  return v.body.data.visitor_token;
}

/** A widget socket of the visitor, or the refusal it got (its status, or the transport's error). */
function openSocket(base, key, token, from) {
  const s = io(base, { auth: { widget_key: key, visitor_token: token }, transports: ['websocket'], reconnection: false, forceNew: true, localAddress: from });
  return new Promise((resolve) => {
    s.once('connect', () => resolve({ socket: s }));
    s.once('connect_error', (err) => {
      s.close();
      resolve({ refused: err.data?.status ?? err.message });
    });
  });
}

/**
 * One visitor keeps 200 tabs open from one address for the whole window: each tab that got a
 * socket sends messages on it one after another; each refused tab tries its handshake again at
 * once and sends its messages over REST meanwhile (as a flooder would).
 */
async function socketsFlood({ flood, key, run }) {
  const from = source(run, 10);
  const token = await floodVisitor(flood[0], from, key);
  const deadline = Date.now() + SECONDS * 1000;
  const sockets = [];
  // Sockets live at once (the cap's measure): the server closes a socket whose events it keeps
  // refusing, and its slot then goes to another tab, so the sockets opened over the window add up to more.
  let live = 0;
  let most = 0;
  const refusal = new Map();
  let handshakes = 0;
  let pushes = 0;
  const sends = { ok: 0, limited: 0, other: 0 };
  const count = (status) => (status === 200 || status === 201 ? sends.ok++ : status === 429 ? sends.limited++ : sends.other++);
  let seq = 0;
  const tab = async (t) => {
    let socket;
    while (Date.now() < deadline) {
      if (!socket) {
        handshakes++;
        const got = await openSocket(flood[t % flood.length], key, token, from);
        if (got.socket) {
          socket = got.socket;
          most = Math.max(most, ++live);
          socket.on('disconnect', () => live--);
          socket.on('message.created', () => pushes++);
          sockets.push(socket);
          continue;
        }
        refusal.set(got.refused, (refusal.get(got.refused) ?? 0) + 1);
        const i = seq++;
        count((await call(flood[0], 'POST', '/api/widget/messages', { from, token, json: { message: `rest ${i}`, client_id: `r${i}` } })).status);
        continue;
      }
      const i = seq++;
      const ack = await socket.timeout(10_000).emitWithAck('message.send', { message: `flood ${i}`, client_id: `s${i}` }).catch(() => ({ status: 0 }));
      count(ack.ok ? 200 : ack.status);
    }
  };
  await Promise.all(Array.from({ length: SOCKETS }, (_, t) => tab(t)));
  await sleep(500);
  for (const s of sockets) s.close();
  const refused = [...refusal.values()].reduce((a, b) => a + b, 0);
  return {
    attempted: `${SOCKETS} tabs, ${handshakes} handshakes, ${sends.ok + sends.limited + sends.other} sends`,
    accepted: `${most} sockets at once (${sockets.length} over the window), ${sends.ok} messages`,
    refused: `${refused} handshakes (${[...refusal].map(([r, n]) => `${n} x ${r}`).join(', ')}), ${sends.limited} messages 429${sends.other ? `, ${sends.other} other` : ''}`,
    note: `${pushes} pushes to the flooder's sockets`,
    requests: handshakes + sends.ok + sends.limited + sends.other,
    withinLimits: most <= 3 && sends.ok <= 120,
    limits: '<= 3 sockets/visitor, <= 120 events/visitor/min',
  };
}

/** One address creates visitors as fast as it can for the whole window; each writes one message. */
async function visitorsFlood({ flood, key, run }) {
  const from = source(run, 11);
  const r = { created: 0, limited: 0, other: 0, messages: 0, calls: 0 };
  const attempts = await pool(Infinity, 20, SECONDS, async (i) => {
    const v = await call(flood[i % flood.length], 'POST', '/api/widget/visitors', { from, json: { unique_code: key, name: `Bot ${i}` } });
    r.calls++;
    if (v.status === 201) {
      r.created++;
      r.calls++;
      const m = await call(flood[i % flood.length], 'POST', '/api/widget/messages', { from, token: v.body.data.visitor_token, json: { message: 'buy now' } });
      if (m.status === 201) r.messages++;
    } else if (v.status === 429) r.limited++;
    else r.other++;
  });
  return {
    attempted: `${attempts} new visitors`,
    accepted: `${r.created} visitors, ${r.messages} chats`,
    refused: `${r.limited} 429${r.other ? `, ${r.other} other` : ''}`,
    withinLimits: r.created <= 100,
    requests: r.calls,
    limits: '<= 100 new visitors/IP/hour',
  };
}

/** One visitor posts images of about 5 MB, 4 at a time, for the whole window. */
async function uploadsFlood({ flood, key, dataDir, run }) {
  const from = source(run, 12);
  const token = await floodVisitor(flood[0], from, key);
  const png = bigPng();
  const r = { ok: 0, limited: 0, other: new Map() };
  const before = await dirBytes(path.join(dataDir, 'storage'));
  const attempts = await pool(Infinity, 4, SECONDS, async (i) => {
    const res = await call(flood[i % flood.length], 'POST', '/api/widget/messages', { from, token, form: multipart({ client_id: `u${i}` }, png) });
    if (res.status === 201) r.ok++;
    else if (res.status === 429) r.limited++;
    else r.other.set(res.status, (r.other.get(res.status) ?? 0) + 1);
  });
  const grown = (await dirBytes(path.join(dataDir, 'storage'))) - before;
  // Status 0: refused before the body was read, the connection closed under the sender.
  const other = [...r.other].map(([s, n]) => (s === 0 ? `${n} cut off mid-upload` : `${n} x ${s}`)).join(', ');
  return {
    attempted: `${attempts} uploads of ${(png.length / 1048576).toFixed(1)} MiB`,
    accepted: `${r.ok} (${(grown / 1048576).toFixed(0)} MiB stored, thumbnails included)`,
    refused: `${r.limited} 429${other ? `, ${other}` : ''}`,
    withinLimits: r.ok <= 20 && r.ok * png.length <= 40 * 1048576,
    requests: attempts,
    limits: 'default upload budget: 20 images and 40 MB per visitor and hour (UPLOADS_PER_VISITOR_HOUR, UPLOAD_MB_PER_VISITOR_HOUR)',
  };
}

/**
 * Anonymous new chats, each from its own address, with a phishing line as the visitor's name, for
 * the whole window; the emails are counted 8 s after it (the settling time before the next window).
 */
async function mailFlood({ flood, key, dataDir, run }) {
  const mailDir = path.join(dataDir, 'mail');
  const before = await countFiles(mailDir);
  const r = { chats: 0, limited: 0, other: 0, calls: 0 };
  const attempts = await pool(Infinity, 10, SECONDS, async (i) => {
    const from = `127.${3 + run}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`;
    const base = flood[i % flood.length];
    try {
      const v = await call(base, 'POST', '/api/widget/visitors', { from, json: { unique_code: key, name: 'Security team: your Parley account will be closed', email: `x${i}@example.com` } });
      r.calls++;
      if (v.status !== 201) return v.status === 429 ? r.limited++ : r.other++;
      r.calls++;
      const m = await call(base, 'POST', '/api/widget/messages', { from, token: v.body.data.visitor_token, json: { message: 'Verify at https://evil.example/login' } });
      if (m.status === 201) r.chats++;
      else if (m.status === 429) r.limited++;
      else r.other++;
    } finally {
      dropAgent(from); // each address is used once
    }
  });
  return {
    attempted: `${attempts} new chats from ${attempts} addresses`,
    accepted: `${r.chats} chats`,
    // Counted after the settling time that follows the window (the jobs send or batch the emails).
    settleMs: 8000,
    after: async () => `${(await countFiles(mailDir)) - before} emails written within 8 s of the flood`,
    refused: `${r.limited} 429${r.other ? `, ${r.other} other` : ''}`,
    withinLimits: undefined,
    requests: r.calls,
    limits: 'per-account email budget/digest (jobs) if present; new visitors per IP',
  };
}

async function countFiles(dir) {
  return existsSync(dir) ? (await readdir(dir)).length : 0;
}
async function dirBytes(dir) {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += (await stat(path.join(e.parentPath ?? e.path, e.name))).size;
  }
  return total;
}

const RUN = { sockets: socketsFlood, visitors: visitorsFlood, uploads: uploadsFlood, mail: mailFlood };

// ---- one mode ------------------------------------------------------------------------------

async function runMode(mode) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-abuse-'));
  const cleanup = [];
  try {
    let nodes;
    if (mode === 'cluster') {
      const redis = await startRedis(PIN ? { cpus: SERVER_CPUS } : {});
      cleanup.push(() => redis.stop());
      const db = await createDatabase();
      cleanup.push(() => db.drop());
      const env = { DATA_DIR: dataDir, DATABASE_URL: db.url, REDIS_URL: redis.url };
      const a = await startNode(env);
      cleanup.unshift(() => a.stop());
      const b = await startNode(env);
      cleanup.unshift(() => b.stop());
      nodes = { flood: [a.base, b.base], console: b.base, pids: [a.pid, b.pid] };
    } else {
      const a = await startNode({ DATA_DIR: dataDir });
      cleanup.unshift(() => a.stop());
      nodes = { flood: [a.base], console: a.base, pids: [a.pid] };
    }
    // Two tenants: the flooded one, and the other whose console is timed (with some conversations).
    const target = await registerAccount(nodes.flood[0], 'Flooded Shop', '127.0.0.200');
    const other = await registerAccount(nodes.console, 'Other Tenant', '127.0.0.201');
    for (let i = 0; i < 30; i++) {
      const from = `127.0.2.${i + 1}`;
      const v = await call(nodes.console, 'POST', '/api/widget/visitors', { from, json: { unique_code: other.key, name: `Customer ${i}` } });
      await call(nodes.console, 'POST', '/api/widget/messages', { from, token: v.body.data.visitor_token, json: { message: `question ${i}` } });
    }
    const victim = await startChild(path.join(BENCH_DIR, 'abuse/victim.mjs'), [nodes.console, other.token], PIN ? { shellPrefix: `taskset -pc ${SERVER_CPUS} $$ >/dev/null` } : {});
    cleanup.unshift(async () => {
      victim.child.send({ cmd: 'stop' });
      await victim.stop();
    });
    // The floods stand in for remote clients: this process (their generator) yields the CPU to
    // the servers and to the timed console, which started before at normal priority.
    try {
      os.setPriority(19);
    } catch {
      /* not allowed here: the figures then include the generator's own CPU */
    }
    // And with PIN, it runs on its own CPU (the servers and the console were started on the others).
    if (PIN) spawnSync('taskset', ['-a', '-pc', FLOOD_CPU, String(process.pid)], { stdio: 'ignore' });
    await sleep(1000); // warm-up, not counted
    // Each window also records the servers' CPU time (user + system) and its length.
    const window = async (run) => {
      const from = Date.now();
      const cpu0 = cpuMs(nodes.pids);
      const us0 = process.hrtime.bigint() / 1000n;
      const result = await run();
      const to = Date.now();
      // The window on the monotonic clock (µs), as V8's CPU profiles time their samples: slice a --cpu-prof profile with it.
      if (NODE_ARGS.some((a) => a.startsWith('--cpu-prof'))) console.log(`   [profile window ${us0}-${process.hrtime.bigint() / 1000n} us]`);
      const cpu = cpuMs(nodes.pids) - cpu0;
      return { result, during: { ...(await victim.request({ from, to })), load: os.loadavg()[0], cpu, seconds: (to - from) / 1000 } };
    };
    // Idle, then each flood REPEAT times, each followed by a settling time and another idle
    // window: every flood is compared with the idle windows on both sides of it.
    const idleWindow = async () => (await window(() => sleep(SECONDS * 1000))).during;
    const idles = [await idleWindow()];
    const rows = [];
    for (const name of SCENARIOS) {
      for (let run = 1; run <= REPEAT; run++) {
        const { result, during } = await window(() => RUN[name]({ flood: nodes.flood, key: target.key, dataDir, run }));
        await sleep(result.settleMs ?? 2000); // what the flood left to do (jobs, pushes) ends outside the windows
        if (result.after) result.accepted += `; ${await result.after()}`;
        const before = idles.at(-1);
        const after = await idleWindow();
        idles.push(after);
        rows.push({ name, run, result, during, before, after });
      }
    }
    return { mode, idles, rows };
  } finally {
    closeAgents();
    for (const f of cleanup) await f().catch((e) => console.error(`cleanup: ${e.message}`));
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A seeded generator (the intervals are the same for the same samples). */
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** p99 of a resample (with replacement) of sorted samples. */
function resampledP99(times, next) {
  const r = Array.from({ length: times.length }, () => times[Math.floor(next() * times.length)]).sort((a, b) => a - b);
  return percentile(r, 99);
}

/**
 * The ratio of the flood's p99 to the idle p99 (both idle windows' calls pooled) with a 90%
 * bootstrap interval: both sides resampled 1000 times. With few samples in a window the interval
 * is wide, and says so.
 */
function ratioWithSpread(flood, idle) {
  if (flood.length === 0 || idle.length === 0) return { ratio: Number.NaN, low: Number.NaN, high: Number.NaN };
  const next = random(flood.length * 7919 + idle.length);
  const ratios = Array.from({ length: 1000 }, () => resampledP99(flood, next) / resampledP99(idle, next)).sort((a, b) => a - b);
  return { ratio: percentile(flood, 99) / percentile(idle, 99), low: percentile(ratios, 5), high: percentile(ratios, 95) };
}

function print({ mode, idles, rows }) {
  const label = mode === 'cluster' ? 'two nodes, PostgreSQL + Redis' : 'one node, embedded PGlite';
  console.log(`\n== ${label}: the other tenant's console (GET /api/vms/user, GET /api/vms/conversations)`);
  const load = (w) => `  load ${w.load.toFixed(1)}  server CPU ${Math.round(w.cpu)} ms in ${w.seconds.toFixed(1)} s`;
  const line = (label, w) => `   ${label.padEnd(15)} n=${String(w.n).padStart(4)}  p50 ${ms(w.p50).padStart(10)}  p99 ${ms(w.p99).padStart(10)}  errors ${w.errors}${load(w)}`;
  // The other tenant's calls (and the server's own timers) cost what they cost while idle, per
  // call; what the servers spent above that during a flood is the flood's.
  const idleCalls = idles.reduce((a, w) => a + w.n, 0);
  const perVictimCall = idles.reduce((a, w) => a + w.cpu, 0) / idleCalls;
  console.log(line('idle', idles[0]));
  const summary = [];
  for (const { name, run, result, during, before, after } of rows) {
    const idleTimes = [...before.times, ...after.times].sort((a, b) => a - b);
    const { ratio, low, high } = ratioWithSpread(during.times, idleTimes);
    const verdict = high <= 2 ? 'ok' : low > 2 ? 'over 2x' : ratio <= 2 ? 'ok, but the interval reaches past 2x' : 'over 2x, but the interval reaches under 2x';
    summary.push({ name, run, ratio, low, high, n: during.n, idleN: idleTimes.length, verdict });
    console.log(`${line(`${name} #${run}`, during)}`);
    // When in the flood the other tenant waited: a burst of accepted work at the start, or throughout.
    console.log(`      slowest calls: ${during.slowest.map(([at, t]) => `${ms(t)} at +${(at / 1000).toFixed(2)} s`).join(', ')}`);
    console.log(
      `      p99 ${ratio.toFixed(2)}x the idle p99 on both sides (${ms(percentile(idleTimes, 99))}, n=${idleTimes.length}); 90% interval ${low.toFixed(2)}x-${high.toFixed(2)}x: ${verdict}`,
    );
    const within = result.withinLimits === undefined ? '' : result.withinLimits ? '  [within limits]' : '  [BEYOND LIMITS]';
    console.log(`      tried ${result.attempted}; accepted ${result.accepted}; refused ${result.refused}${result.note ? `; ${result.note}` : ''}${within}`);
    const floodCpu = during.cpu - perVictimCall * during.n;
    if (result.requests) {
      console.log(
        `      flood CPU: ${Math.round(floodCpu)} ms, ${(floodCpu / result.requests).toFixed(2)} ms per flood request (${result.requests} requests; the other tenant's ${during.n} calls at the idle windows' ${perVictimCall.toFixed(1)} ms each taken out)`,
      );
    }
    console.log(`      limits: ${result.limits}`);
    console.log(line('idle', after));
  }
  console.log(`   summary (${label}): flood p99 / idle p99 [90% interval] (victim calls in the flood window / in the idle windows)`);
  for (const r of summary) console.log(`      ${`${r.name} #${r.run}`.padEnd(13)} ${r.ratio.toFixed(2)}x [${r.low.toFixed(2)}-${r.high.toFixed(2)}] (n=${r.n} / ${r.idleN})  ${r.verdict}`);
}

if (!existsSync(SERVER)) {
  console.error('server/dist is missing: npx turbo run build --filter=@parley/server');
  process.exit(1);
}
if (process.env.BENCH_ABUSE_ONE_MODE) {
  print(await runMode(process.env.BENCH_ABUSE_ONE_MODE));
} else {
  console.log(`Abuse floods (default limits) against the built server; each flood ${SECONDS} s, ${REPEAT} runs, between idle windows of ${SECONDS} s; target: the other tenant's p99 within 2x idle, no flood beyond its limits.`);
  console.log(`(${os.cpus().length} cores; "load" is the 1-minute load average at the end of each window: the machine's other work shows there.)`);
  console.log(PIN ? `(BENCH_ABUSE_PIN=split: the flooding client on CPU ${FLOOD_CPU}; servers, Redis and the timed console on CPU ${SERVER_CPUS}; PostgreSQL on any)` : '(BENCH_ABUSE_PIN=off: every process on every CPU)');
  // One process per mode: each lowers its own priority once its servers run (a niceness cannot be raised back).
  for (const mode of MODES) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, BENCH_ABUSE_ONE_MODE: mode } });
    if (r.status !== 0) process.exitCode = 1;
  }
}
