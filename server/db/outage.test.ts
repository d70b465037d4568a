import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { SERVICE_UNAVAILABLE } from '../errors.js';
import { createPgDatabase, testConfig } from '../test/harness.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { startTcpProxy, type TcpProxy } from '../test/tcpProxy.js';
import { openPostgres, type Database } from './client.js';

// The app reaches PostgreSQL through a proxy the test can black-hole (a failover: open
// connections vanish without a reset) or cut (connections reset, new ones refused).
let proxy: TcpProxy;
let database: Database;
let app: FastifyInstance;
let owner: TestOwner;
let drop: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  const created = await createPgDatabase();
  drop = created.drop;
  const url = new URL(created.url);
  proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.host = `127.0.0.1:${proxy.port}`;
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-outage-'));
  const config = testConfig(dataDir, { DB_CONNECT_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '2000', READYZ_TIMEOUT_MS: '1000' });
  database = await openPostgres(url.toString(), config.database);
  await database.migrate();
  app = await buildApp({ config, database, logger: false });
  await app.ready();
  owner = await buildAccount(app);
});

afterAll(async () => {
  proxy.restore();
  await app.close();
  await database.close();
  await proxy.close();
  await drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await run();
  return { value, ms: Date.now() - start };
}

const readyz = () => app.inject({ method: 'GET', url: '/readyz' });
const consoleCall = () => call(app, 'GET', '/api/vms/conversations', { token: owner.token });

async function waitUntilReady(limitMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if ((await readyz()).statusCode === 200) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`not ready again within ${limitMs} ms`);
}

describe('a database that stops answering', () => {
  it('makes /readyz answer 503 within seconds, console calls fail fast with 503, and both recover by themselves', async () => {
    expect((await readyz()).statusCode).toBe(200);
    expect((await consoleCall()).status).toBe(200);

    proxy.blackhole();
    // A write in flight when the database vanished ends with 503, not a hang.
    const inFlight = timed(() => call(app, 'PUT', '/api/vms/user/update', { token: owner.token, body: { name: 'Still Olivia', email: owner.email } }));

    const ready = await timed(readyz);
    expect(ready.value.statusCode).toBe(503);
    expect(ready.value.json()).toMatchObject({ status: 'unavailable', checks: { database: 'down' } });
    expect(ready.ms).toBeLessThan(3000);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    const fast = await timed(consoleCall);
    expect(fast.value.status).toBe(503);
    expect(fast.value.body).toEqual({ message: SERVICE_UNAVAILABLE, error: SERVICE_UNAVAILABLE, code: 'unavailable' });
    expect(fast.ms).toBeLessThan(1000);

    const write = await inFlight;
    expect(write.value.status).toBe(503);
    expect(write.ms).toBeLessThan(5000);

    // The database comes back (a new primary): the old connections stay dead, new ones work.
    proxy.restore();
    expect(await waitUntilReady(5000)).toBeLessThan(5000);
    expect((await consoleCall()).status).toBe(200);
    expect((await consoleCall()).status).toBe(200);
  });

  it('answers 503 while connections are reset and refused, and recovers', async () => {
    proxy.cut();
    const fast = await timed(consoleCall);
    expect(fast.value.status).toBe(503);
    expect(fast.value.body.message).toBe(SERVICE_UNAVAILABLE);
    expect(fast.ms).toBeLessThan(2000);
    expect((await readyz()).statusCode).toBe(503);
    expect((await timed(consoleCall)).ms).toBeLessThan(500);
    proxy.restore();
    await waitUntilReady(5000);
    expect((await consoleCall()).status).toBe(200);
  });
});
