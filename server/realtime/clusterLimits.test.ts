import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS } from '@parley/shared';
import { buildApp } from '../app.js';
import { openPglite, openPostgres, type Database } from '../db/client.js';
import { TOO_MANY_CONNECTIONS } from '../services/rateLimit.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, type TestOwner } from '../test/factories.js';
import { TEST_DB, createPgDatabase, testConfig, uniqueRateLimitPrefix } from '../test/harness.js';
import { connected, emitAck, freePort, listen } from '../test/sockets.js';

/**
 * Two app instances on one database and one private redis-server: the widget's socket caps and
 * rate limits are counted once for both (a visitor cannot multiply its budget by nodes).
 */

let redis: ChildProcess | undefined;
let database: Database;
let dropDb = async () => {};
let dataDir: string;
const apps: FastifyInstance[] = [];
const bases: string[] = [];
const sockets: Socket[] = [];
let owner: TestOwner;

async function startRedis(port: number): Promise<void> {
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('redis-server did not start (is redis-server installed?)');
}

const PER_VISITOR = 6;
const PER_IP = 30;

beforeAll(async () => {
  const port = await freePort();
  await startRedis(port);
  if (TEST_DB === 'postgres') {
    const created = await createPgDatabase();
    dropDb = created.drop;
    database = await openPostgres(created.url);
  } else {
    database = await openPglite(undefined);
  }
  await database.migrate();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-limits-'));
  // Both nodes share the prefix, as the nodes of one deployment do.
  const env = {
    REDIS_URL: `redis://127.0.0.1:${port}`,
    RATE_LIMIT_PREFIX: uniqueRateLimitPrefix(),
    WIDGET_SOCKETS_PER_VISITOR: '2',
    WIDGET_LIMIT_PER_VISITOR: String(PER_VISITOR),
    WIDGET_LIMIT_PER_IP: String(PER_IP),
  };
  for (let i = 0; i < 2; i++) {
    const app = await buildApp({ config: testConfig(dataDir, env), database, logger: false });
    apps.push(app);
    bases.push(await listen(app));
  }
  owner = await buildAccount(apps[0]!);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  for (const app of apps) await app.close();
  await database?.close();
  await dropDb();
  if (redis && redis.exitCode === null) {
    const gone = new Promise((r) => redis?.once('exit', r));
    redis.kill('SIGKILL');
    await gone;
  }
  await fs.rm(dataDir, { recursive: true, force: true });
});

function widget(node: number, token: string): Socket {
  const s = io(bases[node]!, { auth: { widget_key: owner.widgetKey, visitor_token: token }, transports: ['websocket'], reconnection: false, forceNew: true });
  sockets.push(s);
  return s;
}

function get(node: number, from: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${bases[node]}${url}`, { localAddress: from, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

describe('limits shared by two nodes through Redis', () => {
  it("caps a visitor's sockets over both nodes, and frees a slot closed on the other node", async () => {
    const visitor = await buildVisitor(apps[0]!, owner.widgetKey);
    const onA = widget(0, visitor.token);
    const onB = widget(1, visitor.token);
    await Promise.all([connected(onA), connected(onB)]);
    const third = widget(0, visitor.token);
    const err = await connected(third).then(
      () => undefined,
      (e: { message: string; data?: unknown }) => e,
    );
    expect(err?.data).toEqual({ status: 429, message: TOO_MANY_CONNECTIONS });
    onB.close();
    let again = false;
    for (let i = 0; i < 20 && !again; i++) {
      again = await connected(widget(0, visitor.token)).then(
        () => true,
        () => false,
      );
      if (!again) await new Promise((r) => setTimeout(r, 100));
    }
    expect(again).toBe(true);
  });

  it("counts a visitor's events on both nodes in one budget", async () => {
    const visitor = await buildVisitor(apps[1]!, owner.widgetKey);
    const onA = widget(0, visitor.token);
    const onB = widget(1, visitor.token);
    await Promise.all([connected(onA), connected(onB)]);
    for (let i = 0; i < PER_VISITOR; i++) {
      const ack = await emitAck(i % 2 ? onB : onA, EVENTS.messageSend, { message: `m${i}`, client_id: `x${i}` });
      expect(ack.ok, JSON.stringify(ack)).toBe(true);
    }
    for (const s of [onA, onB]) {
      const ack = await emitAck(s, EVENTS.messageSend, { message: 'over', client_id: 'over' });
      expect(ack).toMatchObject({ ok: false, status: 429 });
      expect(ack.retry_after).toBeGreaterThanOrEqual(1);
    }
  });

  it("counts an IP's calls on both nodes in one budget", async () => {
    const url = `/api/widget-settings?unique_code=${owner.widgetKey}`;
    for (let i = 0; i < PER_IP; i++) expect(await get(i % 2, '127.0.0.71', url)).toBe(200);
    expect(await get(0, '127.0.0.71', url)).toBe(429);
    expect(await get(1, '127.0.0.71', url)).toBe(429);
    expect(await get(1, '127.0.0.72', url)).toBe(200);
  });
});
