import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTemplate, seedFromTemplate } from './pgliteTemplate.js';

/**
 * The embedded database's first start from the build's template: an empty DATA_DIR gets the
 * migrated database without initdb; a template from other migrations, or a folder that holds a
 * database already, is left alone (PGlite starts as before).
 */

let root: string;
let migrations: string;
let template: string;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-template-'));
  migrations = path.join(root, 'migrations');
  template = path.join(root, 'dist', 'pglite-template');
  await fs.mkdir(migrations);
  await fs.mkdir(path.dirname(template));
  await fs.writeFile(path.join(migrations, '0001_a.sql'), 'create table a (id int primary key); insert into a values (1);');
  await fs.writeFile(path.join(migrations, '0002_b.sql'), 'create table b (id int references a (id));');
  await makeTemplate(template, migrations);
}, 120_000);
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function open(dir: string): Promise<{ tables: string[]; applied: string[]; a: number }> {
  const db = new PGlite(dir);
  try {
    const tables = (await db.query<{ t: string }>("select table_name as t from information_schema.tables where table_schema = 'public' order by 1")).rows.map((r) => r.t);
    const applied = tables.includes('parley_migrations') ? (await db.query<{ name: string }>('select name from parley_migrations order by name')).rows.map((r) => r.name) : [];
    const a = tables.includes('a') ? (await db.query<{ n: number }>('select count(*)::int as n from a')).rows[0]!.n : 0;
    return { tables, applied, a };
  } finally {
    await db.close();
  }
}

describe('the PGlite template', () => {
  it('fills an empty DATA_DIR with the migrated database, private to its user, and leaves the template as it was', async () => {
    for (const premade of [false, true]) {
      const pgdata = path.join(root, `data-${premade}`, 'pgdata');
      // A missing folder, and the empty one an earlier start may have left.
      await fs.mkdir(premade ? pgdata : path.dirname(pgdata), { recursive: true });
      expect(await seedFromTemplate(pgdata, template, migrations)).toBe(true);
      expect((await fs.stat(pgdata)).mode & 0o777).toBe(0o700);
      expect((await fs.stat(path.join(pgdata, 'PG_VERSION'))).mode & 0o777).toBe(0o600);
      expect(await fs.readdir(path.dirname(pgdata))).toEqual(['pgdata']); // nothing left beside it
      expect(await open(pgdata)).toEqual({ tables: ['a', 'b', 'parley_migrations'], applied: ['0001_a.sql', '0002_b.sql'], a: 1 });
    }
    // Copies, not moves: the template serves the next empty folder too, unchanged.
    expect((await fs.stat(template)).mode & 0o777).toBe(0o755);
    expect(await fs.readdir(template)).toContain('PG_VERSION');
  }, 120_000);

  it('leaves a folder that holds a database alone', async () => {
    const pgdata = path.join(root, 'existing', 'pgdata');
    await fs.mkdir(pgdata, { recursive: true });
    const db = new PGlite(pgdata);
    await db.exec('create table mine (id int)');
    await db.close();
    expect(await seedFromTemplate(pgdata, template, migrations)).toBe(false);
    expect((await open(pgdata)).tables).toEqual(['mine']);
  }, 120_000);

  it('is not used when the migrations changed since it was made, or when there is none', async () => {
    const changed = path.join(root, 'migrations-changed');
    await fs.cp(migrations, changed, { recursive: true });
    await fs.writeFile(path.join(changed, '0003_c.sql'), 'create table c (id int);');
    const pgdata = path.join(root, 'stale', 'pgdata');
    expect(await seedFromTemplate(pgdata, template, changed)).toBe(false);
    expect(await fs.readdir(path.dirname(pgdata)).catch(() => [])).toEqual([]);
    expect(await seedFromTemplate(pgdata, path.join(root, 'no-template'), migrations)).toBe(false);
  });
});
