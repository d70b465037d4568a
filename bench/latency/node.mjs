// One server node for the latency benchmark, in its own process (its own event loop, as in
// production). Usage: node node.mjs parley|bare  (env: BENCH_DB_URL, BENCH_REDIS_URL, BENCH_DATA_DIR)
// BENCH_SERVER_ROOT: another checkout's root to run its built server (server/dist, migrations),
// e.g. `main` built into a copy for a before/after pair.
// Sends { port } over IPC once listening; exits on SIGTERM.
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createAdapter } from '@socket.io/redis-adapter';
import { createClient } from 'redis';
import { Server } from 'socket.io';
import { answerEventLoopDelay, ROOT } from '../lib.mjs';

const mode = process.argv[2];
const redisUrl = process.env.BENCH_REDIS_URL;
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT ? path.resolve(process.env.BENCH_SERVER_ROOT) : ROOT;

/**
 * Diagnostics (BENCH_COUNT_QUERIES=/tmp/q): counts the SQL statements this node sends, by
 * text, and writes them to <prefix>.<pid> on exit: how many round trips a message costs.
 */
async function countQueries(prefix) {
  const pgmod = (await import('pg')).default;
  const counts = new Map();
  const original = pgmod.Client.prototype.query;
  pgmod.Client.prototype.query = function (q, ...rest) {
    const text = (typeof q === 'string' ? q : (q?.text ?? '')).replace(/\s+/g, ' ').trim().slice(0, 160);
    counts.set(text, (counts.get(text) ?? 0) + 1);
    return original.call(this, q, ...rest);
  };
  process.on('SIGTERM', () => {
    const lines = [...counts].sort((a, b) => b[1] - a[1]).map(([text, n]) => `${n}\t${text}`);
    writeFileSync(`${prefix}.${process.pid}`, `${lines.join('\n')}\n`);
  });
}

async function parley() {
  if (process.env.BENCH_COUNT_QUERIES) await countQueries(process.env.BENCH_COUNT_QUERIES);
  const { buildApp } = await import(path.join(SERVER_ROOT, 'server/dist/app.js'));
  const { openPostgres } = await import(path.join(SERVER_ROOT, 'server/dist/db/client.js'));
  const { loadConfig } = await import(path.join(SERVER_ROOT, 'server/dist/config.js'));
  const database = await openPostgres(process.env.BENCH_DB_URL);
  await database.migrate(); // both nodes at once: the advisory lock serializes them
  const config = loadConfig({
    DATA_DIR: process.env.BENCH_DATA_DIR,
    REDIS_URL: redisUrl,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    REGISTER_LIMIT_PER_IP: '100000',
    LOGIN_LIMIT_PER_IP: '100000',
    LOGIN_LIMIT_PER_EMAIL: '100000',
    // Every load-generator client is 127.0.0.1: the widget's per-IP and per-visitor limits would refuse it.
    WIDGET_LIMIT_PER_IP: '10000000',
    WIDGET_LIMIT_PER_VISITOR: '10000000',
    WIDGET_NEW_VISITORS_PER_IP: '10000000',
    WIDGET_SOCKETS_PER_IP: '1000000',
    SOCKET_HANDSHAKES_PER_IP: '1000000',
    // The warm-up opens every visitor's chat at once (hundreds of one account's new chats in a
    // second): the bench measures chats under way, not the new-chat budget and the account's
    // write lane that hold a flood of new chats (with them, the first rate measured met the
    // warm-up's refused chats: a 2 s stall and 429s). A chat under way passes neither.
    WIDGET_NEW_CHATS_PER_ACCOUNT: '10000000',
    WIDGET_NEW_CHATS_BURST: '10000000',
    WIDGET_WRITES_PER_ACCOUNT: '10000',
    WIDGET_WRITE_SHARE: '100',
  });
  const app = await buildApp({ config, database, logger: Boolean(process.env.BENCH_LOG_LEVEL) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    port: app.server.address().port,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** The baseline: plain Socket.IO, Redis adapter on the same Redis, no database, no auth. */
async function bare() {
  const server = http.createServer();
  const io = new Server(server, { serveClient: false });
  const pub = createClient({ url: redisUrl });
  const sub = pub.duplicate();
  pub.on('error', () => {});
  sub.on('error', () => {});
  await Promise.all([pub.connect(), sub.connect()]);
  io.adapter(createAdapter(pub, sub, { key: 'bare:io' }));
  io.on('connection', (socket) => {
    // An "account" room per group, like Parley's console room: each message reaches one agent.
    const room = `agents:${socket.handshake.auth.room ?? 'all'}`;
    if (socket.handshake.auth.role === 'agent') socket.join(room);
    socket.on('message.send', (payload, ack) => {
      io.to(room).emit('message.created', { message: payload });
      if (typeof ack === 'function') ack({ ok: true });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    async close() {
      io.local.disconnectSockets(true);
      await new Promise((r) => io.close(() => r()));
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}

try {
  const node = mode === 'parley' ? await parley() : await bare();
  process.on('SIGTERM', () => {
    // A push still in flight when app.close() has quit the adapter's Redis clients rejects with
    // ClientClosedError and nobody catches it (a server shutdown-order issue, reported): only
    // during shutdown, ignore it so the benchmark ends cleanly.
    process.on('unhandledRejection', (err) => {
      if (err?.constructor?.name !== 'ClientClosedError' && !/client is closed/i.test(String(err?.message))) throw err;
    });
    node.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  });
  answerEventLoopDelay(); // bench/polling/run.mjs reads this process's event-loop delay
  process.send({ port: node.port });
} catch (err) {
  process.send({ error: String(err?.stack ?? err) });
  process.exit(1);
}
