// Visitors and team lists bench (issue 16): a big tenant beside a tiny one on PostgreSQL; times
// GET /api/vms/visitor (pages, filters, search, the SPEC call without limit, an Agent's page),
// /users, /team and one member's assignments (p50/p95 over N runs, in process through app.inject:
// route + SQL + JSON, no network), and prints EXPLAIN (ANALYZE) of the visitor list's queries.
// Smaller seed than run.mjs by default (50k visitors, 20k of them with a conversation, no
// messages: these calls never read messages), so it seeds and runs within a minute here.
// Run from the repository root:  npx tsx bench/inbox/visitors.mjs [--visitors 50000] [--conversations 20000] [--runs 50]
// Needs PostgreSQL at BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test); uses a
// throwaway database and drops it at the end.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, percentile } from '../lib.mjs';
import { buildApp } from '../../server/app.ts';
import { openPostgres } from '../../server/db/client.ts';
import { testConfig } from '../../server/test/harness.ts';
import { seedConversations } from '../../server/test/inboxSeed.ts';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const VISITORS = arg('visitors', 50_000);
const CONVERSATIONS = Math.min(arg('conversations', 20_000), VISITORS);
const RUNS = arg('runs', 50);

const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

const db = await createDatabase();
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-visitors-bench-'));
const database = await openPostgres(db.url);
await database.migrate();
const app = await buildApp({ config: testConfig(dataDir), database, logger: false });
await app.ready();
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();

async function inject(method, url, { token, body } = {}) {
  const res = await app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(body ? { payload: body } : {}) });
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return { body: res.json(), bytes: res.body.length };
}

async function register(name) {
  const email = `${name.replace(/\W/g, '').toLowerCase()}${Date.now()}@bench.example.com`;
  const r = await inject('POST', '/api/vms/register', { body: { name, email, password: 'Bench-pass-1!', password_confirmation: 'Bench-pass-1!' } });
  return { token: r.body.token, accountId: r.body.user.account_id };
}

try {
  const big = await register('Big Owner');
  const tiny = await register('Tiny Owner');
  const roles = (await inject('GET', '/api/vms/team', { token: big.token })).body.roles;
  const agentRole = roles.find((r) => r.name === 'Agent').id;
  const members = [];
  for (let i = 0; i < 3; i++) {
    const r = await inject('POST', '/api/vms/team', {
      token: big.token,
      body: { name: `Agent ${i}`, email: `agent${i}-${Date.now()}@bench.example.com`, password: 'Bench-pass-1!', role_id: agentRole },
    });
    members.push(r.body.data.id);
  }
  const agentLogin = await inject('POST', '/api/vms/login', {
    body: { email: (await sql.query('select email from users where id = $1', [members[0]])).rows[0].email, password: 'Bench-pass-1!' },
  });
  const agentToken = agentLogin.body.token;

  // ---- seed: conversations through the tests' seeding helper, the rest of the visitors in SQL ----
  log(`seeding ${VISITORS} visitors, ${CONVERSATIONS} of them with a conversation...`);
  const seedStart = Date.now();
  const third = Math.floor(CONVERSATIONS / 3);
  await seedConversations(app, big.accountId, third, { name: 'Chatter A', assigneeId: members[0] });
  await seedConversations(app, big.accountId, third, { name: 'Chatter B', assigneeId: members[1], base: new Date(Date.now() - 86_400_000) });
  await seedConversations(app, big.accountId, CONVERSATIONS - 2 * third, { name: 'Chatter C', base: new Date(Date.now() - 2 * 86_400_000) });
  await sql.query(
    `insert into visitors (account_id, token_hash, name, email, country, created_at)
     select $1::uuid, md5('b' || i || $1::text), 'Browser ' || i, 'browser' || i || '@mail' || (i % 50) || '.example',
            (array['NG','US','GB','DE','FR','IN','BR','KE'])[1 + i % 8], now() - make_interval(secs => i * 60)
     from generate_series(1, $2) i`,
    [big.accountId, VISITORS - CONVERSATIONS],
  );
  await sql.query('vacuum analyze');
  log(`seeded in ${((Date.now() - seedStart) / 1000).toFixed(0)} s`);
  for (let i = 0; i < 3; i++) await inject('POST', '/api/widget/visitors', { body: { unique_code: (await sql.query('select widget_key from accounts where id = $1', [tiny.accountId])).rows[0].widget_key } });

  const first = await inject('GET', '/api/vms/visitor?limit=50', { token: big.token });
  const calls = [
    ['visitors first page (limit=50)', '/api/vms/visitor?limit=50', big.token],
    ['visitors next page (cursor)', `/api/vms/visitor?limit=50&cursor=${first.body.next_cursor}`, big.token],
    ['visitors country=FR', '/api/vms/visitor?limit=50&country=FR', big.token],
    ['visitors has_conversation=false', '/api/vms/visitor?limit=50&has_conversation=false', big.token],
    ['visitors online=true (none online)', '/api/vms/visitor?limit=50&online=true', big.token],
    ['visitors search "browser 1234"', '/api/vms/visitor?limit=50&q=browser%201234', big.token],
    ['visitors first page, Agent', '/api/vms/visitor?limit=50', agentToken],
    ['visitors SPEC call (no limit: 500)', '/api/vms/visitor', big.token],
    ['users first page (limit=50)', '/api/vms/users?limit=50', big.token],
    ['team (20 assigned each + counts)', '/api/vms/team', big.token],
    [`one member's assignments (limit=100)`, `/api/vms/team/${members[0]}/assignments?limit=100`, big.token],
    ['tiny tenant: visitors first page', '/api/vms/visitor?limit=50', tiny.token],
  ];
  const results = [];
  for (const [name, url, token] of calls) {
    await inject('GET', url, { token }); // warm
    const times = [];
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      const r = await inject('GET', url, { token });
      times.push(performance.now() - s);
      bytes = r.bytes;
    }
    times.sort((a, b) => a - b);
    results.push({ name, p50: percentile(times, 50), p95: percentile(times, 95), bytes });
  }

  // ---- EXPLAIN of the list's queries as the server sends them ----
  const agentId = members[0];
  const plans = {
    'visitors first page (owner)': `select *, created_at::text as k from visitors where account_id = '${big.accountId}' order by created_at desc, id desc limit 51`,
    'visitors has_conversation=false': `select * from visitors where account_id = '${big.accountId}'
      and not exists (select 1 from conversations c where c.visitor_id = visitors.id) order by created_at desc, id desc limit 51`,
    'visitors country=FR': `select * from visitors where account_id = '${big.accountId}' and country = 'FR' order by visitors.created_at desc, visitors.id desc limit 51`,
    'visitors first page (Agent)': `select * from visitors where account_id = '${big.accountId}'
      and not exists (select 1 from conversations c where c.visitor_id = visitors.id and c.assignee_id is not null and c.assignee_id <> ${agentId})
      order by visitors.created_at desc, visitors.id desc limit 51`,
    'users first page': `select v.id, v.name from conversations c join visitors v on v.id = c.visitor_id
      where c.account_id = '${big.accountId}' order by c.created_at desc, c.id desc limit 51`,
  };
  const explained = {};
  for (const [name, q] of Object.entries(plans)) {
    const r = await sql.query(`explain (analyze, costs off, timing on, summary on) ${q}`);
    explained[name] = r.rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  console.log(`\nVisitors lists, PostgreSQL, big tenant: ${VISITORS} visitors (${CONVERSATIONS} with a conversation), ${RUNS} runs each (in process)\n`);
  console.log('| call | p50 | p95 | bytes |\n|---|---|---|---|');
  for (const r of results) console.log(`| ${r.name} | ${r.p50.toFixed(2)} ms | ${r.p95.toFixed(2)} ms | ${r.bytes} |`);
  for (const [name, plan] of Object.entries(explained)) console.log(`\n${name}:\n${plan}`);
} finally {
  await sql.end();
  await app.close();
  await database.close();
  await db.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
