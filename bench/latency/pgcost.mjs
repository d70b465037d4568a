// What PostgreSQL spends per chat message, alone (issue 15, the real-time path's cost): the
// backend's CPU (user + system, /proc) for the statement that stores a message (commands/
// sendMessage.ts APPEND_QUERY, the one the group commit runs) at batch sizes 1, 4 and 16, beside
// the floor of any durable write (a one-row insert and its commit) and a round trip (select 1).
// Run: node bench/latency/pgcost.mjs   (after `npx turbo run build --filter=@parley/server`; needs
// PostgreSQL at BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/test: a throwaway database
// is made and dropped). BENCH_STATEMENTS=2000 per figure.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT, createDatabase } from '../lib.mjs';

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 2000);
const VISITORS = 64;

const dist = (p) => import(path.join(ROOT, 'server/dist', p));
const { buildApp } = await dist('app.js');
const { openPostgres } = await dist('db/client.js');
const { loadConfig } = await dist('config.js');
const { APPEND_QUERY } = await dist('commands/sendMessage.js');

const db = await createDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-pgcost-'));
let client;
try {
  // The chats: one account, visitors each with an open conversation (made through the API).
  const database = await openPostgres(db.url);
  await database.migrate();
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    WIDGET_LIMIT_PER_IP: '10000000',
    WIDGET_LIMIT_PER_VISITOR: '10000000',
    WIDGET_NEW_VISITORS_PER_IP: '10000000',
    WIDGET_NEW_CHATS_PER_ACCOUNT: '10000000',
    WIDGET_NEW_CHATS_BURST: '10000000',
  });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const password = 'Bench-pass-123!';
  const reg = await app.inject({ method: 'POST', url: '/api/vms/register', payload: { name: 'Bench Owner', email: `pgcost-${Date.now()}@example.com`, password, password_confirmation: password } });
  const integration = await app.inject({ method: 'GET', url: '/api/vms/integration', headers: { authorization: `Bearer ${reg.json().token}` } });
  const key = /data-widget="([^"]+)"/.exec(integration.json().script)[1];
  for (let i = 0; i < VISITORS; i++) {
    const v = await app.inject({ method: 'POST', url: '/api/widget/visitors', payload: { unique_code: key, name: `Visitor ${i}` } });
    const token = v.json().data.visitor_token;
    const m = await app.inject({ method: 'POST', url: '/api/widget/messages', headers: { authorization: `Bearer ${token}` }, payload: { message: 'hello', client_id: `first-${i}` } });
    if (m.statusCode !== 201) throw new Error(`first message: ${m.statusCode} ${m.body}`);
  }
  await app.close();
  await database.close();

  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const pid = (await client.query('select pg_backend_pid() as p')).rows[0].p;
  const cpu = async () => {
    const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // ms (USER_HZ 100)
  };
  const visitors = (await client.query("select v.id, v.account_id from visitors v join conversations c on c.visitor_id = v.id and c.status = 'open'")).rows;
  await client.query('create table bench_floor (x int)');

  /** Backend CPU (us) per unit and wall time (ms) per statement over `n` runs of `run(k)`. */
  const measure = async (n, perStatement, run) => {
    for (let k = 0; k < 100; k++) await run(k);
    const c0 = await cpu();
    const t0 = performance.now();
    for (let k = 0; k < n; k++) await run(k);
    const wall = (performance.now() - t0) / n;
    return { us: ((await cpu()) - c0) * 1000 / (n * perStatement), wall };
  };
  let seq = 0;
  const append = (batch) => (k) => {
    const items = Array.from({ length: batch }, (_, j) => visitors[(k * batch + j) % visitors.length]);
    const texts = items.map(() => `bench message ${seq++}`);
    return client.query({
      name: 'append',
      text: APPEND_QUERY.sql,
      values: [items.map((v) => v.id), items.map((v) => v.account_id), items.map(() => null), items.map(() => 'visitor'), items.map(() => null), texts, items.map(() => ''), items.map(() => ''), items.map(() => ''), items.map(() => 0), texts, items.map(() => true), items.map(() => '[]'), 'bench-node'],
    });
  };
  const rows = [
    ['select 1 (a round trip)', 1, await measure(STATEMENTS, 1, () => client.query({ name: 'one', text: 'select 1' }))],
    ['insert one row + commit (a durable write)', 1, await measure(STATEMENTS, 1, () => client.query({ name: 'floor', text: 'insert into bench_floor values (1)' }))],
  ];
  for (const batch of [1, 4, 16]) {
    // A batch holds at most one message per conversation (the group commit's rule).
    rows.push([`store ${batch} message${batch > 1 ? 's' : ''} (one statement)`, batch, await measure(Math.ceil(STATEMENTS / batch), batch, append(batch))]);
    await client.query('delete from push_outbox');
  }
  console.log(`PostgreSQL backend CPU (user + system) per message, ${STATEMENTS} statements per line, database ${db.name}\n`);
  console.log(`${'statement'.padEnd(44)}${'CPU per message'.padStart(16)}${'wall per statement'.padStart(20)}`);
  for (const [name, , r] of rows) console.log(`${name.padEnd(44)}${`${r.us.toFixed(0)} us`.padStart(16)}${`${r.wall.toFixed(3)} ms`.padStart(20)}`);
} finally {
  await client?.end().catch(() => {});
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
}
