import fs from 'node:fs/promises';
import { buildApp } from './app.js';
import { loadConfigOrExit, publicUrlOf } from './config.js';
import { openDatabase } from './db/client.js';
import { loadSniffer } from './plugins/uploads.js';
import { loadNodemailer } from './services/mail.js';
import { SecretsKeyError } from './services/secrets.js';

/** `npm start`: validate config, open and migrate the database, listen. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  await fs.mkdir(config.dataDir, { recursive: true });
  const database = await openDatabase(config);
  await database.migrate();
  const app = await buildApp({ config, database });
  let stopping = false;
  // SIGTERM (rolling restart): drain within SHUTDOWN_GRACE_MS; past it, exit anyway.
  // SIGINT (a developer's Ctrl-C) does the same; a second signal exits at once.
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    const graceMs = config.shutdownGraceMs;
    setTimeout(() => {
      app.log.error({ graceMs }, 'drain did not finish within SHUTDOWN_GRACE_MS: exiting');
      process.exit(1);
    }, graceMs).unref();
    app.log.info({ signal, graceMs }, 'draining');
    // The database closes last, with a little of the grace period kept for it.
    const report = await app.drain({ graceMs: Math.max(500, graceMs - 500) });
    app.log.info(report, 'drained');
    await database.close().catch(() => {});
    process.exit(report.closed ? 0 : 1);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // What requests would otherwise load on first use: compiling file-type (the first upload) and
  // nodemailer (the first email) holds this thread 100-350 ms, stalling every call in flight on a
  // node just (re)started. Loaded here, before the node listens and its readiness says yes.
  await Promise.all([loadSniffer(), loadNodemailer()]);
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Parley is running at ${publicUrlOf(config)} (${database.kind})`);
}

void main().catch((e) => {
  // A wrong SECRETS_KEY is the operator's to fix: its message, not a stack.
  console.error(e instanceof SecretsKeyError ? `Parley cannot start: ${e.message}` : e);
  process.exit(1);
});
