/** Test support for the jobs area: a real SMTP server (smtp-server) and apps with jobs settings. */
import fs from 'node:fs/promises';
import { afterAll, afterEach, beforeAll } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { createClient } from 'redis';
import { buildApp } from '../app.js';
import { openPglite, openPostgres, rowsOf, type Database } from '../db/client.js';
import { TEST_DB, TEST_REDIS_URL, TEST_SECRETS_KEY, createPgDatabase, testConfig } from './harness.js';
import type { JobsConfig } from '../config.js';
import { removeTempDir } from './tempDir.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Record<string, string>;
  text: string;
  html: string;
}

function decodePart(body: string, encoding: string): string {
  if (/quoted-printable/i.test(encoding)) {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

function parseHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return headers;
}

/** Just enough MIME for our own emails: headers, and the text/plain and text/html parts decoded. */
export function parseMail(raw: string): Omit<ReceivedMail, 'from' | 'to'> {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = parseHeaders(raw.slice(0, split));
  const out = { headers, text: '', html: '' };
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1) : [raw];
  for (const part of parts) {
    const at = part.search(/\r?\n\r?\n/);
    const h = parseHeaders(part.slice(0, at));
    const body = decodePart(part.slice(at).replace(/^\r?\n\r?\n/, '').replace(/\r?\n$/, ''), h['content-transfer-encoding'] ?? '');
    if (/text\/plain/i.test(h['content-type'] ?? '')) out.text = body;
    if (/text\/html/i.test(h['content-type'] ?? '')) out.html = body;
  }
  return out;
}

/** Decodes an RFC 2047 header (nodemailer encodes non-ASCII subjects). */
export function decodeHeader(v: string): string {
  return v.replace(/=\?utf-8\?([BQ])\?([^?]*)\?=\s*/gi, (_m, enc: string, data: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodePart(data.replace(/_/g, ' '), 'quoted-printable'),
  );
}

export interface TestSmtp {
  url: string;
  mails: ReceivedMail[];
  /** Refuse the next n messages with a temporary error (451), then accept. */
  failNext(n: number): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = Object.assign(new Error('Try again later'), { responseCode: 451 });
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push({ from, to: session.envelope.rcptTo.map((r) => r.address), ...parseMail(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    failNext(n) {
      failures = n;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} emails, got ${mails.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type RunnerKind = 'in-process' | 'bullmq';

/** A database that can be reopened by a second app (the restart test): PostgreSQL url or PGlite dir. */
export interface ReopenableDb {
  open(): Promise<Database>;
  drop(): Promise<void>;
  /** The environment that makes a server process use this database. */
  env: Record<string, string>;
}

export async function reopenableDb(): Promise<ReopenableDb> {
  if (TEST_DB === 'postgres') {
    const created = await createPgDatabase();
    return { open: () => openPostgres(created.url), drop: created.drop, env: { DATABASE_URL: created.url } };
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-jobs-pg-'));
  return { open: () => openPglite(dir), drop: () => removeTempDir(dir), env: { DATA_DIR: dir } };
}

export interface JobsTestApp {
  app: FastifyInstance;
  database: Database;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The real app with test jobs settings (fast polling and retries, plus `jobs`), on a given
 * database or a fresh one, with the chosen runner.
 */
export async function buildJobsApp(opts: {
  runner: RunnerKind;
  smtpUrl?: string | undefined;
  jobs?: Partial<JobsConfig>;
  db?: ReopenableDb;
  env?: Record<string, string>;
}): Promise<JobsTestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-jobs-'));
  const owned = opts.db ? undefined : await reopenableDb();
  const database = await (opts.db ?? owned)!.open();
  await database.migrate();
  const base = testConfig(dataDir, {
    ...(opts.smtpUrl ? { SMTP_URL: opts.smtpUrl } : {}),
    ...(opts.runner === 'bullmq' ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...opts.env,
  });

  const jobs: JobsConfig = { ...base.jobs, pollMs: 50, backoffMs: 100, ...opts.jobs };
  const app = await buildApp({ config: { ...base, jobs }, database, logger: false });
  await app.ready();
  return {
    app,
    database,
    dataDir,
    async close() {
      await app.close();
      await database.close();
      await owned?.drop();
      // A private redis-server (env REDIS_URL) goes with its test.
      if (opts.runner === 'bullmq' && jobs.queuePrefix && !opts.env?.REDIS_URL) await dropRedisPrefix(jobs.queuePrefix);
      await removeTempDir(dataDir);
    },
  };
}

/** Removes a test's BullMQ keys (failed jobs are kept by design, so they would stay forever). */
async function dropRedisPrefix(prefix: string): Promise<void> {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  try {
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length > 0) await client.del(keys);
  } finally {
    await client.quit();
  }
}

/** A unique BullMQ key prefix, so tests never see each other's jobs in the shared Redis. */
export const uniquePrefix = () => `parley-test-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lifecycle the jobs suites share, registered in the calling describe (or file): one SMTP
 * server for the suite; after each test the test's app (`s.t`) is closed, the mailbox emptied
 * and SMTP failures reset.
 */
export function jobsSuite(): { smtp: TestSmtp; t: JobsTestApp | undefined } {
  const s = { t: undefined } as { smtp: TestSmtp; t: JobsTestApp | undefined };
  beforeAll(async () => {
    s.smtp = await startSmtp();
  });
  afterAll(async () => {
    await s.smtp.close();
  });
  afterEach(async () => {
    await s.t?.close();
    s.t = undefined;
    s.smtp.mails.length = 0;
    s.smtp.failNext(0);
  });
  return s;
}

/**
 * One SMTP server and one jobs app for the whole file (each test makes its own accounts); the
 * mailbox is emptied after each test. `s.app` is the shared app once the suite has started.
 */
export function sharedJobsApp(opts: Omit<Parameters<typeof buildJobsApp>[0], 'smtpUrl'>): { smtp: TestSmtp; app: JobsTestApp['app'] } {
  const s = {} as { smtp: TestSmtp; app: JobsTestApp['app']; t: JobsTestApp };
  beforeAll(async () => {
    s.smtp = await startSmtp();
    s.t = await buildJobsApp({ ...opts, smtpUrl: s.smtp.url });
    s.app = s.t.app;
  }, 120_000);
  afterAll(async () => {
    await s.t?.close();
    await s.smtp?.close();
  });
  afterEach(() => {
    s.smtp.mails.length = 0;
  });
  return s;
}

/** A redis-server of the test's own on a free port, so it can be killed and restarted (never the shared one). */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  /** SIGKILL: what a crash or an orchestrator's restart does; without persistence every key is gone. */
  kill(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const { spawn } = await import('node:child_process');
  const net = await import('node:net');
  const { freePort } = await import('./sockets.js');
  const port = await freePort();
  let child: import('node:child_process').ChildProcess | undefined;
  const answers = () =>
    new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        if (await answers()) return;
        await sleep(50);
      }
      throw new Error('redis-server did not start (is redis-server installed?)');
    },
    async kill() {
      if (!child || child.exitCode !== null) return;
      const gone = new Promise((r) => child?.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    },
  };
  await redis.start();
  return redis;
}

/**
 * A real server process (`server/index.ts` under tsx, no build needed) that a test can kill -9:
 * nothing of it survives, as in a crash (an in-process app would keep its timers and queued
 * Redis commands).
 */
export interface ServerProcess {
  base: string;
  kill(): Promise<void>;
  output(): string;
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const { spawn } = await import('node:child_process');
  const { REPO_ROOT } = await import('../paths.js');
  const { freePort } = await import('./sockets.js');
  const port = await freePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-proc-'));
  // tsx resolves @parley/shared to its sources, as vitest does (its package points at dist/).
  const tsconfig = path.join(dir, 'tsconfig.json');
  await fs.writeFile(
    tsconfig,
    JSON.stringify({
      extends: path.join(REPO_ROOT, 'server/tsconfig.json'),
      compilerOptions: { baseUrl: path.join(REPO_ROOT, 'server'), paths: { '@parley/shared': [path.join(REPO_ROOT, 'shared/src/index.ts')] } },
    }),
  );
  let out = '';
  // node itself with tsx's loader (not the tsx command, which runs the server in a second process a kill -9 would orphan).
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'server/index.ts')], {
    cwd: REPO_ROOT,
    env: {
      TSX_TSCONFIG_PATH: tsconfig,
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'warn',
      LOGIN_LIMIT_PER_IP: '100000',
      LOGIN_LIMIT_PER_EMAIL: '100000',
      REGISTER_LIMIT_PER_IP: '100000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', r));
  const base = `http://127.0.0.1:${port}`;
  const proc: ServerProcess = {
    base,
    output: () => out,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      await removeTempDir(dir);
    },
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
    if (ok) return proc;
    await sleep(250);
  }
  await proc.kill();
  throw new Error(`server process did not become ready:\n${out}`);
}

/**
 * Waits (bounded) until no job of this name is left to run in the in-process runner: none in
 * the outbox (where the write that causes it records it) nor pending or running in the queue.
 */
export async function settleJobs(app: FastifyInstance, name: string, ms = 10_000): Promise<void> {
  await app.events.drain();
  const until = Date.now() + ms;
  const pending = async () => {
    const rows = await app.database.db.execute(sql`
      select 1 from outbox where name = ${name} and status in ('pending', 'relayed')
      union all select 1 from jobs where name = ${name} and status in ('pending', 'running') limit 1`);
    return rowsOf(rows).length > 0;
  };
  while (Date.now() < until && (await pending())) await sleep(25);
}
