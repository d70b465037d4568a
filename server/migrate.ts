import fs from 'node:fs/promises';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';

/** `npm run migrate`: applies migrations/ to DATABASE_URL, or to the embedded database in DATA_DIR. */
try {
  const config = loadConfig();
  await fs.mkdir(config.dataDir, { recursive: true });
  const database = await openDatabase(config);
  await database.migrate();
  await database.close();
  console.log(`Migrations applied (${database.kind}).`);
} catch (e) {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
}
