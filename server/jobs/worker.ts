import Fastify from 'fastify';
import { loadConfigOrExit } from '../config.js';
import { openDatabase } from '../db/client.js';
import { loggerOptions } from '../plugins/requestLog.js';
import { openSecretBox } from '../services/secrets.js';
import { createJobRunner } from './plugin.js';

/**
 * `npm run worker`: only the job workers, no HTTP server, so operators can scale them apart
 * from the web process (then set JOBS_WORKERS=false on the web process).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.redisUrl && !config.databaseUrl) {
    // The embedded database belongs to the server process: a second process cannot open it.
    console.error('npm run worker needs REDIS_URL (or DATABASE_URL); without them the server runs the jobs itself.');
    process.exit(1);
  }
  const log = Fastify({ logger: loggerOptions(config.logLevel) }).log;
  const database = await openDatabase(config);
  await database.migrate();
  await openSecretBox(config, database.db); // the web process's key, or no start
  // This process exists to run jobs, whatever JOBS_WORKERS says for the web process.
  const runner = await createJobRunner(config, database.db, log);
  runner.startRelay();
  await runner.startWorkers();
  log.info(`Parley worker is running (${runner.kind}, ${database.kind})`);
  const shutdown = async (signal: string) => {
    log.info({ signal }, 'worker shutting down');
    await runner.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
