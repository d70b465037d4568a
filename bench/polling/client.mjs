// The polling benchmark's load generator (bench/polling/run.mjs), one slice of the visitors per
// worker thread: 10,000 visitors from one event loop that also decodes every answer make a client
// whose own lag shows up as the server's tail. Each worker has its own keep-alive pool and event
// loop, sends the polls that come due every few milliseconds, and reports per poll when it was due,
// how late it was sent (the client's lag), and how long its answer took; plus its event-loop delay.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import zlib from 'node:zlib';

/** One HTTP call on a keep-alive pool: status, headers, body text (decoded as a browser does). */
export function request(agent, port, method, url, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const text = encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw;
        resolve({ status: res.statusCode, headers: res.headers, body: text.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

/**
 * This worker's visitors each poll once per `intervalMs` at their own phase from `startAt` (epoch
 * ms, shared by all workers) for `seconds`; `writers` of them (the first ones) also send a message
 * a second between them. Polls go out on a 2 ms tick.
 */
async function run({ mode, port, visitors, phases, intervalMs, seconds, startAt, connections, writers }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const delay = monitorEventLoopDelay({ resolution: 5 });
  // Per answered poll: ms from the run's start to when it was due, ms it was sent late, ms to its answer.
  const due = [];
  const late = [];
  const took = [];
  const statuses = {};
  const errorKinds = {};
  let errors = 0;
  let writes = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const started = startAt - performance.timeOrigin;

  let skipped = 0;
  const poll = async (v, dueAt) => {
    // One poll at a time per visitor, as the widget's sync() does: a poll due while the last is
    // still in flight is skipped (counted), not queued behind it.
    if (v.busy) {
      skipped++;
      return;
    }
    v.busy = true;
    const url = `/api/widget/messages?cursor=${v.cursor}${mode === 'full' ? '&limit=100' : ''}`;
    const headers = { authorization: `Bearer ${v.token}`, 'accept-encoding': 'gzip, br' };
    // A browser's cache: the ETag of this very URL's last answer.
    if (v.etagUrl === url) headers['if-none-match'] = v.etag;
    const t0 = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const res = await request(agent, port, 'GET', url, headers);
      took.push(performance.now() - t0);
      due.push(dueAt);
      late.push(t0 - started - dueAt);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 200) {
        const page = JSON.parse(res.body);
        if (res.headers.etag) {
          v.etag = res.headers.etag;
          v.etagUrl = url;
        }
        if (mode !== 'bare' && page.next_cursor) v.cursor = page.next_cursor;
      }
    } catch (err) {
      errors++;
      const kind = String(err?.code ?? err?.message ?? err).slice(0, 60);
      errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    } finally {
      inFlight--;
      v.busy = false;
    }
  };
  const write = async (v, n) => {
    if (mode === 'bare') return;
    const res = await request(
      agent,
      port,
      'POST',
      '/api/widget/messages',
      { authorization: `Bearer ${v.token}`, 'content-type': 'application/json' },
      JSON.stringify({ message: `still there? ${n}`, client_id: `poll-${randomBytes(6).toString('hex')}` }),
    ).catch(() => ({ status: 0 }));
    if (res.status === 201) writes++;
  };

  const pending = new Set();
  const track = (p) => {
    pending.add(p);
    p.finally(() => pending.delete(p));
  };
  const order = visitors.map((_, i) => i).sort((a, b) => phases[a] - phases[b]);
  let next = 0;
  let round = 0;
  let writeAt = 0;
  let written = 0;
  while (performance.now() < started) await new Promise((r) => setTimeout(r, Math.max(1, started - performance.now())));
  delay.enable();
  while (performance.now() - started < seconds * 1000) {
    const now = performance.now() - started;
    while (order.length && phases[order[next]] + round * intervalMs <= now) {
      track(poll(visitors[order[next]], phases[order[next]] + round * intervalMs));
      if (++next === order.length) {
        next = 0;
        round++;
      }
    }
    while (writers > 0 && writeAt <= now) {
      track(write(visitors[written % writers], written));
      written++;
      writeAt += 1000 / writers;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.allSettled([...pending]);
  delay.disable();
  agent.destroy();
  return {
    due: Float64Array.from(due),
    late: Float64Array.from(late),
    took: Float64Array.from(took),
    statuses,
    errors,
    errorKinds,
    skipped,
    writes,
    maxInFlight,
    loopDelay: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
  };
}

if (!isMainThread && workerData?.pollClient) {
  run(workerData.pollClient).then(
    (result) => parentPort.postMessage(result),
    (err) => parentPort.postMessage({ error: String(err?.stack ?? err) }),
  );
}
