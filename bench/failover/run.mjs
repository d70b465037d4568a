// Failover: two Parley nodes (own processes) on PostgreSQL and a private redis-server, widget
// sockets split over both, every agent socket on node B, steady visitor -> agent messages; node A
// is killed outright (SIGKILL) mid-stream. Its widget sockets come back on B (the load balancer's
// job, played here by the client) and resend what was not acked (the widget's outbox).
// Prints: time until every socket is back; delivery (agent receive time - message stored time)
// p50/p99/max of the messages stored around the kill; lost and doubled (must be 0); the REST calls
// the recovery caused (each reconnecting widget's one catch-up; full reloads asked by sync.required).
// Run: node bench/failover/run.mjs   (after `npx turbo run build --filter=@parley/server`;
// needs PostgreSQL on 127.0.0.1:5432 and redis-server on the PATH). 127.0.0.1 only, about a minute.
// Options (env): BENCH_VISITORS=2000, BENCH_AGENTS=50, BENCH_RATE=100 (messages/s),
// BENCH_BEFORE_S=5 and BENCH_AFTER_S=10 (sending before and after the kill).
// Targets: every socket back; stored-around-the-kill delivered within 1 s (max); lost 0, doubled 0;
// no full reload (sync.required) at all.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { io } from 'socket.io-client';
import { BENCH_DIR, createDatabase, ms, percentile, sleep, startChild, startRedis, benchContext } from '../lib.mjs';

const VISITORS = Number(process.env.BENCH_VISITORS ?? 2000);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const BEFORE_S = Number(process.env.BENCH_BEFORE_S ?? 5);
const AFTER_S = Number(process.env.BENCH_AFTER_S ?? 10);
/** Messages stored within this of the kill are "around the kill". */
const AROUND_MS = 2000;

const connectSocket = (base, auth) =>
  new Promise((resolve, reject) => {
    const s = io(base, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
    s.once('connect', () => resolve(s));
    s.once('connect_error', (e) => reject(new Error(`socket connect failed: ${e.message}`)));
  });

async function request(method, base, url, body, token) {
  const res = await fetch(base + url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

const sockets = [];
const { ctx, cleanup } = benchContext(() => {
  for (const s of sockets) s.close();
});

try {
  ctx.redis = await startRedis();
  ctx.db = await createDatabase();
  ctx.dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-failover-'));
  const env = { BENCH_DB_URL: ctx.db.url, BENCH_REDIS_URL: ctx.redis.url, BENCH_DATA_DIR: ctx.dataDir };
  const script = path.join(BENCH_DIR, 'latency/node.mjs');
  const opts = { env, execArgv: ['--disable-warning=FSTDEP023'] };
  const [nodeA, nodeB] = await Promise.all([startChild(script, ['parley'], opts), startChild(script, ['parley'], opts)]);
  ctx.children.push(nodeA, nodeB);
  const A = `http://127.0.0.1:${nodeA.ready.port}`;
  const B = `http://127.0.0.1:${nodeB.ready.port}`;
  console.log(`Failover: ${VISITORS} widget sockets (half on node A, half on B), ${AGENTS} agent sockets on B, ${RATE} messages/s;`);
  console.log(`node A killed (SIGKILL) after ${BEFORE_S} s, sending goes on ${AFTER_S} s. Database ${ctx.db.name}, private Redis.\n`);

  // Accounts (one agent each) and their visitors.
  const db = new pg.Pool({ connectionString: ctx.db.url, max: 5 });
  const accounts = await pool([...Array(AGENTS).keys()], 5, async (a) => {
    const password = 'Bench-pass-123!';
    const reg = await request('POST', B, '/api/vms/register', { name: `Owner ${a}`, email: `failover-${Date.now()}-${a}@example.com`, password, password_confirmation: password });
    const { rows } = await db.query('select widget_key from accounts where id = $1', [reg.user.account_id]);
    return { token: reg.token, widgetKey: rows[0].widget_key };
  });
  const visitors = await pool([...Array(VISITORS).keys()], 20, async (i) => {
    const account = accounts[i % AGENTS];
    const v = await request('POST', i % 2 === 0 ? A : B, '/api/widget/visitors', { unique_code: account.widgetKey, name: `Visitor ${i}` });
    return { i, account, token: v.data.visitor_token, id: v.data.visitor_id, home: i % 2 === 0 ? 'A' : 'B' };
  });

  // Agents on B: every push they get, with its receive time.
  const received = new Map(); // message id -> [receive times]
  let syncRequired = 0;
  const agentSockets = await pool(accounts, 10, async (a) => {
    const s = await connectSocket(B, { token: a.token });
    s.on('message.created', (p) => {
      const id = p?.message?.id;
      if (id === undefined) return;
      received.set(id, [...(received.get(id) ?? []), Date.now()]);
    });
    s.on('sync.required', () => syncRequired++);
    return s;
  });
  sockets.push(...agentSockets);

  // Widgets: a socket per visitor on its home node; after a drop, back on B after the widget's
  // jittered first wait (0.5-1 s), then one catch-up call (the widget's sync on connect).
  let catchUps = 0;
  let reloads = 0;
  let killedAt = 0;
  let lastBack = 0;
  let down = 0;
  const widgets = visitors.map((v) => ({ v, socket: undefined, connected: false }));
  const attach = (w, s) => {
    w.socket = s;
    w.connected = true;
    sockets.push(s);
    s.on('sync.required', () => {
      syncRequired++;
      reloads++;
      void request('GET', B, '/api/widget/messages', undefined, w.v.token).catch(() => {});
    });
    s.on('disconnect', () => {
      w.connected = false;
      down++;
      const wait = 500 + Math.random() * 500;
      const again = async () => {
        try {
          attach(w, await connectSocket(B, { widget_key: w.v.account.widgetKey, visitor_token: w.v.token }));
          down--;
          lastBack = Date.now();
          catchUps++;
          await request('GET', B, '/api/widget/messages', undefined, w.v.token).catch(() => {});
        } catch {
          setTimeout(again, 1000 + Math.random() * 1000);
        }
      };
      setTimeout(again, wait);
    });
  };
  await pool(widgets, 20, async (w) => attach(w, await connectSocket(w.v.home === 'A' ? A : B, { widget_key: w.v.account.widgetKey, visitor_token: w.v.token })));

  // Steady sending; a message is resent (same client_id) until acked, like the widget's outbox.
  const firstSent = new Map(); // client_id -> time
  const acked = new Map(); // client_id -> stored message id
  let running = true;
  let seq = 0;
  const sendOne = (w, clientId, text) =>
    new Promise((resolve) => {
      if (!w.connected) return resolve(false);
      w.socket.timeout(3000).emit('message.send', { message: text, client_id: clientId }, (err, ack) => {
        if (!err && ack?.ok) {
          acked.set(clientId, ack.data.id);
          resolve(true);
        } else resolve(false);
      });
    });
  const outbox = [];
  const start = Date.now();
  const loop = (async () => {
    while (running) {
      const due = Math.floor(((Date.now() - start) / 1000) * RATE);
      while (seq < due) {
        const w = widgets[seq % widgets.length];
        const clientId = `fo-${seq}`;
        const text = `failover message ${seq}`;
        firstSent.set(clientId, Date.now());
        const job = (async () => {
          while (!(await sendOne(w, clientId, text))) await sleep(200);
        })();
        outbox.push(job);
        seq++;
      }
      await sleep(5);
    }
  })();
  await sleep(BEFORE_S * 1000);
  nodeA.child.kill('SIGKILL');
  killedAt = Date.now();
  await sleep(AFTER_S * 1000);
  running = false;
  await loop;
  const settle = Date.now() + 15_000;
  await Promise.race([Promise.all(outbox), sleep(15_000)]);
  while (Date.now() < settle && down > 0) await sleep(100);
  await sleep(2000); // last pushes

  // What the database holds for these client ids.
  const { rows } = await db.query("select id, client_id, extract(epoch from created_at) * 1000 as at from messages where client_id like 'fo-%'");
  await db.end();
  const byClient = new Map();
  for (const r of rows) byClient.set(r.client_id, [...(byClient.get(r.client_id) ?? []), { id: Number(r.id), at: Number(r.at) }]);
  const storedTwice = [...byClient.values()].filter((l) => l.length > 1).length;
  const stored = rows.map((r) => ({ id: Number(r.id), at: Number(r.at) }));
  const lost = stored.filter((m) => !received.has(m.id)).length;
  const doubledPushes = [...received.values()].filter((t) => t.length > 1).length;
  const around = stored.filter((m) => Math.abs(m.at - killedAt) <= AROUND_MS && received.has(m.id));
  const delays = Float64Array.from(around.map((m) => received.get(m.id)[0] - m.at)).sort();
  const unacked = seq - [...firstSent.keys()].filter((c) => acked.has(c)).length;

  const back = down === 0 ? `${((lastBack - killedAt) / 1000).toFixed(2)} s` : `NOT ALL BACK (${down} still down)`;
  const line = (k, v, t = '') => console.log(`${k.padEnd(48)}${String(v).padStart(16)}  ${t}`);
  line('messages sent (distinct client ids)', seq);
  line('  stored / acked / never acked', `${stored.length} / ${acked.size} / ${unacked}`);
  line('time until every socket is back (from the kill)', back, 'target: all back');
  line(`delivery of the ${around.length} stored within ${AROUND_MS / 1000} s of the kill  p50`, ms(percentile(delays, 50)));
  line('                                              p99', ms(percentile(delays, 99)));
  line('                                              max', ms(delays[delays.length - 1]), 'target: <= 1000 ms');
  line('lost (stored, never at the agent)', lost, 'target: 0');
  line('doubled (client id stored twice)', storedTwice, 'target: 0');
  line('pushed twice to an agent (merged by id)', doubledPushes, 'at least once: a push sent before the kill, its row not yet deleted');
  line('sync.required received', syncRequired, 'target: 0 (no reload storm)');
  line('REST calls caused by the recovery', catchUps + reloads, `${catchUps} cursor catch-ups (one per reconnected widget), ${reloads} full reloads`);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cleanup();
}
