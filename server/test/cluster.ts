import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { openPglite, openPostgres, type Database } from '../db/client.js';
import { TEST_DB, createPgDatabase, testConfig, uniqueRateLimitPrefix } from './harness.js';
import { freePort, listen } from './sockets.js';
import { removeTempDir } from './tempDir.js';

/**
 * Several app instances ("nodes") of one deployment for a test file: one database (a fresh
 * PostgreSQL database, or one shared PGlite), optionally one private redis-server (started by the
 * test on a free port, so it can be stopped and restarted), one data directory, one rate-limit
 * prefix. Each node listens on its own local port.
 */

/** A redis-server of the test's own: nothing else publishes on it, and it can be restarted. */
export interface PrivateRedis {
  port: number;
  url: string;
  /** (Re)starts it on the same port. */
  start(): Promise<void>;
  /** Kills it outright (SIGKILL): clients see the connection drop. */
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const redis: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
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
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    },
  };
  await redis.start();
  return redis;
}

export interface ClusterNode {
  app: FastifyInstance;
  /** http://127.0.0.1:port */
  base: string;
  database: Database;
  /**
   * The node's error log lines (pino's JSON, the last MAX_ERROR_LINES): an unexpected 500's
   * "request failed" with its error and SQLSTATE, for a test to show when a call failed.
   */
  errors: Record<string, unknown>[];
}

const MAX_ERROR_LINES = 50;

export interface TestCluster {
  /** The running nodes (stopNode removes one). */
  nodes: ClusterNode[];
  redis: PrivateRedis | undefined;
  /** The PostgreSQL database's URL (undefined on PGlite). */
  dbUrl: string | undefined;
  dataDir: string;
  /** The environment every node starts with (REDIS_URL and the shared RATE_LIMIT_PREFIX included). */
  env: Record<string, string>;
  startNode(): Promise<ClusterNode>;
  stopNode(node: ClusterNode): Promise<void>;
  /** Stops every node and the redis-server, drops the database, removes the data directory. */
  close(): Promise<void>;
}

export interface ClusterOptions {
  nodes?: number;
  /** Start a private redis-server and give every node its REDIS_URL (default true). */
  redis?: boolean;
  /** Which database; several nodes on one PGlite share one in-process instance. Default: this run's TEST_DB. */
  db?: 'pglite' | 'postgres';
  /** Extra environment for every node (over testConfig's defaults). */
  env?: Record<string, string>;
}

export async function startCluster({ nodes: count = 2, redis: withRedis = true, db = TEST_DB, env = {} }: ClusterOptions = {}): Promise<TestCluster> {
  const cleanup: (() => Promise<unknown>)[] = [];
  const nodes: ClusterNode[] = [];
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-cluster-'));
  cleanup.push(() => removeTempDir(dataDir));
  let redis: PrivateRedis | undefined;
  let dbUrl: string | undefined;
  let shared: Database | undefined;
  const close = async () => {
    for (const n of [...nodes]) await stopNode(n).catch(() => {});
    await shared?.close().catch(() => {});
    for (const f of cleanup.reverse()) await f().catch(() => {});
  };
  async function stopNode(node: ClusterNode): Promise<void> {
    const i = nodes.indexOf(node);
    if (i >= 0) nodes.splice(i, 1);
    await node.app.close();
    if (node.database !== shared) await node.database.close();
  }
  try {
    if (withRedis) {
      const r = await startPrivateRedis();
      redis = r;
      cleanup.push(() => r.stop());
    }
    if (db === 'postgres') {
      const created = await createPgDatabase();
      dbUrl = created.url;
      cleanup.push(created.drop);
    } else {
      shared = await openPglite(undefined);
      await shared.migrate();
    }
    // The nodes of one deployment share the rate-limit prefix (testConfig would give each its own).
    const nodeEnv = { RATE_LIMIT_PREFIX: uniqueRateLimitPrefix(), ...(redis ? { REDIS_URL: redis.url } : {}), ...env };
    async function startNode(): Promise<ClusterNode> {
      let database = shared;
      if (!database) {
        database = await openPostgres(dbUrl as string);
        await database.migrate(); // nodes starting at once: the advisory lock serializes them
      }
      // Errors only, kept in memory: nothing printed unless a test shows them.
      const errors: Record<string, unknown>[] = [];
      const logStream = {
        write(line: string) {
          if (errors.length >= MAX_ERROR_LINES) errors.shift();
          errors.push(JSON.parse(line) as Record<string, unknown>);
        },
      };
      const app = await buildApp({ config: testConfig(dataDir, { LOG_LEVEL: 'error', ...nodeEnv }), database, logStream });
      const node = { app, base: await listen(app), database, errors };
      nodes.push(node);
      return node;
    }
    await Promise.all(Array.from({ length: count }, startNode));
    return { nodes, redis, dbUrl, dataDir, env: nodeEnv, startNode, stopNode, close };
  } catch (e) {
    await close();
    throw e;
  }
}
