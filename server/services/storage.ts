import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { RedisClientType } from 'redis';
import { STORAGE_QUOTA_REACHED } from '@parley/shared';
import type { UploadsConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { accountStorage, storedFiles } from '../db/schema.js';
import { HttpError } from '../errors.js';
import { UploadBudgets, type Uploader } from '../storage/budgets.js';
import { removeStoredFile } from '../storage/cleanup.js';
import { checkDimensions } from '../storage/images.js';
import { thumbnailPathOf } from '../storage/paths.js';
import { storageQuotaBytes } from '../storage/quota.js';
import { Thumbnailer } from '../storage/thumbnails.js';
import { randomId } from './secrets.js';

export { thumbnailPathOf };

export interface StorageDeps {
  db: Db;
  config: UploadsConfig;
  redis: RedisClientType | undefined;
  log: FastifyBaseLogger;
  /** Called after each stored file (the app schedules the account's cleanup sweep). */
  afterSave?: ((accountId: string) => Promise<void>) | undefined;
}

/**
 * The one way uploads are stored, for every route that accepts files: budgets per visitor and
 * per account (check, spend), then save(): a thumbnail, the plan's storage quota, the file's
 * record and the account's usage in one transaction, then the files on the local disk (one
 * volume shared by all nodes in docker-compose.yml). Paths are `<account id>/<random>.<ext>`:
 * unguessable, and an account's files go with it. Files nothing refers to are removed by the
 * `storage.sweep` job (storage/cleanup.ts).
 */
export class Storage {
  readonly root: string;
  readonly budgets: UploadBudgets;
  private readonly thumbnailer = new Thumbnailer();

  constructor(private readonly deps: StorageDeps) {
    this.root = deps.config.root;
    this.budgets = new UploadBudgets(deps.config, deps.redis);
  }

  /** Before reading an upload: 429 with Retry-After when a budget is already spent. */
  checkBudget(who: Uploader): Promise<void> {
    return this.budgets.check(who);
  }

  /** Once the upload's size is known and before anything is stored: spends its budgets. */
  spendBudget(who: Uploader, bytes: number): Promise<void> {
    return this.budgets.spend(who, bytes);
  }

  /**
   * Stores an image (already sniffed) and its thumbnail; 413 when the account's plan quota
   * would be exceeded, 422 when its header claims too many pixels. Returns the relative path.
   * `thumbnail: false` for images never shown large (the widget's avatar).
   */
  async save(accountId: string, bytes: Buffer, ext: string, opts: { thumbnail?: boolean; document?: boolean } = {}): Promise<string> {
    // A document (issue 13: already sniffed, uploads.ts sniffFile) has no pixels and no thumbnail.
    const withThumbnail = opts.thumbnail !== false && !opts.document;
    const { config, db } = this.deps;
    const dims = opts.document ? undefined : checkDimensions(bytes, config);
    let thumbnail: Buffer | undefined;
    try {
      thumbnail = withThumbnail && dims ? await this.thumbnailer.make(bytes, ext, dims, config) : undefined;
    } catch (err) {
      // A file whose header is fine but whose pixels do not decode: shown as it is.
      this.deps.log.warn({ err }, 'thumbnail failed');
    }
    const rel = `${accountId}/${randomId(18)}.${ext}`;
    const total = bytes.length + (thumbnail?.length ?? 0);
    const quota = await storageQuotaBytes(db, accountId, new Date());
    await db.transaction(async (tx) => {
      await tx.insert(accountStorage).values({ accountId }).onConflictDoNothing();
      const fits = quota === null ? undefined : sql`${accountStorage.bytes} + ${total} <= ${quota}`;
      const [reserved] = await tx
        .update(accountStorage)
        .set({ bytes: sql`${accountStorage.bytes} + ${total}`, files: sql`${accountStorage.files} + 1` })
        .where(and(eq(accountStorage.accountId, accountId), fits))
        .returning({ bytes: accountStorage.bytes });
      if (!reserved) throw new HttpError(413, STORAGE_QUOTA_REACHED);
      await tx.insert(storedFiles).values({ accountId, path: rel, bytes: total });
    });
    try {
      const full = this.fullPath(rel);
      await fs.mkdir(path.dirname(full), { recursive: true });
      await fs.writeFile(full, bytes, { flag: 'wx' });
      const thumb = this.fullPath(thumbnailPathOf(rel));
      // A small image is its own thumbnail: a hard link costs no space.
      if (thumbnail) await fs.writeFile(thumb, thumbnail, { flag: 'wx' });
      else if (withThumbnail) await fs.link(full, thumb);
    } catch (e) {
      await this.remove(rel).catch(() => {});
      throw e;
    }
    await this.deps.afterSave?.(accountId).catch((err) => this.deps.log.warn({ err }, 'storage sweep not scheduled'));
    return rel;
  }

  /** Removes a stored file, its thumbnail and its record, and gives its bytes back to the account. */
  remove(rel: string): Promise<void> {
    return removeStoredFile(this.deps.db, this.root, rel);
  }

  /** Stops the thumbnail worker (app close). */
  close(): Promise<void> {
    return this.thumbnailer.close();
  }

  async removeAccount(accountId: string): Promise<void> {
    await fs.rm(path.join(this.root, accountId), { recursive: true, force: true });
  }

  fullPath(rel: string): string {
    return path.join(this.root, rel);
  }
}
