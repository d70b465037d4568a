// Every benchmark, one after another: node bench/run-all.mjs [--no-build] [--only=a,b] [--ai-eval] [--abuse]
// Builds the server and the widget first (turbo), installs the competitor widgets into
// bench/node_modules when missing, and builds the console into a temporary directory.
// Needs PostgreSQL on 127.0.0.1:5432 and redis-server on the PATH. Takes about 5 minutes.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DIR, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const benches = [
  { name: 'widget-weight', script: 'widget-weight/compare.mjs', args: [] },
  { name: 'latency', script: 'latency/run.mjs', args: [] },
  { name: 'memory', script: 'memory/run.mjs', args: [] },
  { name: 'routes', script: 'routes/run.mjs', args: ['--build'] },
  ...(args.includes('--ai-eval') ? [{ name: 'ai-eval', script: 'ai-eval/run.mjs', args: [] }] : []),
  // Optional: floods against the default limits while another tenant's console is timed (~4 min).
  ...(args.includes('--abuse') ? [{ name: 'abuse', script: 'abuse/run.mjs', args: [] }] : []),
].filter((b) => !only || only.includes(b.name));

const run = (cmd, cmdArgs, cwd = ROOT) => spawnSync(cmd, cmdArgs, { cwd, stdio: 'inherit' }).status;

if (!args.includes('--no-build')) {
  console.log('== building server and widget (turbo)');
  if (run('npx', ['turbo', 'run', 'build', '--filter=@parley/server', '--filter=@parley/widget', '--output-logs=errors-only']) !== 0) {
    console.error('build failed');
    process.exit(1);
  }
}
if (benches.some((b) => b.name === 'widget-weight') && !existsSync(path.join(BENCH_DIR, 'node_modules/@rocket.chat/livechat'))) {
  console.log('== installing the competitor widgets into bench/node_modules');
  run('npm', ['ci', '--prefix', BENCH_DIR, '--ignore-scripts', '--no-audit', '--no-fund']);
}

const failed = [];
for (const b of benches) {
  console.log(`\n== ${b.name}: node bench/${b.script} ${b.args.join(' ')}\n`);
  const t0 = Date.now();
  const status = run(process.execPath, [path.join(BENCH_DIR, b.script), ...b.args]);
  console.log(`\n(${b.name}: ${((Date.now() - t0) / 1000).toFixed(0)} s${status === 0 ? '' : `, exit ${status}`})`);
  if (status !== 0) failed.push(b.name);
}
if (failed.length) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
