// Another tenant's console, timed: GET /api/vms/user and GET /api/vms/conversations in turn,
// two at a time, from its own address (127.0.0.250), in its own process so the flood's work
// never delays its clock. Parent messages: { from, to } -> { n, p50, p99, max, errors, times }
// (times: every call's duration in the window, sorted, for the parent's confidence intervals).
// Usage: node victim.mjs <base> <token>
import http from 'node:http';
import { percentile } from '../lib.mjs';

const [base, token] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4, localAddress: '127.0.0.250' });
const PATHS = ['/api/vms/user', '/api/vms/conversations'];
const samples = []; // [endedAt, ms, ok]

function timed(path) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${base}${path}`, { agent, headers: { authorization: `Bearer ${token}` }, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve([Date.now(), performance.now() - t0, res.statusCode === 200]));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve([Date.now(), performance.now() - t0, false]));
  });
}

let stop = false;
async function worker(offset) {
  for (let i = offset; !stop; i++) {
    samples.push(await timed(PATHS[i % PATHS.length]));
    await new Promise((r) => setTimeout(r, 50)); // ~ 2 x 15 calls/s: a busy agent's console, not a load test
  }
}

process.on('message', (m) => {
  if (m?.cmd === 'stop') {
    stop = true;
    agent.destroy();
    process.disconnect();
    return;
  }
  const inWindow = samples.filter(([at]) => at >= m.from && at <= m.to);
  const times = inWindow.map(([, t]) => t).sort((a, b) => a - b);
  const slowest = [...inWindow].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([at, t]) => [at - t - m.from, t]);
  process.send({
    n: times.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times.at(-1) ?? Number.NaN,
    errors: inWindow.filter(([, , ok]) => !ok).length,
    times,
    slowest,
  });
});

void worker(0);
void worker(1);
process.send({ ready: true });
