import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { openPostgres, type Database } from '../../db/client.js';
import { createPgDatabase, testConfig } from '../../test/harness.js';
import { buildAccount, call } from '../../test/factories.js';
import { buildChattingVisitor } from '../../test/chatFactories.js';

// A conversation update whose transaction commits after a later one's (another node, a slow
// writer) must still reach the next changes_since poll: the change cursor is commit-safe.
let app: FastifyInstance;
let database: Database;
let writer: pg.Client;
let drop: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  const created = await createPgDatabase();
  drop = created.drop;
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-changes-'));
  database = await openPostgres(created.url);
  await database.migrate();
  app = await buildApp({ config: testConfig(dataDir), database, logger: false });
  await app.ready();
  writer = new pg.Client({ connectionString: created.url });
  await writer.connect();
});

afterAll(async () => {
  await writer.end();
  await app.close();
  await database.close();
  await drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('changes_since and a late commit', () => {
  it('returns an update that committed after a later one, on the next poll, once', async () => {
    const o = await buildAccount(app);
    const early = await buildChattingVisitor(app, o.widgetKey, 'early');
    const later = await buildChattingVisitor(app, o.widgetKey, 'later');
    const poll = async (cursor: string) => {
      const res = await call(app, 'GET', `/api/vms/conversations?changes_since=${cursor}`, { token: o.token });
      expect(res.status).toBe(200);
      return res.body as { data: { visitor_id: string; last_message: string }[]; changes_cursor: string };
    };
    const start = (await call(app, 'GET', '/api/vms/conversations?limit=10', { token: o.token })).body.changes_cursor as string;

    // A slow writer updates `early` and holds its transaction open...
    await writer.query('begin');
    await writer.query(`update conversations set last_message = 'slow write' where visitor_id = $1`, [early.id]);
    // ...while `later` changes and commits.
    await call(app, 'POST', '/api/widget/messages', { token: later.token, body: { message: 'fast write' } });
    const first = await poll(start);
    expect(first.data.map((c) => [c.visitor_id, c.last_message])).toEqual([[later.id, 'fast write']]);

    await writer.query('commit');
    const second = await poll(first.changes_cursor);
    expect(second.data.map((c) => [c.visitor_id, c.last_message])).toEqual([[early.id, 'slow write']]);
    expect((await poll(second.changes_cursor)).data).toEqual([]);
  });
});
