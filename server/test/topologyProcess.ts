import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';
import { RELAXED_WIDGET_LIMITS, TEST_SECRETS_KEY } from './harness.js';
import { freePort } from './sockets.js';
import { removeTempDir } from './tempDir.js';

/**
 * Parley nodes as real processes (server/index.ts, its signal handling included), for the
 * drain, failover and topology tests: each can be sent SIGTERM (drain) or SIGKILL.
 */
export interface NodeProcess {
  port: number;
  /** http://127.0.0.1:port */
  base: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL if still running; removes its private folder. */
  kill(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let tsconfigPath: Promise<string> | undefined;
/** tsx resolves @parley/shared to its sources, as vitest does (its package points at dist/). */
function tsconfig(): Promise<string> {
  tsconfigPath ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-tsx-'));
    const file = path.join(dir, 'tsconfig.json');
    await fs.writeFile(
      file,
      JSON.stringify({
        extends: path.join(REPO_ROOT, 'server/tsconfig.json'),
        compilerOptions: { baseUrl: path.join(REPO_ROOT, 'server'), paths: { '@parley/shared': [path.join(REPO_ROOT, 'shared/src/index.ts')] } },
      }),
    );
    return file;
  })();
  return tsconfigPath;
}

/**
 * Starts a node (node with tsx's loader running server/index.ts: one process, so a signal
 * reaches the server itself) and waits for /readyz. `dataDir` defaults to a private folder
 * (PGlite lives there when no DATABASE_URL is given).
 */
export async function startNodeProcess(env: Record<string, string>, opts: { port?: number; dataDir?: string } = {}): Promise<NodeProcess> {
  const port = opts.port ?? (await freePort());
  const own = opts.dataDir ? undefined : await fs.mkdtemp(path.join(os.tmpdir(), 'parley-node-'));
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'server/index.ts')], {
    cwd: REPO_ROOT,
    env: {
      TSX_TSCONFIG_PATH: await tsconfig(),
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: (opts.dataDir ?? own) as string,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'warn',
      LOGIN_LIMIT_PER_IP: '100000',
      LOGIN_LIMIT_PER_EMAIL: '100000',
      REGISTER_LIMIT_PER_IP: '100000',
      ...RELAXED_WIDGET_LIMITS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const base = `http://127.0.0.1:${port}`;
  const proc: NodeProcess = {
    port,
    base,
    child,
    output: () => out,
    exited,
    signal: (sig) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    },
    async kill() {
      proc.signal('SIGKILL');
      await exited;
      if (own) await removeTempDir(own);
    },
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return proc;
    await sleep(200);
  }
  await proc.kill();
  throw new Error(`node process did not become ready:\n${out}`);
}

/** A business registered over HTTP: the owner's token and the widget key (from the integration snippet). */
export async function registerOverHttp(base: string, tag: string): Promise<{ token: string; widgetKey: string; userId: number }> {
  const password = 'Sup3r-secret!';
  const reg = await fetch(`${base}/api/vms/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Olivia Owner', email: `owner-${tag}-${Date.now()}@example.com`, password, password_confirmation: password }),
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`);
  const { token, user } = (await reg.json()) as { token: string; user: { id: number } };
  const snippet = (await (await fetch(`${base}/api/vms/integration`, { headers: { authorization: `Bearer ${token}` } })).json()) as { script: string };
  const widgetKey = /data-widget="([^"]+)"/.exec(snippet.script)?.[1];
  if (!widgetKey) throw new Error(`no widget key in ${snippet.script}`);
  return { token, widgetKey, userId: user.id };
}

/** A visitor created over HTTP. */
export async function visitorOverHttp(base: string, widgetKey: string, name: string): Promise<{ id: string; token: string }> {
  const res = await fetch(`${base}/api/widget/visitors`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ unique_code: widgetKey, name }),
  });
  if (res.status !== 201) throw new Error(`visitor: ${res.status} ${await res.text()}`);
  const { data } = (await res.json()) as { data: { visitor_id: string; visitor_token: string } };
  return { id: data.visitor_id, token: data.visitor_token };
}

export interface Nginx {
  port: number;
  base: string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx (/usr/sbin/nginx) with the repository's docker/nginx.conf, as docker-compose.yml
 * mounts it: only the addresses are templated (the upstream servers become the given local
 * ports, `listen 80` a free local port). Runs unprivileged in the foreground with its files in
 * a private folder.
 */
export async function startNginx(upstreamPorts: number[], listenPort?: number): Promise<Nginx> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-nginx-'));
  const port = listenPort ?? (await freePort());
  let site = await fs.readFile(path.join(REPO_ROOT, 'docker/nginx.conf'), 'utf8');
  const upstreams = [...site.matchAll(/^\s*server\s+[\w.-]+:\d+;/gm)];
  if (upstreams.length !== upstreamPorts.length) throw new Error(`docker/nginx.conf has ${upstreams.length} upstream servers, the test starts ${upstreamPorts.length}`);
  let i = 0;
  site = site.replace(/^(\s*)server\s+[\w.-]+:\d+;/gm, (_m, indent: string) => `${indent}server 127.0.0.1:${upstreamPorts[i++]};`);
  if (!/^\s*listen 80;/m.test(site)) throw new Error('docker/nginx.conf no longer listens on port 80');
  site = site.replace(/^(\s*)listen 80;/m, `$1listen 127.0.0.1:${port};`);
  await fs.writeFile(path.join(dir, 'site.conf'), site);
  const temp = (name: string) => path.join(dir, name);
  await fs.writeFile(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${temp('nginx.pid')};`,
      `error_log ${temp('error.log')} warn;`,
      'events { worker_connections 4096; }',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${temp('body')};`,
      `  proxy_temp_path ${temp('proxy')};`,
      `  fastcgi_temp_path ${temp('fastcgi')};`,
      `  uwsgi_temp_path ${temp('uwsgi')};`,
      `  scgi_temp_path ${temp('scgi')};`,
      `  include ${temp('site.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  let out = '';
  const child = spawn('/usr/sbin/nginx', ['-p', dir, '-e', temp('error.log'), '-c', temp('nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', r));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await removeTempDir(dir);
  };
  for (let t = 0; t < 100; t++) {
    if (child.exitCode !== null) break;
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return { port, base, stop };
    await sleep(100);
  }
  const log = await fs.readFile(temp('error.log'), 'utf8').catch(() => '');
  await stop();
  throw new Error(`nginx did not start: ${out}\n${log}`);
}
