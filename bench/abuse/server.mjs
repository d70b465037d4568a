// The built server as the abuse benches run it (run.mjs, refusals.mjs, chatcost.mjs): one
// process on 127.0.0.1, and an account registered on it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ROOT, freePort, sleep } from '../lib.mjs';
import { call } from './http.mjs';

/** The built server's entry point, or another build's (e.g. the previous commit's, to compare back to back). */
export const serverEntry = (override) => (override ? path.resolve(override) : path.join(ROOT, 'server/dist/index.js'));

/**
 * Starts `node [nodeArgs] entry` with `env` (LOG_LEVEL error unless given) and resolves once
 * /readyz answers 200: { base, pid, stop() }. `cpus` runs it on those CPUs only (taskset);
 * `stdout` shows its standard output.
 */
export async function startServer({ entry = serverEntry(), env = {}, nodeArgs = [], cpus, stdout = false } = {}) {
  const port = await freePort();
  const args = ['--disable-warning=FSTDEP023', ...nodeArgs, entry];
  const child = spawn(cpus ? 'taskset' : process.execPath, cpus ? ['-c', cpus, process.execPath, ...args] : args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', stdout ? 'inherit' : 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  // Start-up (PGlite's first run, migrations) takes seconds on a quiet machine, minutes on a loaded one.
  for (const deadline = Date.now() + 300_000; Date.now() < deadline && child.exitCode === null; ) {
    if ((await call(base, 'GET', '/readyz')).status === 200) {
      return {
        base,
        pid: child.pid,
        async stop() {
          if (child.exitCode !== null) return;
          const gone = new Promise((r) => child.once('exit', r));
          process.kill(child.pid, 'SIGTERM');
          const t = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 10_000);
          await gone;
          clearTimeout(t);
        },
      };
    }
    await sleep(200);
  }
  if (child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  throw new Error('the server did not become ready');
}

/** Registers an account (from the address `from`): its owner's token and its widget key. */
export async function registerAccount(base, name, from = '127.0.0.1') {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(3).toString('hex')}@example.com`;
  const password = 'Sup3r-secret!';
  const res = await call(base, 'POST', '/api/vms/register', { from, json: { name, email, password, password_confirmation: password } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const settings = await call(base, 'GET', '/api/vms/integration', { token: res.body.token, from });
  const key = /data-widget="([^"]+)"/.exec(settings.body?.script ?? '')?.[1];
  if (!key) throw new Error(`no widget key in ${JSON.stringify(settings.body)}`);
  return { token: res.body.token, key };
}
