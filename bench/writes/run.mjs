// What the hot tables' indexes cost per write (issue 15, session 15): WAL bytes and time per new
// visitor, new chat, message and page event, with the indexes migration 0035 dropped ("before")
// and without them ("after"), on PostgreSQL and on the embedded PGlite. Run from the repository root:
//   npx tsc -p shared && npx tsx bench/writes/run.mjs [--engines postgres,pglite] [--n 100]
//     [--messages 3] [--rounds 2] [--seed 20000] [--timed 400] [--what-if 1]
// Each variant is the real app in process (app.inject: route, command, statement, the jobs it
// causes) on its own database migrated to head; "before" then creates 0035's two indexes again.
// --what-if 1 adds variants for indexes that stay: without conversations_account_last_idx (the
// dashboard's active chats and retention read it) and without visitors_account_seen_device_idx
// (the dashboard's visitors seen read it; without it a page event's update could be HOT).
// Each variant first runs one round uncounted (caches, plans, JIT). A phase: the calls, then a
// wait until the outbox, the push outbox and the due jobs are empty. Its WAL on PGlite is the LSN
// difference (no checkpoint runs meanwhile: PGlite checkpoints only when asked, so no full-page
// images either). On PostgreSQL the WAL is the whole cluster's, other databases' too, and other
// work's checkpoints (a DROP DATABASE forces one) make full-page images come and go: the figures
// are this database's records, read with pg_walinspect, full-page images apart, and per relation.
// Then the statements alone: the server's createVisitor and updateVisitor (one INSERT and one
// UPDATE ... RETURNING each), --timed calls per variant in alternating blocks, median and p90.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, percentile, sleep } from '../lib.mjs';
import { buildApp } from '../../server/app.ts';
import { openPglite, openPostgres } from '../../server/db/client.ts';
import { createVisitor } from '../../server/commands/createVisitor.ts';
import { updateVisitor } from '../../server/commands/updateVisitor.ts';
import { testConfig } from '../../server/test/harness.ts';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const ENGINES = arg('engines', 'postgres,pglite').split(',').filter(Boolean);
const N = Number(arg('n', 100));
const MESSAGES = Number(arg('messages', 3));
const ROUNDS = Number(arg('rounds', 2));
const SEED = Number(arg('seed', 20_000));
const TIMED = Number(arg('timed', 400));
const WHAT_IF = arg('what-if', '0') === '1';

/** What each variant changes on a database migrated to head. */
const VARIANTS = {
  before: [
    'create index visitors_account_created_idx on visitors (account_id, created_at desc nulls last)',
    'create index visitors_account_seen_idx on visitors (account_id, last_seen_at)',
  ],
  after: [],
  ...(WHAT_IF
    ? {
        'after, no conversations_account_last_idx': ['drop index conversations_account_last_idx'],
        'after, no visitors_account_seen_device_idx': ['drop index visitors_account_seen_device_idx'],
      }
    : {}),
};

const t0 = Date.now();
const log = (...a) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

/** A tenant beside the measured one, so the indexes have some depth: visitors, half with a conversation of 3 messages. */
const SEED_SQL = (n) => `
  insert into accounts (id, widget_key) values ('00000000-0000-0000-0000-00000000beef', 'bench-seed-key');
  insert into visitors (account_id, token_hash, name, email, country, device, current_page, created_at, last_seen_at)
  select '00000000-0000-0000-0000-00000000beef', md5('seed' || i), 'Visitor ' || i, 'visitor' || i || '@mail.example',
         (array['NG','US','GB','DE','FR','IN','BR','KE'])[1 + i % 8], (array['desktop','mobile','tablet'])[1 + i % 3], 'https://shop.example/' || i,
         now() - make_interval(secs => i * 60), now() - make_interval(secs => i * 30)
  from generate_series(1, ${n}) i;
  insert into conversations (account_id, visitor_id, status, last_message, last_message_at, created_at, first_visitor_message_at)
  select account_id, id, 'resolved', 'last words', created_at + interval '5 minutes', created_at, created_at
  from visitors where account_id = '00000000-0000-0000-0000-00000000beef' and right(token_hash, 1) < '8';
  insert into messages (account_id, conversation_id, sender_type, message, created_at)
  select c.account_id, c.id, case when k = 2 then 'user' else 'visitor' end, 'Message ' || k || ' about my order ' || c.id, c.created_at + make_interval(secs => k * 30)
  from conversations c, generate_series(1, 3) k where c.account_id = '00000000-0000-0000-0000-00000000beef';`;

async function openVariant(engine, name, changes) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-writes-'));
  let pgdb;
  let database;
  if (engine === 'postgres') {
    pgdb = await createDatabase();
    database = await openPostgres(pgdb.url);
  } else {
    database = await openPglite(undefined);
  }
  await database.migrate();
  // The driver itself (pg's pool or PGlite): plain SQL, several statements allowed in exec.
  const client = database.db.$client;
  const q = async (text) => (await client.query(text)).rows;
  const exec = (text) => (engine === 'postgres' ? client.query(text) : client.exec(text));
  await exec(SEED_SQL(SEED));
  for (const c of changes) await q(c);
  if (engine === 'postgres') {
    await q('create extension if not exists pg_walinspect');
    // Autovacuum writes WAL whenever it likes: off for this database's tables (vacuumed once here).
    for (const { t } of await q("select tablename as t from pg_tables where schemaname = 'public'")) await q(`alter table "${t}" set (autovacuum_enabled = off)`);
  }
  await q('vacuum analyze');
  const app = await buildApp({ config: testConfig(dataDir), database, logger: false });
  await app.ready();
  const inject = async (method, url, { token, body } = {}) => {
    const res = await app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(body ? { payload: body } : {}) });
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res.json();
  };
  const owner = await inject('POST', '/api/vms/register', {
    body: { name: 'Writes Owner', email: `writes-${Date.now()}-${Math.random().toString(36).slice(2)}@bench.example`, password: 'Bench-pass-1!', password_confirmation: 'Bench-pass-1!' },
  });
  const accountId = owner.user.account_id;
  const [{ widget_key: key }] = await q(`select widget_key from accounts where id = '${accountId}'`);
  const [{ oid }] = await q('select oid from pg_database where datname = current_database()');
  const indexes = (await q("select count(*)::int n from pg_indexes where tablename = 'visitors'"))[0].n;
  log(`${engine} ${name}: ${indexes} indexes on visitors`);
  return {
    engine, name, app, database, q, inject, accountId, key, dbOid: oid, visitorIndexes: indexes,
    async close() {
      await app.close();
      await database.close();
      if (pgdb) await pgdb.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until what the calls caused has run: the outbox, the push outbox and the due jobs empty (twice, 100 ms apart). */
async function settle(v) {
  let quiet = 0;
  for (let i = 0; i < 300 && quiet < 2; i++) {
    const [r] = await v.q(`select (select count(*) from outbox)::int + (select count(*) from push_outbox)::int
      + (select count(*) from jobs where status = 'running' or (status = 'pending' and run_at <= now()))::int as n`);
    quiet = r.n === 0 ? quiet + 1 : 0;
    await sleep(100);
  }
}

const lsn = async (v) => (await v.q('select pg_current_wal_lsn()::text as l'))[0].l;

/** This database's WAL records between two LSNs (PostgreSQL: the cluster's WAL holds other databases' too). */
async function walOf(v, from, to) {
  const rows = await v.q(`
    with r as (
      select xid, resource_manager as rm, record_length as len, fpi_length as fpi, regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)') as rel
      from pg_get_wal_records_info('${from}', '${to}')
    ), mine as (select * from r where rel[1]::oid = ${v.dbOid}),
    xids as (select distinct xid from mine where xid <> '0')
    select coalesce(c.relname, m.rm) as what, m.rm, count(*)::int as records, sum(m.len)::bigint as bytes, sum(m.fpi)::bigint as fpi
    from mine m left join pg_class c on c.relfilenode = m.rel[2]::oid
    group by 1, 2
    union all
    select 'commit', 'Transaction', count(*)::int, coalesce(sum(len), 0)::bigint, 0 from r where rm = 'Transaction' and xid in (select xid from xids)`);
  const out = { bytes: 0, fpi: 0, btree: 0, gin: 0, byRel: {} };
  for (const r of rows) {
    out.bytes += Number(r.bytes);
    out.fpi += Number(r.fpi);
    if (r.rm === 'Btree') out.btree += r.records;
    if (r.rm === 'Gin') out.gin += r.records;
    out.byRel[r.what] = { records: r.records, bytes: Number(r.bytes), fpi: Number(r.fpi) };
  }
  return out;
}

/** One phase on one variant: its calls (timed each), settled, and the WAL they wrote. */
async function phase(v, calls) {
  await settle(v);
  const from = await lsn(v);
  const times = [];
  for (const call of calls) {
    const s = performance.now();
    await call();
    times.push(performance.now() - s);
  }
  await settle(v);
  const to = await lsn(v);
  const [{ d }] = await v.q(`select pg_wal_lsn_diff('${to}', '${from}')::bigint as d`);
  return { lsnBytes: Number(d), wal: v.engine === 'postgres' ? await walOf(v, from, to) : null, times };
}

let round = 0;
/** New visitors, their first messages (new chats), more messages, a page event each: N of each. */
async function runRound(v) {
  round++;
  const tokens = [];
  const visitorsPhase = await phase(
    v,
    Array.from({ length: N }, (_, i) => async () => {
      const r = await v.inject('POST', '/api/widget/visitors', { body: { unique_code: v.key, page_url: `https://shop.example/r${round}/${i}` } });
      tokens.push(r.data.visitor_token);
    }),
  );
  const chats = await phase(v, tokens.map((token, i) => () => v.inject('POST', '/api/widget/messages', { token, body: { message: `Hello, a question about my order ${i}` } })));
  const messageCalls = [];
  for (let k = 0; k < MESSAGES; k++) for (const [i, token] of tokens.entries()) messageCalls.push(() => v.inject('POST', '/api/widget/messages', { token, body: { message: `Message ${k} about my refund ${i}` } }));
  const msgs = await phase(v, messageCalls);
  const pages = await phase(v, tokens.map((token, i) => () => v.inject('PATCH', '/api/widget/visitor', { token, body: { page_url: `https://shop.example/r${round}/${i}/next` } })));
  return { 'new visitor': [visitorsPhase, N], 'new chat (first message)': [chats, N], message: [msgs, N * MESSAGES], 'page event': [pages, N] };
}

/** The two statements this change touches, alone: createVisitor (INSERT) and updateVisitor (a page: UPDATE), alternating blocks. */
async function timeStatements(variants) {
  const events = { emit: async () => {} };
  const out = new Map(variants.map((v) => [v.name, { insert: [], update: [] }]));
  const BLOCK = 50;
  for (let done = 0; done < TIMED; done += BLOCK) {
    const order = (done / BLOCK) % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) {
      const made = [];
      for (let i = 0; i < BLOCK; i++) {
        const s = performance.now();
        const { visitor } = await createVisitor(v.database.db, { accountId: v.accountId, ip: '203.0.113.9', userAgent: 'Mozilla/5.0', name: '', email: '', pageUrl: 'https://shop.example/', referrer: '', locale: 'en' });
        out.get(v.name).insert.push(performance.now() - s);
        made.push(visitor);
      }
      for (const [i, visitor] of made.entries()) {
        const s = performance.now();
        await updateVisitor({ db: v.database.db, events }, visitor, { pageUrl: `https://shop.example/p${done + i}` });
        out.get(v.name).update.push(performance.now() - s);
      }
    }
  }
  return out;
}

const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);
const p90 = (xs) => percentile([...xs].sort((a, b) => a - b), 90);
const f0 = (x) => Math.round(x).toLocaleString('en-US');
const f2 = (x) => x.toFixed(3);

for (const engine of ENGINES) {
  const variants = [];
  try {
    for (const [name, changes] of Object.entries(VARIANTS)) variants.push(await openVariant(engine, name, changes));
    for (const v of variants) {
      log(`${engine} warm-up: ${v.name}`);
      await runRound(v);
    }
    // Per variant and phase: sums over the rounds.
    const sums = new Map(variants.map((v) => [v.name, {}]));
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        log(`${engine} round ${r + 1}: ${v.name}`);
        const res = await runRound(v);
        const acc = sums.get(v.name);
        for (const [p, [m, n]] of Object.entries(res)) {
          const a = (acc[p] ??= { n: 0, lsn: 0, bytes: 0, fpi: 0, btree: 0, gin: 0, times: [], byRel: {} });
          a.n += n;
          a.lsn += m.lsnBytes;
          a.times.push(...m.times);
          if (m.wal) {
            a.bytes += m.wal.bytes;
            a.fpi += m.wal.fpi;
            a.btree += m.wal.btree;
            a.gin += m.wal.gin;
            for (const [rel, x] of Object.entries(m.wal.byRel)) {
              const b = (a.byRel[rel] ??= { records: 0, bytes: 0, fpi: 0 });
              b.records += x.records;
              b.bytes += x.bytes;
              b.fpi += x.fpi;
            }
          }
        }
      }
    }
    log(`${engine}: timing the statements`);
    const stmt = await timeStatements(variants);

    console.log(`\n## ${engine}: ${N} visitors x ${ROUNDS} rounds per variant, ${MESSAGES} messages each, beside a tenant of ${SEED} visitors; ${os.loadavg()[0].toFixed(1)} load`);
    const pg = engine === 'postgres';
    console.log(
      pg
        ? '| per call | variant | WAL bytes (this database, no full-page images) | full-page images (as checkpoints fell) | B-tree records | GIN records | call p50 ms |'
        : '| per call | variant | WAL bytes (LSN) | call p50 ms |',
    );
    console.log(pg ? '|---|---|---|---|---|---|---|' : '|---|---|---|---|');
    for (const p of Object.keys(sums.get(variants[0].name))) {
      for (const v of variants) {
        const a = sums.get(v.name)[p];
        const per = (x) => x / a.n;
        console.log(
          pg
            ? `| ${p} | ${v.name} | ${f0(per(a.bytes - a.fpi))} | ${f0(per(a.fpi))} | ${per(a.btree).toFixed(2)} | ${per(a.gin).toFixed(2)} | ${f2(median(a.times))} |`
            : `| ${p} | ${v.name} | ${f0(per(a.lsn))} | ${f2(median(a.times))} |`,
        );
      }
    }
    if (pg) {
      // The visitors' relations per new visitor and per page event, to see each index's part.
      for (const p of ['new visitor', 'page event']) {
        console.log(`\n${engine}, ${p}: WAL bytes per call on visitors' relations (records / bytes, full-page images apart)`);
        for (const v of variants) {
          const a = sums.get(v.name)[p];
          const rels = Object.entries(a.byRel)
            .filter(([rel]) => process.env.BENCH_WRITES_ALL_RELS || rel.startsWith("visitors"))
            .sort()
            .map(([rel, x]) => `${rel} ${(x.records / a.n).toFixed(2)}/${f0((x.bytes - x.fpi) / a.n)}+${f0(x.fpi / a.n)}`);
          console.log(`- ${v.name}: ${rels.join(', ')}`);
        }
      }
    }
    console.log(`\n${engine}: the statements alone (${TIMED} each per variant, alternating blocks of 50), ms`);
    console.log('| variant | createVisitor p50 | p90 | updateVisitor (page) p50 | p90 |');
    console.log('|---|---|---|---|---|');
    for (const v of variants) {
      const s = stmt.get(v.name);
      console.log(`| ${v.name} | ${f2(median(s.insert))} | ${f2(p90(s.insert))} | ${f2(median(s.update))} | ${f2(p90(s.update))} |`);
    }
  } finally {
    for (const v of variants) await v.close().catch((e) => log('close failed', e.message));
  }
}
process.exit(0);
