// Start-up cost of one node: time from spawn to the first 200 on /healthz, and RSS once idle,
// for the embedded default (PGlite) on an empty DATA_DIR and again on the same folder (a
// restart), for PostgreSQL on a fresh database, and for bare Fastify + Socket.IO. Then the
// same start cut into its steps (imports, database open, migrations, buildApp, listen) with
// the time and RSS of each, to show where they go.
// Run: node bench/capacity/startup.mjs   (after `npm run build`; needs PostgreSQL on 127.0.0.1:5432).
// Options (env): BENCH_STARTUP_RUNS=2 starts per mode, BENCH_STARTUP_IDLE_MS=5000 wait before RSS,
// BENCH_JSON=<file> also writes the figures as JSON (bench/capacity/run.mjs reads them).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, ROOT, cpuMs, createDatabase, freePort, loadAverage as load, mb, sleep } from '../lib.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 2);
const IDLE_MS = Number(process.env.BENCH_STARTUP_IDLE_MS ?? 5000);
const SERVER = path.join(ROOT, 'server/dist/index.js');
const BARE = path.join(BENCH_DIR, 'capacity/bare.mjs');
const PHASES = path.join(BENCH_DIR, 'capacity/startup-phases.mjs');
// What issue 15 measured before this bench (time to /healthz, idle RSS).
const BEFORE = { embedded: '5-6 s, 422 MB', postgres: '1.4-1.8 s, 131 MB', bare: '0.35 s, 63 MB' };

/** VmRSS and VmHWM (peak) of a process, in bytes. */
function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function healthy(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Spawns one server, times it to /healthz, waits IDLE_MS, reads its memory, stops it. */
async function startOnce(script, env) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--disable-warning=FSTDEP023', script], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = t0 + 60_000;
    while (!(await healthy(port))) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr.slice(0, 500)}`);
      if (performance.now() > deadline) throw new Error('no /healthz within 60 s');
      await sleep(20);
    }
    const seconds = (performance.now() - t0) / 1000;
    // CPU time to /healthz: steadier than the wall clock on a loaded machine.
    const cpu = cpuMs(child.pid) / 1000;
    await sleep(IDLE_MS);
    return { seconds, cpu, ...rssOf(child.pid), load: load() };
  } finally {
    if (child.exitCode === null) {
      process.kill(child.pid, 'SIGTERM');
      const t = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
  }
}

/** The start cut into steps, in one process (startup-phases.mjs prints JSON on stdout). */
function phases(mode, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=FSTDEP023', PHASES, mode], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`startup-phases ${mode} exited with ${code}`))));
  });
}

const dirs = [];
const dbs = [];
async function cleanup() {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  for (const db of dbs) await db.drop().catch((e) => console.error(`could not drop ${db.name}: ${e.message}`));
}
process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

const tmp = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'parley-start-'));
  dirs.push(d);
  return d;
};

try {
  console.log(`Start-up: spawn -> first 200 on /healthz, then RSS after ${IDLE_MS / 1000} s idle (${RUNS} starts each; LOG_LEVEL=warn)\n`);
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const dataDir = await tmp();
    rows.push({ mode: 'embedded', label: 'embedded, empty DATA_DIR', ...(await startOnce(SERVER, { DATA_DIR: dataDir, DATABASE_URL: '' })) });
    rows.push({ mode: 'embedded-restart', label: 'embedded, restart (same DATA_DIR)', ...(await startOnce(SERVER, { DATA_DIR: dataDir, DATABASE_URL: '' })) });
    const db = await createDatabase();
    dbs.push(db);
    rows.push({ mode: 'postgres', label: 'PostgreSQL, fresh database', ...(await startOnce(SERVER, { DATA_DIR: await tmp(), DATABASE_URL: db.url })) });
    rows.push({ mode: 'bare', label: 'bare Fastify + Socket.IO', ...(await startOnce(BARE, {})) });
  }
  const head = `${'mode'.padEnd(36)}${'to /healthz'.padStart(12)}${'CPU'.padStart(9)}${'idle RSS'.padStart(11)}${'peak RSS'.padStart(11)}   load (1/5 min)`;
  console.log(head);
  console.log('-'.repeat(head.length + 6));
  for (const r of rows) console.log(`${r.label.padEnd(36)}${`${r.seconds.toFixed(2)} s`.padStart(12)}${`${r.cpu.toFixed(2)} s`.padStart(9)}${mb(r.rss).padStart(11)}${mb(r.peak).padStart(11)}   ${r.load}`);
  const best = (mode) => {
    const of = rows.filter((r) => r.mode === mode);
    return { mode, seconds: Math.min(...of.map((r) => r.seconds)), cpu: Math.min(...of.map((r) => r.cpu)), rss: Math.min(...of.map((r) => r.rss)), peak: Math.min(...of.map((r) => r.peak)), load: of.at(-1).load };
  };
  const summary = ['embedded', 'embedded-restart', 'postgres', 'bare'].map(best);
  console.log('\nBest of the starts, beside what issue 15 measured before (no numeric target: "bring them down"):');
  for (const s of summary) {
    console.log(`  ${s.mode.padEnd(17)} ${s.seconds.toFixed(2)} s (CPU ${s.cpu.toFixed(2)} s), ${mb(s.rss)} idle  (before: ${BEFORE[s.mode.replace('-restart', '')] ?? '-'}${s.mode === 'embedded-restart' ? ', first start' : ''})`);
  }

  console.log('\nWhere the time and memory go (one process, each step timed; RSS after it):');
  const db = await createDatabase();
  dbs.push(db);
  const steps = { embedded: await phases('embedded', { BENCH_DATA_DIR: await tmp() }), postgres: await phases('postgres', { BENCH_DATA_DIR: await tmp(), BENCH_DB_URL: db.url }) };
  for (const [mode, list] of Object.entries(steps)) {
    console.log(`  ${mode}:`);
    for (const s of list) console.log(`    ${s.step.padEnd(48)}${`${s.ms.toFixed(0)} ms`.padStart(9)}${`CPU ${s.cpuMs.toFixed(0)} ms`.padStart(14)}${`RSS ${mb(s.rss)}`.padStart(14)}${`heap ${mb(s.heap)}`.padStart(14)}`);
  }
  console.log(`\nload average at the end: ${load()}`);
  if (process.env.BENCH_JSON) await writeFile(process.env.BENCH_JSON, JSON.stringify({ rows, summary, steps }));
} finally {
  await cleanup();
}
