// Inbox bench (issue 16): a big tenant beside a tiny one on PostgreSQL; times the console's
// calls (p50/p95 over N runs, in process through app.inject: route + SQL + JSON, no network),
// and the tiny tenant's widget send p99 alone and while the big tenant's console polls.
// Prints EXPLAIN (ANALYZE) plans of the main queries (copied into README.md).
// Run from the repository root:  npx tsx bench/inbox/run.mjs [--visitors 250000] [--conversations 200000] [--messages 10] [--runs 100]
//   [--calls search,stats]  time only the calls whose name contains one of these words (and skip the tiny tenant's chat)
//   [--mixed-only 1]  only the mixed-tenant step (the tiny tenant's sends alone, then while the big console polls): no call timings, no plans
//   [--pace 0]  the server's pace of one account's list calls off (CONSOLE_LIST_* raised), to compare with it on, back to back
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

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const VISITORS = arg('visitors', 250_000);
const CONVERSATIONS = Math.min(arg('conversations', 200_000), VISITORS); // one conversation per visitor
const PER_CONVERSATION = arg('messages', 10);
const RUNS = arg('runs', 100);
const CALLS = (() => {
  const i = process.argv.indexOf('--calls');
  return i > 0 ? process.argv[i + 1].split(',') : null;
})();

const MIXED_ONLY = arg('mixed-only', 0) === 1;
const PACE = arg('pace', 1) !== 0;

const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

const db = await createDatabase();
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-inbox-bench-'));
const database = await openPostgres(db.url);
await database.migrate();
const app = await buildApp({
  config: testConfig(dataDir, PACE ? {} : { CONSOLE_LIST_PER_SECOND: '1000000', CONSOLE_LIST_BURST: '1000000' }),
  database,
  logger: false,
});
await app.ready();
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();

async function inject(method, url, { token, body, headers } = {}) {
  const res = await app.inject({ method, url, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, ...(body ? { payload: body } : {}) });
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return { body: res.json(), bytes: res.body.length };
}

async function register(name) {
  const email = `${name.replace(/\W/g, "").toLowerCase()}${Date.now()}@bench.example.com`;
  const r = await inject('POST', '/api/vms/register', { body: { name, email, password: 'Bench-pass-1!', password_confirmation: 'Bench-pass-1!' } });
  return { token: r.body.token, accountId: r.body.user.account_id };
}

try {
  const big = await register('Big Owner');
  const tiny = await register('Tiny Owner');
  const [{ widget_key: tinyKey }] = (await sql.query('select widget_key from accounts where id = $1', [tiny.accountId])).rows;

  // ---- seed the big tenant in SQL (generate_series), triggers and search indexes off meanwhile ----
  log(`seeding ${VISITORS} visitors, ${CONVERSATIONS} conversations, ${CONVERSATIONS * PER_CONVERSATION} messages...`);
  const seedStart = Date.now();
  await sql.query(`
    alter table messages disable trigger messages_conversation_times;
    alter table conversations disable trigger conversations_counts_rows;
    drop index if exists messages_search_idx; drop index if exists visitors_search_idx;`);
  await sql.query(`
    insert into users (account_id, name, email, password_hash, type, role_id)
      select $1::uuid, 'Agent ' || i, 'agent' || i || '-' || md5($1::text) || '@bench.example', 'x', 'team_member', (select id from roles where name = 'Agent')
      from generate_series(1, 5) i;`, [big.accountId]);
  await sql.query(`
    insert into visitors (account_id, token_hash, name, email, country, device, created_at, last_seen_at)
    select $1::uuid, md5('v' || i || $1::text), 'Visitor ' || i, 'visitor' || i || '@mail' || (i % 50) || '.example',
           (array['NG','US','GB','DE','FR','IN','BR','KE'])[1 + i % 8], (array['desktop','mobile','tablet'])[1 + i % 3],
           now() - make_interval(secs => (i::float8 * 90 * 86400 / $2)), now() - make_interval(secs => (i::float8 * 90 * 86400 / $2))
    from generate_series(1, $2) i`, [big.accountId, VISITORS]);
  log('visitors done');
  await sql.query(`
    insert into conversations (account_id, visitor_id, status, assignee_id, last_message, last_message_at, unread_count, created_at,
                               first_visitor_message_at, first_reply_at, waiting_since)
    select v.account_id, v.id,
           (array['resolved','resolved','resolved','resolved','resolved','resolved','resolved','open','open','pending'])[1 + n % 10],
           case when n % 3 = 0 then null else (select array_agg(id order by id) from users where account_id = $1 and type = 'team_member')[1 + n % 5] end,
           'last words', v.created_at + interval '10 minutes', 0, v.created_at,
           v.created_at, v.created_at + interval '1 minute', case when n % 10 in (7, 8) then v.created_at + interval '9 minutes' end
    from (select id, account_id, created_at, row_number() over (order by created_at desc) n from visitors where account_id = $1) v
    where v.n <= $2`, [big.accountId, CONVERSATIONS]);
  log('conversations done');
  const words = ['order', 'refund', 'delivery', 'invoice', 'password', 'shipping', 'discount', 'account', 'payment', 'return', 'size', 'colour', 'warranty', 'tracking', 'cancel'];
  await sql.query(`
    insert into messages (account_id, conversation_id, sender_type, message, created_at)
    select c.account_id, c.id, case when k % 2 = 1 then 'visitor' when k % 10 = 0 then 'bot' else 'user' end,
           'Message ' || k || ' about my ' || ($2::text[])[1 + (c.id + k) % 15] || ' number ' || (c.id * 7 + k) % 100000 || ', ' || ($2::text[])[1 + (c.id * 3 + k) % 15] || ' please',
           c.created_at + make_interval(secs => k * 55)
    from conversations c, generate_series(1, $3) k where c.account_id = $1`, [big.accountId, words, PER_CONVERSATION]);
  log('messages done');
  await sql.query(`
    alter table messages enable trigger messages_conversation_times;
    alter table conversations enable trigger conversations_counts_rows;
    delete from conversation_counts;
    insert into conversation_counts (account_id, assignee_key, status, n)
      select account_id, coalesce(assignee_id, 0), status, count(*) from conversations group by 1, 2, 3;
    create index messages_search_idx on messages using gin (to_tsvector('simple'::regconfig, message));
    create index visitors_search_idx on visitors using gin (to_tsvector('simple'::regconfig, name || ' ' || email));`);
  log('search indexes built');
  await sql.query('vacuum analyze');
  const seedSeconds = (Date.now() - seedStart) / 1000;
  log(`seeded in ${seedSeconds.toFixed(0)} s`);

  // The tiny tenant: three chatting visitors.
  const tinyVisitors = [];
  for (let i = 0; i < 3; i++) {
    const v = await inject('POST', '/api/widget/visitors', { body: { unique_code: tinyKey } });
    tinyVisitors.push(v.body.data.visitor_token);
    await inject('POST', '/api/widget/messages', { token: v.body.data.visitor_token, body: { message: 'hello' } });
  }

  const [{ visitor_id: bigVisitor }] = (
    await sql.query('select visitor_id from conversations where account_id = $1 order by last_message_at desc limit 1 offset 1000', [big.accountId])
  ).rows;
  const first = await inject('GET', '/api/vms/conversations?limit=50', { token: big.token });
  const calls = {
    'conversations first page (limit=50)': '/api/vms/conversations?limit=50',
    'conversations next page (cursor)': `/api/vms/conversations?limit=50&cursor=${first.body.next_cursor}`,
    'filter: open + unassigned': '/api/vms/conversations?limit=50&status=open&assignee=unassigned',
    'filter: pending, waiting longest': '/api/vms/conversations?limit=50&status=pending&sort=waiting',
    'changes_since (idle poll)': `/api/vms/conversations?changes_since=${first.body.changes_cursor}`,
    'search "refund" (20 hits)': '/api/vms/search?q=refund',
    'search "visitor 12345"': '/api/vms/search?q=visitor%2012345',
    'latest 50 messages': `/api/vms/messages/${bigVisitor}?limit=50`,
    'stats 30 days': '/api/vms/stats?range=30d',
  };
  const results = [];
  for (const [name, url] of Object.entries(calls)) {
    if (MIXED_ONLY || (CALLS && !CALLS.some((c) => name.includes(c)))) continue;
    await inject('GET', url, { token: big.token }); // warm
    const times = [];
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      const r = await inject('GET', url, { token: big.token });
      times.push(performance.now() - s);
      bytes = r.bytes;
      // Under the server's pace of one account's list calls (20 a second): time the call, not its wait in line.
      if (PACE) await new Promise((resolve) => setTimeout(resolve, 55));
    }
    times.sort((a, b) => a - b);
    results.push({ name, p50: percentile(times, 50), p95: percentile(times, 95), bytes });
    log(name, percentile(times, 50).toFixed(2), percentile(times, 95).toFixed(2));
  }

  // ---- the tiny tenant's chat alone, then while the big console polls its first page and stats ----
  async function tinyChat(n) {
    const times = [];
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      await inject('POST', '/api/widget/messages', { token: tinyVisitors[i % 3], body: { message: `m${i}` } });
      times.push(performance.now() - s);
    }
    return times.sort((a, b) => a - b);
  }
  const alone = await tinyChat(CALLS ? 0 : RUNS * 2);
  let polling = true;
  let polls = 0;
  const pollStart = performance.now();
  const poller = (async () => {
    let cursor = first.body.changes_cursor;
    while (polling) {
      polls++;
      const a = await inject('GET', `/api/vms/conversations?changes_since=${cursor}`, { token: big.token });
      cursor = a.body.changes_cursor;
      await inject('GET', '/api/vms/conversations?limit=50&status=open', { token: big.token });
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const busy = await tinyChat(CALLS ? 0 : RUNS * 2);
  polling = false;
  await poller;
  const pollSeconds = (performance.now() - pollStart) / 1000;

  // ---- EXPLAIN of the main queries, as the server sends them ----
  const ownerId = (await sql.query(`select id from users where account_id = $1 and type = 'owner'`, [big.accountId])).rows[0].id;
  const plans = {
    'conversations first page': `select c.*, v.name, v.email, u.name from conversations c join visitors v on v.id = c.visitor_id left join users u on u.id = c.assignee_id
      where c.account_id = '${big.accountId}' order by coalesce(c.last_message_at, '-infinity'::timestamptz) desc, c.id desc limit 51`,
    'filter open + unassigned': `select c.*, v.name, v.email from conversations c join visitors v on v.id = c.visitor_id
      where c.account_id = '${big.accountId}' and c.status = 'open' and c.assignee_id is null order by coalesce(c.last_message_at, '-infinity'::timestamptz) desc, c.id desc limit 51`,
    'search "refund" (message part)': `select m.id from messages m join conversations c on c.id = m.conversation_id
      where m.account_id = '${big.accountId}' and to_tsvector('simple'::regconfig, m.message) @@ to_tsquery('simple', 'refund:*') and m.sender_type <> 'system'
      order by m.created_at desc limit 21`,
    'latest 50 messages': `select * from messages where conversation_id = (select id from conversations where visitor_id = '${bigVisitor}') order by id desc limit 51`,
    'stats first response (30 days)': `select avg(extract(epoch from (first_reply_at - first_visitor_message_at))) from conversations
      where account_id = '${big.accountId}' and first_visitor_message_at >= now() - interval '30 days' and first_reply_at is not null`,
    counts: `select assignee_key, status, n from conversation_counts where account_id = '${big.accountId}'`,
    // The search as server/routes/conversations/search.ts sends it (owner): each branch ordered and limited.
    'search "refund" (as sent)': `select * from (
      (select m.created_at as at, 1 as kind, m.id as mid, c.visitor_id::text as vid from messages m
         join conversations c on c.id = m.conversation_id join visitors v on v.id = c.visitor_id
       where m.account_id = '${big.accountId}' and to_tsvector('simple'::regconfig, m.message) @@ to_tsquery('simple', 'refund:*')
         and m.sender_type <> 'system' and c.account_id = '${big.accountId}' order by m.created_at desc, m.id desc limit 21)
      union all
      (with matched as materialized (select id from visitors
         where to_tsvector('simple'::regconfig, name || ' ' || email) @@ to_tsquery('simple', 'refund:*') and account_id = '${big.accountId}')
       select v.created_at, 0, 0::bigint, v.id::text from matched join visitors v on v.id = matched.id left join conversations c on c.visitor_id = v.id
       where v.account_id = '${big.accountId}'
       order by v.created_at desc, v.id desc limit 21)) x order by at desc, kind desc, mid desc, vid desc limit 21`,
    // The dashboard's 30-day queries (server/routes/stats/stats.ts), owner scope.
    'stats: active chats': `select count(*) from conversations where account_id = '${big.accountId}' and last_message_at >= now() - interval '30 days'`,
    'stats: devices of visitors seen': `select device, count(*) from visitors where account_id = '${big.accountId}' and last_seen_at >= now() - interval '30 days' group by device`,
    'stats: new visitors per day': `select floor(date_part('epoch', created_at - (now() - interval '30 days')) / 86400)::int b, count(*) from visitors
      where account_id = '${big.accountId}' and created_at >= now() - interval '30 days' group by 1`,
    'stats: chats per day': `select floor(date_part('epoch', created_at - (now() - interval '30 days')) / 86400)::int b, count(*) from conversations
      where account_id = '${big.accountId}' and created_at >= now() - interval '30 days' group by 1`,
    'stats: AI answers per day': `select floor(date_part('epoch', created_at - (now() - interval '30 days')) / 86400)::int b, count(*) from messages
      where account_id = '${big.accountId}' and created_at >= now() - interval '30 days' and sender_type = 'bot' group by 1`,
  };
  void ownerId;
  const explained = [];
  for (const [name, q] of MIXED_ONLY ? [] : Object.entries(plans)) {
    const r = await sql.query(`explain (analyze, costs off, timing off, summary on) ${q}`);
    explained.push(`### ${name}\n\`\`\`\n${r.rows.map((x) => x['QUERY PLAN']).join('\n')}\n\`\`\``);
  }

  const sizes = (await sql.query(`select (select count(*) from visitors where account_id = $1) v, (select count(*) from conversations where account_id = $1) c,
      (select count(*) from messages where account_id = $1) m`, [big.accountId])).rows[0];
  console.log(`\nBig tenant: ${sizes.v} visitors, ${sizes.c} conversations, ${sizes.m} messages (seeded in ${seedSeconds.toFixed(0)} s); tiny tenant: 3 visitors.`);
  console.log(`${RUNS} runs each, in process (app.inject), PostgreSQL ${(await sql.query('show server_version')).rows[0].server_version}.\n`);
  console.log('| call (big tenant, owner) | p50 | p95 | bytes |\n|---|---|---|---|');
  for (const r of results) console.log(`| ${r.name} | ${r.p50.toFixed(2)} ms | ${r.p95.toFixed(2)} ms | ${r.bytes} |`);
  console.log(`\nTiny tenant widget send: alone p50 ${percentile(alone, 50).toFixed(2)} ms, p99 ${percentile(alone, 99).toFixed(2)} ms; ` +
    `while the big console polls p50 ${percentile(busy, 50).toFixed(2)} ms, p99 ${percentile(busy, 99).toFixed(2)} ms ` +
    `(p99 ${(percentile(busy, 99) / percentile(alone, 99)).toFixed(2)}x alone; the poller made ${polls} polls of 2 list calls in ${pollSeconds.toFixed(1)} s, ` +
    `list pace ${PACE ? 'on' : 'off'}).\n`);
  console.log(explained.join('\n\n'));
} finally {
  await sql.end();
  await app.close();
  await database.close();
  await db.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
