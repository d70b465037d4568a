import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { REPO_ROOT } from '../paths.js';
import { MIGRATIONS_DIR, runMigrations } from './migrate.js';

/**
 * The embedded database's first start without initdb (issue 15): the build makes an empty,
 * migrated PGlite data folder once (`server/dist/pglite-template`), and a start on an empty
 * DATA_DIR copies it instead of running initdb and every migration in the WebAssembly
 * PostgreSQL (most of that start's time, and memory the process keeps). The template is used
 * only when its stamp (PGlite's version, each migration's name and text) matches this
 * server's; otherwise, or when there is none, PGlite starts as before.
 */
export const TEMPLATE_DIR = path.join(REPO_ROOT, 'server', 'dist', 'pglite-template');
const stampFile = (template: string) => `${template}.json`;

/** PGlite's version and every migration, hashed: a template made from anything else is not used. */
export async function templateStamp(migrationsDir: string = MIGRATIONS_DIR): Promise<string> {
  const require = createRequire(import.meta.url);
  const pkg = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const hash = createHash('sha256').update(JSON.parse(await fs.readFile(pkg, 'utf8')).version);
  const files = (await fs.readdir(migrationsDir)).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  for (const f of files) hash.update(`\0${f}\0`).update(await fs.readFile(path.join(migrationsDir, f)));
  return hash.digest('hex');
}

/** Every folder and file under `dir` (the folder itself included) gets `dirMode` / `fileMode`. */
async function chmodTree(dir: string, dirMode: number, fileMode: number): Promise<void> {
  await fs.chmod(dir, dirMode);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await chmodTree(full, dirMode, fileMode);
    else await fs.chmod(full, fileMode);
  }
}

/** Builds the template (the build runs this: `node dist/db/buildTemplate.js`). */
export async function makeTemplate(template: string = TEMPLATE_DIR, migrationsDir: string = MIGRATIONS_DIR): Promise<void> {
  const tmp = `${template}.tmp-${process.pid}`;
  await fs.rm(tmp, { recursive: true, force: true });
  const stamp = await templateStamp(migrationsDir);
  const client = new PGlite(tmp);
  try {
    await client.waitReady;
    await runMigrations(
      (text) => client.exec(text),
      async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
      migrationsDir,
    );
  } finally {
    await client.close();
  }
  await fs.rm(path.join(tmp, 'postmaster.pid'), { force: true });
  // Readable by whoever runs the server (an image built as root runs as another user); a copy
  // is made private again (seedFromTemplate).
  await chmodTree(tmp, 0o755, 0o644);
  await fs.rm(template, { recursive: true, force: true });
  await fs.rename(tmp, template);
  await fs.writeFile(stampFile(template), JSON.stringify({ stamp }));
}

/**
 * Fills `pgdata` (a DATA_DIR's database folder) from the template when the folder is missing
 * or empty and the template is current: true when it did. Copied beside the folder and renamed
 * into place, so a start stopped half way leaves no half database behind.
 */
export async function seedFromTemplate(pgdata: string, template: string = TEMPLATE_DIR, migrationsDir: string = MIGRATIONS_DIR): Promise<boolean> {
  const entries = await fs.readdir(pgdata).catch(() => undefined);
  if (entries && entries.length > 0) return false; // a database (or something else): not ours to replace
  let stamp: unknown;
  try {
    stamp = (JSON.parse(await fs.readFile(stampFile(template), 'utf8')) as { stamp?: unknown }).stamp;
  } catch {
    return false; // no template (not built, or a build that could not make one)
  }
  if (stamp !== (await templateStamp(migrationsDir))) return false;
  const tmp = `${pgdata}.tmp-${process.pid}`;
  try {
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.cp(template, tmp, { recursive: true });
    await chmodTree(tmp, 0o700, 0o600);
    if (entries) await fs.rmdir(pgdata);
    await fs.rename(tmp, pgdata);
    return true;
  } catch {
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => {});
    return false;
  }
}
