import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../paths.js';
import { freePort } from './sockets.js';
import { removeTempDir } from './tempDir.js';

/**
 * The README's contract: `npm start` with nothing configured serves Parley on the embedded
 * database, and the data survives a restart. Runs the real command, as a new user would.
 */

const children: ChildProcess[] = [];

function start(port: number, dataDir: string): { child: ChildProcess; output: () => string } {
  let out = '';
  // Only the variables a new user would have: no DATABASE_URL, no REDIS_URL.
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), PORT: String(port), DATA_DIR: dataDir, TURBO_TELEMETRY_DISABLED: '1' };
  const child = spawn('npm', ['start'], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  children.push(child);
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise((r) => child.once('exit', r));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      /* already gone */
    }
  };
  killGroup('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) {
    killGroup('SIGKILL');
    await exited;
  }
}

async function waitReady(base: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`server did not become ready:\n${output()}`);
}

afterAll(async () => {
  await Promise.all(children.map(stop));
});

describe('npm start (README)', () => {
  it('serves the console, the API and the widget on the embedded database, and keeps data across a restart', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-start-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = start(port, dataDir);
    await waitReady(base, first.output);

    const password = 'Start-test-1';
    const reg = await fetch(`${base}/api/vms/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nina New', email: 'nina@example.com', password, password_confirmation: password }),
    });
    expect(reg.status).toBe(201);
    const { token } = (await reg.json()) as { token: string };
    const me = await fetch(`${base}/api/vms/user`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { email: string }).email).toBe('nina@example.com');

    const html = await fetch(`${base}/dashboard`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('<div id="root">');
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(html.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    const widget = await fetch(`${base}/widget.js`);
    expect(widget.status).toBe(200);
    expect(widget.headers.get('content-type')).toContain('javascript');
    const openapi = (await (await fetch(`${base}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toContain('/api/vms/register');

    await stop(first.child);
    const files = await fs.readdir(dataDir);
    expect(files).toContain('pgdata');

    const second = start(port, dataDir);
    await waitReady(base, second.output);
    const login = await fetch(`${base}/api/vms/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nina@example.com', password }),
    });
    expect(login.status).toBe(200);
    await stop(second.child);
    await removeTempDir(dataDir);
  }, 400_000);
});

describe('npm run migrate (README)', () => {
  it('applies the migrations to the embedded database alone, and again as a no-op', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-migrate-'));
    const run = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        let out = '';
        const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir(), DATA_DIR: dataDir, TURBO_TELEMETRY_DISABLED: '1' };
        const child = spawn('npm', ['run', 'migrate'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const first = await run();
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('Migrations applied (pglite)');
    expect((await run()).code).toBe(0);
    await removeTempDir(dataDir);
  }, 300_000);
});
