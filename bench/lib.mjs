// Helpers shared by the load benchmarks: free ports, a private redis-server, a throwaway
// PostgreSQL database, child server processes, percentiles. Everything stays on 127.0.0.1.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
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
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  // `cpus` (e.g. '0'): run it on those CPUs only (taskset execs redis-server: the pid stays its own).
  const child = cpus ? spawn('taskset', ['-c', cpus, 'redis-server', ...args], { stdio: 'ignore' }) : spawn('redis-server', args, { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    if (await portOpen(port)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        async stop() {
          if (child.exitCode !== null) return;
          const gone = new Promise((r) => child.once('exit', r));
          process.kill(child.pid, 'SIGTERM');
          await gone;
        },
      };
    }
    await sleep(100);
  }
  process.kill(child.pid, 'SIGKILL');
  throw new Error('redis-server did not start (is redis-server installed?)');
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
