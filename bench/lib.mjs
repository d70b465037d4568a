// Helpers shared by the load benchmarks: free ports, a private redis-server, a throwaway
// PostgreSQL database, child server processes, percentiles. Everything stays on 127.0.0.1.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, '..');
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
    s.on('error', () => resolve(false));
  });
}

/**
 * A private redis-server on a free port: the app's adapter key ('parley:io') is fixed, so a
 * private server is the only way not to share channels with anything else on the machine.
 * Stopped by its own pid.
 */
export async function startRedis({ cpus } = {}) {
  // Other processes on this machine start redis-servers on free ports too: the port may be taken
  // between the check and the start. Only a server whose INFO names our child's pid is ours.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    // `cpus` (e.g. '0'): run it on those CPUs only (taskset execs redis-server: the pid stays its own).
    const child = cpus ? spawn('taskset', ['-c', cpus, 'redis-server', ...args], { stdio: 'ignore' }) : spawn('redis-server', args, { stdio: 'ignore' });
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      await gone;
    };
    let open = false;
    for (let i = 0; i < 50 && !open && child.exitCode === null; i++) {
      open = await portOpen(port);
      if (!open) await sleep(100);
    }
    if (open && child.exitCode === null && (await redisPid(port)) === child.pid) return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop };
    await stop();
  }
  throw new Error('redis-server did not start (is redis-server installed?)');
}

/** The pid a redis-server on this port reports (INFO server), or undefined. */
async function redisPid(port) {
  return new Promise((resolve) => {
    let data = '';
    const s = net.connect(port, '127.0.0.1', () => s.write('INFO server\r\n'));
    s.on('data', (d) => {
      data += d;
      const m = /process_id:(\d+)/.exec(data);
      if (m) {
        s.destroy();
        resolve(Number(m[1]));
      }
    });
    s.on('error', () => resolve(undefined));
    setTimeout(() => (s.destroy(), resolve(undefined)), 2000).unref();
  });
}

/** A fresh database parley_bench_<rand> on the local PostgreSQL; drop() removes it. */
export async function createDatabase() {
  const name = `parley_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL} (${e.message})`);
  }
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * Starts `node script ...args` with an IPC channel; resolves with the first message it sends
 * (its port) and a stop() that ends it by pid.
 */
export function startChild(script, args = [], { env = {}, execArgv = [], shellPrefix } = {}) {
  const child = shellPrefix
    ? spawn('/bin/sh', ['-c', `${shellPrefix} && exec "${process.execPath}" ${execArgv.join(' ')} "${script}" ${args.map((a) => `"${a}"`).join(' ')}`], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, ...env },
      })
    : spawn(process.execPath, [...execArgv, script, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  const handle = {
    child,
    pid: child.pid,
    request(msg) {
      // One request at a time per child: the next message it sends is the answer.
      return new Promise((resolve, reject) => {
        const onExit = (code) => reject(new Error(`${path.basename(script)} exited with ${code}`));
        child.once('exit', onExit);
        child.once('message', (m) => {
          child.off('exit', onExit);
          if (m && m.error) reject(new Error(m.error));
          else resolve(m);
        });
        child.send(msg);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      const t = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${path.basename(script)} exited with ${code} before it was ready`)));
    child.once('message', (m) => (m && m.error ? reject(new Error(m.error)) : resolve({ ...handle, ready: m })));
  });
  return ready;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const ms = (n) => (Number.isFinite(n) ? `${n.toFixed(2)} ms` : 'n/a');

export const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
export const kb = (n) => `${(n / 1024).toFixed(2)} KB`;

/** The 1- and 5-minute load averages and the core count: printed beside figures (a shared machine skews them). */
export function loadAverage() {
  const [one, five] = os.loadavg();
  return `${one.toFixed(2)}/${five.toFixed(2)} on ${os.cpus().length} cores`;
}

/** User + system CPU time of a process so far, in ms, from /proc (0 when it is gone). */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 1/100 s (USER_HZ)
  } catch {
    return 0;
  }
}

/** CPU ms so far of several processes, by pid. */
export const cpuOf = (pids) => new Map(pids.map((pid) => [pid, cpuMs(pid)]));

/** CPU ms spent between two cpuOf() samples of the same or more pids (a pid new in `after` counts from 0). */
export function cpuSpent(before, after, pids = [...after.keys()]) {
  let total = 0;
  for (const pid of pids) total += (after.get(pid) ?? 0) - (before.get(pid) ?? 0);
  return total;
}

/** The PostgreSQL backends connected to one database (same machine: their CPU is in /proc). */
export async function backendPids(dbName) {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const { rows } = await c.query('select pid from pg_stat_activity where datname = $1', [dbName]);
    return rows.map((r) => r.pid);
  } finally {
    await c.end();
  }
}

/** Redis command counts since the last CONFIG RESETSTAT, by command, without the bench's own. */
export async function redisCommandCalls(client) {
  const info = await client.info('commandstats');
  const calls = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  for (const own of ['info', 'config|resetstat']) delete calls[own];
  return calls;
}

/**
 * What a two-node bench starts (child processes, a private Redis, a throwaway database, a data
 * folder), with `cleanup()` that stops and removes it all, also on Ctrl-C. `first` runs before
 * (e.g. closing the bench's own sockets).
 */
export function benchContext(first = () => {}) {
  const ctx = { children: [], redis: undefined, db: undefined, dataDir: undefined };
  const cleanup = async () => {
    first();
    for (const c of ctx.children) await c.stop().catch(() => {});
    await ctx.redis?.stop().catch(() => {});
    await ctx.db?.drop().catch((e) => console.error(`could not drop ${ctx.db.name}: ${e.message}`));
    if (ctx.dataDir) await rm(ctx.dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));
  return { ctx, cleanup };
}

/**
 * In a server child: answers `{ eventLoopDelay: 'read' }` over IPC with this process's event-loop
 * delay (p50/p99/max in ms) since the last read, and starts a new window (bench/polling/run.mjs).
 */
export function answerEventLoopDelay() {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  process.on('message', (m) => {
    if (m?.eventLoopDelay === undefined) return;
    process.send({ p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 });
    delay.reset();
  });
}
