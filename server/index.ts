import fs from 'node:fs/promises';
import { buildApp } from './app.js';
import { loadConfigOrExit, publicUrlOf } from './config.js';
import { openDatabase } from './db/client.js';

/** `npm start`: validate config, open and migrate the database, listen. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  await fs.mkdir(config.dataDir, { recursive: true });
  const database = await openDatabase(config);
  await database.migrate();
  const app = await buildApp({ config, database });
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Parley is running at ${publicUrlOf(config)} (${database.kind})`);
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
