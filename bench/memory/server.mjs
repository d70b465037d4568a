// The measured server for the memory benchmark, alone in its process (run with --expose-gc).
// Usage: node --expose-gc server.mjs parley|bare  (env for parley: BENCH_DB_URL, BENCH_DATA_DIR;
// BENCH_SERVER_ROOT: another checkout's root, to run its built server for a before/after pair)
// IPC: sends { port } when listening; answers { cmd: 'measure' } with memory after full GCs, and
// { cmd: 'snapshot', file } by writing a heap snapshot there (after the same GCs; for heapdiff.mjs).
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import http from 'node:http';
import path from 'node:path';
import { Server } from 'socket.io';
import { ROOT, sleep } from '../lib.mjs';

const mode = process.argv[2];
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT ? path.resolve(process.env.BENCH_SERVER_ROOT) : ROOT;

async function parley() {
  const { buildApp } = await import(path.join(SERVER_ROOT, 'server/dist/app.js'));
  const { openPostgres } = await import(path.join(SERVER_ROOT, 'server/dist/db/client.js'));
  const { loadConfig } = await import(path.join(SERVER_ROOT, 'server/dist/config.js'));
  const database = await openPostgres(process.env.BENCH_DB_URL);
  await database.migrate();
  // One node, no REDIS_URL: the in-memory adapter, as a single-node install runs.
  const config = loadConfig({
    DATA_DIR: process.env.BENCH_DATA_DIR,
    LOG_LEVEL: 'silent',
    REGISTER_LIMIT_PER_IP: '100000',
    // Every load-generator client is 127.0.0.1: the widget's per-IP and per-visitor limits would refuse it.
    WIDGET_LIMIT_PER_IP: '10000000',
    WIDGET_LIMIT_PER_VISITOR: '10000000',
    WIDGET_NEW_VISITORS_PER_IP: '10000000',
    WIDGET_SOCKETS_PER_IP: '1000000',
    SOCKET_HANDSHAKES_PER_IP: '1000000',
  });
  const app = await buildApp({ config, database, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: app.server.address().port, sockets: () => app.io.of('/').sockets.size };
}

/** Plain Socket.IO with default options: no auth, no rooms, no database. */
async function bare() {
  const server = http.createServer();
  const io = new Server(server, { serveClient: false });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, sockets: () => io.of('/').sockets.size };
}

async function measure(node) {
  // Several full collections, with pauses so pending socket work and finalizers settle.
  for (let i = 0; i < 4; i++) {
    global.gc();
    await sleep(250);
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, sockets: node.sockets() };
}

try {
  if (typeof global.gc !== 'function') throw new Error('run with --expose-gc');
  const node = mode === 'parley' ? await parley() : await bare();
  process.on('message', async (msg) => {
    if (msg.cmd === 'measure') process.send(await measure(node));
    if (msg.cmd === 'snapshot') {
      await measure(node);
      process.send({ file: v8.writeHeapSnapshot(msg.file) });
    }
  });
  process.on('SIGTERM', () => process.exit(0));
  process.send({ port: node.port, fdLimit: fdLimit() });
} catch (err) {
  process.send({ error: String(err?.stack ?? err) });
  process.exit(1);
}

/** This process's open-file limit (soft), from /proc. */
function fdLimit() {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[3]);
}
