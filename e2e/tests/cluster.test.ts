import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { closeBrowser, newSession, visible } from '../support/browser';

/**
 * Journey 11: two Parley nodes on PostgreSQL and Redis; node A is killed outright after storing
 * messages whose pushes never left it. Node B notices A's silence and tells its clients to
 * resync: the console and the widget, both on B, then show those messages without a reload,
 * although newer messages had already arrived live (so "since the last id" cannot find them).
 * Needs the local PostgreSQL (127.0.0.1:5432) and redis-server on the PATH, like the server suite.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PG_ADMIN_URL = process.env.PARLEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PASSWORD = 'Sup3r-Secret!';

const children: ChildProcess[] = [];
let dbName: string | undefined;
let tmp: string | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`this journey needs PostgreSQL at ${PG_ADMIN_URL} (start it: pg_ctlcluster <version> main start): ${err}`);
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function startRedis(): Promise<string> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  children.push(child);
  child.on('error', () => {});
  await until(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.end();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
    'redis-server (is it installed?)',
    10_000,
  );
  return `redis://127.0.0.1:${port}`;
}

/** A node as production starts it: `node server/dist/index.js`, here on PostgreSQL and Redis. */
async function startNode(env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const nodeEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  for (const k of ['SMTP_URL', 'PUBLIC_URL', 'PAYSTACK_SECRET_KEY', 'LLM_BASE_URL', 'NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete nodeEnv[k];
  const log = fs.openSync(path.join(tmp!, `node-${port}.log`), 'a');
  const child = spawn(process.execPath, ['server/dist/index.js'], { cwd: REPO, env: nodeEnv, stdio: ['ignore', log, log] });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  // A first start migrates the new database: give a loaded machine time, and say what the node said.
  await until(async () => child.exitCode === null && (await fetch(`${base}/readyz`)).ok, `node on ${base} to be ready`, 90_000).catch((err: Error) => {
    throw new Error(`${err.message} (exit ${child.exitCode ?? child.signalCode ?? 'none'}); its log:\n${fs.readFileSync(path.join(tmp!, `node-${port}.log`), 'utf8').slice(-3000)}`);
  });
  return { base, child };
}

async function api<T>(base: string, method: string, url: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(base + url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

afterAll(async () => {
  await closeBrowser();
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (dbName) await adminQuery(`drop database if exists ${dbName} with (force)`).catch(() => {});
  if (tmp && !process.env.E2E_KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('two nodes, one killed (journey 11)', () => {
  it('messages a killed node stored but never pushed reach the console and the widget on the other node, without a reload', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-cluster-'));
    dbName = `parley_e2e_cluster_${process.pid}_${Date.now()}`;
    await adminQuery(`create database ${dbName}`);
    const databaseUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: await startRedis(),
      DATA_DIR: path.join(tmp, 'data'),
      LOGIN_LIMIT_PER_IP: '1000',
      REGISTER_LIMIT_PER_IP: '1000',
    };
    const A = await startNode(env);
    const B = await startNode(env);

    const email = `cluster-${Date.now()}@example.com`;
    const owner = await api<{ token: string; user: { id: number; account_id: string } }>(B.base, 'POST', '/api/vms/register', undefined, {
      name: 'Cleo Cluster',
      email,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    const { script } = await api<{ script: string }>(B.base, 'GET', '/api/vms/integration', owner.token);
    fs.writeFileSync(
      path.join(inject('hostDir'), 'cluster.html'),
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Cluster shop</title></head><body><h1>Cluster shop</h1>\n` +
        `<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)};Parley('identify',{name:'Kim Visitor'})</script>\n${script}\n</body></html>\n`,
    );

    // The visitor opens the chat on the shop (its widget talks to node B) and says hello.
    const shop = await newSession();
    await shop.page.goto(`${inject('hostUrl')}/cluster.html`);
    await shop.page.getByRole('button', { name: 'Open chat' }).click();
    const panel = shop.page.getByRole('dialog');
    const input = panel.getByRole('textbox', { name: 'Type a message' });
    await visible(input, 15_000);
    await input.fill('Hello from the shop');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    await visible(panel.getByText('Hello from the shop'));

    // The owner's console on node B, that conversation open, live.
    const consoleSession = await newSession();
    const { page } = consoleSession;
    await page.goto(`${B.base}/login`);
    await page.evaluate((t) => localStorage.setItem('auth_token', t), owner.token);
    await page.goto(`${B.base}/conversations`);
    await visible(page.getByText('Live: new messages appear as they arrive'));
    await page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /Kim Visitor/ }).click();
    const log = page.getByRole('region', { name: 'Chat with Kim Visitor' }).getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Hello from the shop'));

    // Node A stores two messages and dies before publishing them: written here straight into the
    // database, as A's commit would have, with no push.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: number }>('select id from conversations where account_id = $1', [owner.user.account_id]);
      const conversationId = rows[0]!.id;
      await db.query(
        `insert into messages (account_id, conversation_id, sender_type, author_id, message) values
         ($1, $2, 'visitor', null, 'Stored on node A, never pushed (visitor)'),
         ($1, $2, 'user', $3, 'Stored on node A, never pushed (agent)')`,
        [owner.user.account_id, conversationId, owner.user.id],
      );
    } finally {
      await db.end();
    }

    // Newer messages then arrive live on both sides.
    await input.fill('Are you there?');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();
    await visible(log.getByText('Are you there?'));
    const visitorId = (await api<{ data: { visitor_id: string }[] }>(B.base, 'GET', '/api/vms/conversations', owner.token)).data[0]!.visitor_id;
    await api(B.base, 'POST', '/api/vms/messages', owner.token, { visitor_id: visitorId, message: 'Yes, right here' });
    await visible(panel.getByText('Yes, right here'));

    // The console's 10 s poll asks with the commit-safe cursor (issue 11, finding 9): it finds what
    // committed since its last answer, pushed or not, although newer ids are already on screen.
    await visible(log.getByText('Stored on node A, never pushed (visitor)'), 15_000);
    await visible(log.getByText('Stored on node A, never pushed (agent)'), 15_000);
    // The widget does not poll while its socket is live: only a push brings them there.
    expect(await panel.getByText('Stored on node A, never pushed (agent)').count()).toBe(0);

    const navigations: string[] = [];
    for (const p of [page, shop.page]) p.on('framenavigated', (f) => f === p.mainFrame() && navigations.push(f.url()));
    A.child.kill('SIGKILL');
    // What A's commit also wrote (issue 15, instant failover): a push_outbox row per message,
    // naming the node that stored it. That node is gone: B pushes them within a second, and the
    // widget gets them live, with no reload.
    const db2 = new pg.Client({ connectionString: databaseUrl });
    await db2.connect();
    try {
      await db2.query(`insert into push_outbox (message_id, node) select id, 'node-a' from messages where message like 'Stored on node A, never pushed%'`);
    } finally {
      await db2.end();
    }
    const t0 = Date.now();
    await visible(panel.getByText('Stored on node A, never pushed (agent)'), 15_000);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(navigations).toEqual([]);
    expect(consoleSession.pageErrors).toEqual([]);
    expect(shop.pageErrors).toEqual([]);
  }, 240_000);
});
