// The server's CPU time per refused widget call (issue 11): a figure that holds on a shared machine,
// where latencies do not. One node on PGlite (the built server, or BENCH_ABUSE_SERVER), nothing
// else calling it; for each kind of refusal the budget is spent first, then N refused calls are
// sent (20 at a time, keep-alive) and the server process's user + system CPU is divided by N.
// Usage: node bench/abuse/refusals.mjs [N=3000]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { io } from 'socket.io-client';
import { cpuMs, sleep } from '../lib.mjs';
import { call, closeAgents } from './http.mjs';
import { registerAccount, serverEntry, startServer } from './server.mjs';

const N = Number(process.argv[2] ?? 3000);
const SERVER = serverEntry(process.env.BENCH_ABUSE_SERVER);
const LOG_LEVEL = process.env.BENCH_ABUSE_LOG_LEVEL ?? 'info'; // the shipped default

async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++);
  }));
}

/** Calls `fn` `perSecond` times a second for `seconds` (within the burst buckets: the minute's or hour's budget is spent). */
async function paced(perSecond, seconds, fn) {
  const all = [];
  for (let i = 0; i < perSecond * seconds; i++) {
    all.push(fn(i));
    if (i % perSecond === perSecond - 1) await sleep(1000);
  }
  await Promise.all(all);
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-refusals-'));
const server = await startServer({ entry: SERVER, env: { LOG_LEVEL, DATA_DIR: dataDir } });
const { base } = server;
try {
  const { key } = await registerAccount(base, 'Shop', '127.0.0.2');

  /** Spends the budget with `spend`, then times N refused calls of `refused`. */
  async function measure(name, spend, refused) {
    await spend();
    // What the accepted calls left to do (jobs, pushes) goes on for a while: wait, then measure
    // the server's background rate and take it out of the figure.
    await sleep(3000);
    const idle0 = cpuMs(server.pid);
    await sleep(2000);
    const idleRate = (cpuMs(server.pid) - idle0) / 2000;
    const statuses = new Map();
    const cpu0 = cpuMs(server.pid);
    const t0 = performance.now();
    await pool(N, 20, async (i) => {
      const s = await refused(i);
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    });
    const ms = performance.now() - t0;
    const cpu = cpuMs(server.pid) - cpu0 - idleRate * ms;
    const got = [...statuses].map(([s, n]) => `${n} x ${s}`).join(', ');
    console.log(`${name.padEnd(44)} ${(cpu / N * 1000).toFixed(0).padStart(5)} us CPU per call  (${N} calls in ${(ms / 1000).toFixed(1)} s, ${got}; background ${(idleRate * 1000).toFixed(0)} ms/s taken out)`);
  }

  // A visitor over its per-visitor budget (120 a minute), sending messages over REST.
  const v = await call(base, 'POST', '/api/widget/visitors', { from: '127.0.0.20', json: { unique_code: key } });
  const token = v.body.data.visitor_token;
  await measure(
    'message over the visitor budget (REST)',
    () => paced(10, 13, (i) => call(base, 'POST', '/api/widget/messages', { from: `127.0.3.${(i % 200) + 1}`, token, json: { message: `m${i}` } })),
    async (i) => (await call(base, 'POST', '/api/widget/messages', { from: `127.0.3.${(i % 200) + 1}`, token, json: { message: `spam ${i}` } })).status,
  );
  // One address over its new-visitor budget (100 an hour).
  await measure(
    'new visitor over the per-IP budget',
    () => paced(9, 12, () => call(base, 'POST', '/api/widget/visitors', { from: '127.0.0.21', json: { unique_code: key } })),
    async () => (await call(base, 'POST', '/api/widget/visitors', { from: '127.0.0.21', json: { unique_code: key, name: 'Bot' } })).status,
  );
  // One address over its per-IP budget (600 a minute).
  await measure(
    'any widget call over the per-IP budget',
    () => paced(50, 13, () => call(base, 'GET', `/api/widget-settings?unique_code=${key}`, { from: '127.0.0.22' })),
    async () => (await call(base, 'GET', `/api/widget-settings?unique_code=${key}`, { from: '127.0.0.22' })).status,
  );
  // Socket handshakes over the per-visitor cap (3): the connection is upgraded, then refused.
  const keep = [];
  for (let i = 0; i < 3; i++) {
    const s = io(base, { auth: { widget_key: key, visitor_token: token }, transports: ['websocket'], reconnection: false, forceNew: true, localAddress: '127.0.0.23' });
    await new Promise((r) => s.once('connect', r));
    keep.push(s);
  }
  const handshakes = Math.min(N, 1000);
  const cpu0 = cpuMs(server.pid);
  let refusedSockets = 0;
  await pool(handshakes, 20, async () => {
    const s = io(base, { auth: { widget_key: key, visitor_token: token }, transports: ['websocket'], reconnection: false, forceNew: true, localAddress: '127.0.0.24' });
    await new Promise((r) => {
      s.once('connect', r);
      s.once('connect_error', () => {
        refusedSockets++;
        r();
      });
    });
    s.close();
  });
  const cpu = cpuMs(server.pid) - cpu0;
  console.log(`${'socket handshake over the per-visitor cap'.padEnd(44)} ${(cpu / handshakes * 1000).toFixed(0).padStart(5)} us CPU per call  (${handshakes} handshakes, ${refusedSockets} refused)`);
  for (const s of keep) s.close();
} finally {
  closeAgents();
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
