import { inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/client.js';
import { accounts, accountStorage, storedFiles } from '../db/schema.js';
import { holderOf } from './cleanup.js';
import { thumbnailPathOf } from './paths.js';

/** Written in the storage root once every file there is on record: later starts skip the walk. */
export const ADOPTED_MARKER = '.usage-recorded-v1';
const BATCH = 200;
const ACCOUNT_DIR = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const THUMBNAIL = /-t\.[a-z0-9]+$/;

async function sizeOf(full: string): Promise<{ size: number; ino: number; mtime: Date } | undefined> {
  try {
    const s = await fs.stat(full);
    return s.isFile() ? { size: s.size, ino: s.ino, mtime: s.mtime } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Files uploaded before storage was accounted (stored_files, issue 11) are counted against their
 * account's usage, once: each file on disk without a record gets one, with what holds it. A file
 * nothing refers to is recorded as checked and never removed by the sweep: it was a user's
 * upload, and only a newer upload's orphan is known to be garbage. Idempotent (unique paths),
 * safe on several nodes at once; the marker file ends the walk for good.
 */
export async function recordExistingFiles(db: Db, root: string, log?: FastifyBaseLogger): Promise<{ files: number; bytes: number }> {
  const marker = path.join(root, ADOPTED_MARKER);
  if (await sizeOf(marker)) return { files: 0, bytes: 0 };
  let files = 0;
  let bytes = 0;
  const dirs = (await fs.readdir(root, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory() && ACCOUNT_DIR.test(d.name));
  for (const dir of dirs) {
    const accountId = dir.name;
    const [account] = await db.select({ id: accounts.id }).from(accounts).where(sql`${accounts.id} = ${accountId}`);
    if (!account) continue; // a deleted account's leftovers are not anyone's usage
    const names = (await fs.readdir(path.join(root, accountId))).filter((n) => !THUMBNAIL.test(n) && !n.startsWith('.'));
    for (let i = 0; i < names.length; i += BATCH) {
      const rels = names.slice(i, i + BATCH).map((n) => `${accountId}/${n}`);
      const known = new Set((await db.select({ path: storedFiles.path }).from(storedFiles).where(inArray(storedFiles.path, rels))).map((r) => r.path));
      const rows: (typeof storedFiles.$inferInsert)[] = [];
      for (const rel of rels) {
        if (known.has(rel)) continue;
        const file = await sizeOf(path.join(root, rel));
        if (!file) continue;
        const thumb = await sizeOf(path.join(root, thumbnailPathOf(rel)));
        // A small image's thumbnail is a hard link to it: no space of its own.
        const total = file.size + (thumb && thumb.ino !== file.ino ? thumb.size : 0);
        const holder = await holderOf(db, { accountId, path: rel, createdAt: file.mtime });
        rows.push({
          accountId,
          path: rel,
          bytes: total,
          createdAt: file.mtime,
          checkedAt: new Date(),
          heldBy: holder?.heldBy ?? null,
          messageId: holder?.heldBy === 'message' ? holder.messageId : null,
        });
      }
      if (rows.length === 0) continue;
      await db.transaction(async (tx) => {
        const added = await tx.insert(storedFiles).values(rows).onConflictDoNothing({ target: storedFiles.path }).returning({ bytes: storedFiles.bytes });
        if (added.length === 0) return;
        const sum = added.reduce((s, r) => s + r.bytes, 0);
        await tx.insert(accountStorage).values({ accountId }).onConflictDoNothing();
        await tx
          .update(accountStorage)
          .set({ bytes: sql`${accountStorage.bytes} + ${sum}`, files: sql`${accountStorage.files} + ${added.length}` })
          .where(sql`${accountStorage.accountId} = ${accountId}`);
        files += added.length;
        bytes += sum;
      });
    }
  }
  await fs.writeFile(marker, `${new Date().toISOString()}\n`);
  if (files > 0) log?.info({ files, bytes }, 'uploads stored before usage was recorded now count against their accounts');
  return { files, bytes };
}
