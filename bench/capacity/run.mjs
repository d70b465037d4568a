// Capacity, measured (issue 15): every figure of one node and of two, each beside its target and
// the load average when it was taken. Runs, one after another, each in its own process:
//   startup   bench/capacity/startup.mjs   time to /healthz and idle RSS (embedded, PostgreSQL, bare)
//   sockets   bench/capacity/sockets.mjs   idle widget sockets at 5k/10k/20k, memory per socket beside bare Socket.IO
//   delivery  bench/latency/run.mjs        p50/p99 at 100/500/1000/2000 msg/s across two nodes beside the bare
//                                          relay, where p99 passes 50 ms, CPU and Redis commands per message
//   polling   bench/capacity/polling.mjs   CPU per poll, polls/s one node sustains with p99 <= 100 ms
// Run: node bench/capacity/run.mjs [--only=startup,sockets,delivery,polling]   (after `npm run build`;
// PostgreSQL on 127.0.0.1:5432, redis-server on the PATH). About 8-10 minutes in all.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, ROOT, kb, loadAverage, mb, ms } from '../lib.mjs';

const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const PARTS = [
  { name: 'startup', script: 'capacity/startup.mjs', env: {}, minutes: 3 },
  { name: 'sockets', script: 'capacity/sockets.mjs', env: {}, minutes: 5 },
  { name: 'delivery', script: 'latency/run.mjs', env: { BENCH_RATES: '100,500,1000,2000', BENCH_SECONDS: '5', BENCH_P99_LIMIT: '50' }, minutes: 5 },
  { name: 'polling', script: 'capacity/polling.mjs', env: {}, minutes: 5 },
].filter((p) => !only || only.includes(p.name));

/** Runs one part with its output shown; its JSON figures, or the reason it has none. */
function runPart(part, jsonFile) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH_DIR, part.script)], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...part.env, BENCH_JSON: jsonFile } });
    // Bounded: a part that hangs is stopped (by its pid; it cleans up its own children on SIGINT).
    const timer = setTimeout(() => {
      console.error(`\n${part.name}: over ${part.minutes} minutes, stopping it`);
      process.kill(child.pid, 'SIGINT');
      setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 15_000).unref();
    }, part.minutes * 60_000);
    child.once('exit', async (code) => {
      clearTimeout(timer);
      try {
        resolve({ figures: JSON.parse(await readFile(jsonFile, 'utf8')) });
      } catch {
        resolve({ error: `exited with ${code}, no figures` });
      }
    });
  });
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-capacity-'));
const out = {};
const started = Date.now();
try {
  for (const part of PARTS) {
    console.log(`\n======== ${part.name}: node bench/${part.script}  (load ${loadAverage()})\n`);
    const t0 = Date.now();
    out[part.name] = await runPart(part, path.join(dir, `${part.name}.json`));
    out[part.name].seconds = (Date.now() - t0) / 1000;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

// ---- the summary: every figure beside its target ----
const lines = [];
const row = (what, measured, target, load) => lines.push([what, measured, target, load]);
const ok = (pass) => (pass ? 'ok' : 'OVER');

const st = out.startup?.figures;
if (st) {
  for (const s of st.summary) row(`start: ${s.mode}, to /healthz / idle RSS`, `${s.seconds.toFixed(2)} s / ${mb(s.rss)}`, { embedded: 'before: 5-6 s / 422 MB', postgres: 'before: 1.4-1.8 s / 131 MB', bare: 'floor: 0.35 s / 63 MB' }[s.mode] ?? '', s.load);
}
const so = out.sockets?.figures;
if (so) {
  for (const s of so.steps) {
    const ratio = Math.max(s.rssRatio, s.heapRatio);
    row(
      `idle widget sockets, one node: ${s.sockets} (${s.wanted / 1000}k asked)`,
      `${kb(s.rssPerSocket)} RSS, ${kb(s.heapPerSocket)} heap/socket (bare ${kb(s.bareRssPerSocket)}, ${kb(s.bareHeapPerSocket)}): ${s.rssRatio.toFixed(2)}x / ${s.heapRatio.toFixed(2)}x; node RSS ${mb(s.rss)}`,
      `<= 1.3x bare: ${ok(ratio <= 1.3)}`,
      s.load,
    );
  }
}
const de = out.delivery?.figures;
if (de) {
  const at = (sys, rate) => de[sys].results.find((r) => r.rate === rate);
  // Per delivered message: a rate the system did not keep up with has no meaningful figure.
  const cpu = (r, withPg) => (r.received ? (r.cpu.nodesMs + r.cpu.redisMs + (withPg ? r.cpu.pgMs : 0)) / r.received : NaN);
  const cmds = (r) => (r.received ? Object.values(r.redisCalls).reduce((a, b) => a + b, 0) / r.received : NaN);
  for (const rate of de.rates) {
    const p = at('parley', rate);
    const b = at('bare', rate);
    if (!p || !b) continue;
    const targets = [];
    if (rate === 500) targets.push(`p50 <= 3x bare: ${ok(p.p50 / b.p50 <= 3)}`, `p99 <= 20 ms: ${ok(p.p99 <= 20)}`);
    targets.push(`CPU <= 2x bare: ${ok(cpu(p, true) / cpu(b, false) <= 2)}`);
    row(
      `delivery, two nodes, ${rate} msg/s`,
      `p50 ${ms(p.p50)} / p99 ${ms(p.p99)} (bare ${ms(b.p50)} / ${ms(b.p99)}, p50 ${(p.p50 / b.p50).toFixed(2)}x); ${p.deliveredPerSec.toFixed(0)}/s delivered, ${p.late} late; CPU ${cpu(p, true).toFixed(2)} ms/msg (bare ${cpu(b, false).toFixed(2)}); Redis ${cmds(p).toFixed(2)} cmds/msg (bare ${cmds(b).toFixed(2)})`,
      targets.join(', '),
      p.load,
    );
  }
  const say = (c) => (c.over === null ? `above ${c.under}/s (top tried)` : c.under === null ? `below ${c.over}/s` : `between ${c.under} and ${c.over}/s`);
  const c = de.crossing.parley;
  row('delivery: the rate at which p99 passes 50 ms', `parley ${say(c)}; bare ${say(de.crossing.bare)}`, `>= 2000 msg/s with p99 <= 50 ms: ${ok((c.under ?? 0) >= 2000)}`, de.parley.results.at(-1).load);
  // Redis commands per message, by command, at the highest rate Parley kept up with (else the lowest).
  const kept = de.parley.results.filter((r) => r.late === 0 && r.deliveredPerSec >= 0.95 * r.rate).sort((a, b) => b.rate - a.rate);
  const r1000 = kept[0] ?? de.parley.results[0];
  const byCmd = Object.entries(r1000.redisCalls).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / r1000.received).toFixed(2)}`).join(', ');
  row(`Redis commands per message (${r1000.rate}/s, two nodes)`, byCmd || 'none', 'one publish per message', r1000.load);
}
const po = out.polling?.figures;
if (po) {
  row('REST polling, per 1,000 polling visitors (100 polls/s)', `${po.per1000.cpuMsPerPoll.toFixed(2)} ms CPU/poll (node + PostgreSQL + Redis) = ${(po.per1000.coreShare * 100).toFixed(1)} % of a core; ${po.statementsPerPoll.toFixed(2)} SQL statements, ${Object.values(po.redisPerPoll).reduce((a, b) => a + b, 0).toFixed(2)} Redis commands per poll`, '', po.per1000.load);
  const at10k = po.results.find((r) => r.visitors === 10_000);
  row(
    'REST polling: polls/s one node sustains with p99 <= 100 ms',
    po.sustained ? `${po.sustained.rate.toFixed(0)} polls/s (${po.sustained.visitors} visitors)` : 'none of the steps',
    `10,000 visitors with p99 <= 100 ms: ${at10k ? `${ms(at10k.p99)}, ${ok(at10k.p99 <= 100 && at10k.unanswered === 0)}` : 'OVER (not reached)'}`,
    po.results.at(-1).load,
  );
}

console.log(`\n======== capacity summary (${((Date.now() - started) / 60000).toFixed(1)} min; ${os.cpus().length} cores, load ${loadAverage()} at the end)\n`);
for (const [what, measured, target, load] of lines) {
  console.log(`${what}\n    ${measured}\n    ${target ? `target: ${target}; ` : ''}load ${load}`);
}
for (const [name, r] of Object.entries(out)) if (r.error) console.log(`\n${name}: ${r.error}`);
