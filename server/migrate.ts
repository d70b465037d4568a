import fs from 'node:fs/promises';
import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';

/** `npm run migrate`: applies migrations/ to DATABASE_URL, or to the embedded database in DATA_DIR. */
const config = loadConfigOrExit();
try {
  await fs.mkdir(config.dataDir, { recursive: true });
  const database = await openDatabase(config);
  await database.migrate();
  await database.close();
  console.log(`Migrations applied (${database.kind}).`);
} catch (e) {
  console.error(e);
  process.exit(1);
}
