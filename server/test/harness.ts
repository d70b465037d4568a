import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { openPglite, openPostgres, type Database } from '../db/client.js';
import { removeTempDir } from './tempDir.js';

/** Which database this run uses: vitest's projects set it (pglite | postgres). */
export const TEST_DB = (process.env.PARLEY_TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
export const TEST_PG_URL = process.env.PARLEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The at-rest key of every test app and every server process a test starts (one per cluster, as in production). */
export const TEST_SECRETS_KEY = 'parley-tests-at-rest-key-0123456789abcdef';
export const TEST_REDIS_URL = process.env.PARLEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh, empty, migrated PostgreSQL database for one test file; fails loudly if PostgreSQL is down. */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${TEST_PG_URL} (${(e as Error).message}). ` +
        'Start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    );
  }
  const name = `parley_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Widget limits out of the way (every test client is 127.0.0.1); limit tests set them low. */
export const RELAXED_WIDGET_LIMITS: Record<string, string> = {
  WIDGET_LIMIT_PER_IP: '1000000',
  WIDGET_LIMIT_PER_VISITOR: '1000000',
  WIDGET_LIMIT_PER_KEY: '1000000',
  WIDGET_NEW_VISITORS_PER_IP: '1000000',
  WIDGET_NEW_CHATS_PER_ACCOUNT: '1000000',
  WIDGET_NEW_CHATS_BURST: '1000000',
  WIDGET_SOCKETS_PER_VISITOR: '1000',
  WIDGET_SOCKETS_PER_IP: '100000',
  SOCKET_HANDSHAKES_PER_IP: '100000',
  // Each node's share of one account's widget writes (services/widgetWrites.ts): tests that start many chats of one account at once are not about it.
  WIDGET_WRITES_PER_ACCOUNT: '1000',
  WIDGET_WRITE_SHARE: '100',
};

/** A rate-limit key prefix no other test app (or parallel run on the shared Redis) uses. */
export const uniqueRateLimitPrefix = () => `parley-test:${process.pid}:${Math.random().toString(36).slice(2, 10)}:rl`;

/** The configuration test apps start from: quiet, sign-in and widget limits out of the way, plus `env`. */
export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    LOGIN_LIMIT_PER_IP: '100000',
    LOGIN_LIMIT_PER_EMAIL: '100000',
    LOGIN_LIMIT_PER_IP_EMAIL: '100000',
    PASSWORD_CHECK_LIMIT: '100000',
    EMAIL_CHANGE_LIMIT: '100000',
    REGISTER_LIMIT_PER_IP: '100000',
    // No verification email at every sign-up (tests count emails); recovery.test.ts turns it on.
    EMAIL_VERIFICATION: 'false',
    RATE_LIMIT_PREFIX: uniqueRateLimitPrefix(),
    // One at-rest key for every test app, as an operator sets one for every node: a test that
    // starts a second app on the same database (a restart, another node) opens its secrets.
    // services/secrets.test.ts unsets it to test the key file made in DATA_DIR.
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...RELAXED_WIDGET_LIMITS,
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: Database;
  dataDir: string;
  close(): Promise<void>;
}

/** The real app on a fresh database (PGlite in memory or a new PostgreSQL database), not listening. */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-test-'));
  let database: Database;
  let drop = async () => {};
  if (TEST_DB === 'postgres') {
    const created = await createPgDatabase();
    drop = created.drop;
    database = await openPostgres(created.url);
  } else {
    database = await openPglite(undefined);
  }
  await database.migrate();
  const config = testConfig(dataDir, env);
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  return {
    app,
    config,
    database,
    dataDir,
    async close() {
      await app.close();
      await database.close();
      await drop();
      await removeTempDir(dataDir);
    },
  };
}
