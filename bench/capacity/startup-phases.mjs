// One start of the built server cut into its steps, as server/index.ts runs them; prints a JSON
// list of { step, ms, rss, heap } on stdout. Usage: node startup-phases.mjs embedded|postgres
// (env: BENCH_DATA_DIR, and BENCH_DB_URL for postgres). Used by startup.mjs.
import path from 'node:path';
import { ROOT } from '../lib.mjs';

const mode = process.argv[2];
const steps = [];
let last = performance.now();
let lastCpu = process.cpuUsage();
const mark = (step) => {
  const now = performance.now();
  const cpu = process.cpuUsage(lastCpu);
  const m = process.memoryUsage();
  // CPU of the whole process (every thread: WebAssembly compiles in the background too).
  steps.push({ step, ms: now - last, cpuMs: (cpu.user + cpu.system) / 1000, rss: m.rss, heap: m.heapUsed + m.external });
  last = performance.now();
  lastCpu = process.cpuUsage();
};

const dist = (p) => path.join(ROOT, 'server/dist', p);
const { loadConfig } = await import(dist('config.js'));
const { openDatabase, openPostgres } = await import(dist('db/client.js'));
mark('import config + db/client (drizzle, pg, PGlite JS)');
const { buildApp } = await import(dist('app.js'));
mark('import app.js (every route and what it imports)');
const config = loadConfig({ DATA_DIR: process.env.BENCH_DATA_DIR, LOG_LEVEL: 'warn', ...(mode === 'postgres' ? { DATABASE_URL: process.env.BENCH_DB_URL } : {}) });
const { TEMPLATE_DIR } = await import(dist('db/pgliteTemplate.js'));
const fromTemplate = mode !== 'postgres' && (await import('node:fs')).existsSync(`${TEMPLATE_DIR}.json`);
const database = mode === 'postgres' ? await openPostgres(process.env.BENCH_DB_URL) : await openDatabase(config);
mark(mode === 'postgres' ? 'open the pool' : `open PGlite (${fromTemplate ? 'copied from the build\'s template' : 'initdb'}, WASM)`);
await database.migrate();
mark(mode === 'postgres' || !fromTemplate ? 'migrations (an empty database)' : 'migrations (none left to apply)');
const app = await buildApp({ config, database, logger: false });
mark('buildApp (plugins, routes, jobs, Socket.IO)');
await app.listen({ port: 0, host: '127.0.0.1' });
mark('listen (ready hooks)');
await new Promise((r) => setTimeout(r, 3000));
global.gc?.();
mark('3 s idle');
process.stdout.write(JSON.stringify(steps));
await app.close();
await database.close();
process.exit(0);
