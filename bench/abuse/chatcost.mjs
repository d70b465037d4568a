// What one new visitor and one new chat cost the server, jobs included (issue 11: the visitor and
// mail floods are made of them; a chat accepted within its account's budget is the most costly
// thing an anonymous caller can cause). Runs the built server (server/dist) on 127.0.0.1:
//   node bench/abuse/chatcost.mjs
// Modes (BENCH_CHATCOST_MODES): embedded (PGlite, jobs in process), postgres (jobs in the
// database), redis (PostgreSQL + a private redis-server: BullMQ). For each: an idle window gives
// the server's background CPU rate; then BENCH_CHATCOST_N visitors are created, then N chats
// (a visitor and its first message, one at a time, paced under the new-chat budget), each phase
// followed by BENCH_CHATCOST_SETTLE_MS for the jobs it caused. Printed per visitor and per chat:
// the server's CPU (its background rate over the phase taken out), and on PostgreSQL its backends'
// CPU and the transactions committed (pg_stat_database).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { backendPids, cpuMs, cpuOf, cpuSpent, createDatabase, loadAverage, sleep, startRedis } from '../lib.mjs';
import { call, closeAgents } from './http.mjs';
import { registerAccount, serverEntry, startServer } from './server.mjs';

const MODES = (process.env.BENCH_CHATCOST_MODES ?? 'embedded,postgres,redis').split(',').filter(Boolean);
const N = Number(process.env.BENCH_CHATCOST_N ?? 30);
const SETTLE_MS = Number(process.env.BENCH_CHATCOST_SETTLE_MS ?? 5000);
// The new-chat budget refills at 2 a second: 0.3 s apart keeps every chat accepted.
const CHAT_GAP_MS = 300;
const NODE_ARGS = (process.env.BENCH_CHATCOST_NODE_ARGS ?? '').split(' ').filter(Boolean);
// BENCH_CHATCOST_SERVER: another build's entry point (e.g. the previous commit's, to compare back to back).
const SERVER = serverEntry(process.env.BENCH_CHATCOST_SERVER);

/** Transactions committed in the database so far (backends report theirs within a second: the settle covers it). */
async function commits(dbUrl) {
  if (!dbUrl) return 0;
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const { rows } = await c.query('select xact_commit from pg_stat_database where datname = current_database()');
    return Number(rows[0].xact_commit);
  } finally {
    await c.end();
  }
}

async function runMode(mode) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-chatcost-'));
  const cleanup = [() => rm(dataDir, { recursive: true, force: true })];
  try {
    const env = { DATA_DIR: dataDir };
    let db;
    if (mode !== 'embedded') {
      db = await createDatabase();
      cleanup.unshift(() => db.drop());
      env.DATABASE_URL = db.url;
    }
    if (mode === 'redis') {
      const redis = await startRedis();
      cleanup.unshift(() => redis.stop());
      env.REDIS_URL = redis.url;
    }
    const server = await startServer({ entry: SERVER, env, nodeArgs: NODE_ARGS });
    cleanup.unshift(() => server.stop());
    const { key } = await registerAccount(server.base, 'Chat Cost');
    await sleep(2000); // the registration's own jobs

    const pids = async () => [server.pid, ...(db ? await backendPids(db.name) : [])];
    const measure = async (run) => {
      const before = cpuOf(await pids());
      const nodeBefore = cpuMs(server.pid);
      const commitsBefore = await commits(db?.url);
      const t0 = performance.now();
      const n = await run();
      await sleep(SETTLE_MS);
      const seconds = (performance.now() - t0) / 1000;
      const after = cpuOf(await pids());
      return { n, seconds, node: cpuMs(server.pid) - nodeBefore, all: cpuSpent(before, after), commits: (await commits(db?.url)) - commitsBefore };
    };
    const idle = await measure(async () => 1); // the settle alone: the background rate
    const rate = { node: idle.node / idle.seconds, all: idle.all / idle.seconds, commits: idle.commits / idle.seconds };
    const visitor = (i, run) => call(server.base, 'POST', '/api/widget/visitors', { from: `127.7.${run}.${i + 1}`, json: { unique_code: key } });
    const visitors = await measure(async () => {
      for (let i = 0; i < N; i++) if ((await visitor(i, 0)).status !== 201) throw new Error('a visitor was refused: lower BENCH_CHATCOST_N');
      return N;
    });
    const chats = await measure(async () => {
      for (let i = 0; i < N; i++) {
        const v = await visitor(i, 1);
        const m = await call(server.base, 'POST', '/api/widget/messages', { from: `127.7.1.${i + 1}`, token: v.body.data.visitor_token, json: { message: 'Hello, is anyone there?' } });
        if (m.status !== 201) throw new Error(`a chat was refused (${m.status}): raise the gap`);
        await sleep(CHAT_GAP_MS);
      }
      return N;
    });
    const per = (p, k) => (p[k] - rate[k] * p.seconds) / p.n;
    const line = (label, p) =>
      `   ${label.padEnd(10)} server ${per(p, 'node').toFixed(1).padStart(5)} ms CPU` +
      (db ? `, with PostgreSQL ${per(p, 'all').toFixed(1).padStart(5)} ms, ${per(p, 'commits').toFixed(1)} transactions` : '') +
      `   (${p.n} in ${p.seconds.toFixed(1)} s with the settle)`;
    console.log(`\n== ${mode} (load ${loadAverage()}; background: server ${rate.node.toFixed(0)} ms CPU a second)`);
    console.log(line('visitor', visitors));
    console.log(line('new chat', chats));
  } finally {
    closeAgents();
    for (const f of cleanup) await f().catch(() => {});
  }
}

console.log(`Cost of a new visitor and of a new chat (its visitor included, jobs and emails included), ${N} of each, ${SETTLE_MS} ms settle`);
for (const mode of MODES) await runMode(mode);
