import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import type { RedisClientType } from 'redis';
import { STORAGE_QUOTA_REACHED } from '@parley/shared';
import type { UploadsConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { accountStorage, storedFiles } from '../db/schema.js';
import { HttpError } from '../errors.js';
import { openStorageBackend, type StorageBackend } from '../storage/backend.js';
import { UploadBudgets, type Uploader } from '../storage/budgets.js';
import { removeStoredFile } from '../storage/cleanup.js';
import { checkDimensions } from '../storage/images.js';
import { thumbnailPathOf } from '../storage/paths.js';
import { storageQuotaBytes } from '../storage/quota.js';
import { Thumbnailer } from '../storage/thumbnails.js';
import { randomId } from './secrets.js';

export { thumbnailPathOf };

const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf', txt: 'text/plain' };
/** The Content-Type a stored file is served with (storage/backend.ts writes it beside the bytes in a bucket). */
export const mimeOf = (ext: string) => MIME[ext.toLowerCase()] ?? 'application/octet-stream';

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
 * record and the account's usage in one transaction, then the files in the backend: the local
 * folder (one volume shared by all nodes in docker-compose.yml) or, with STORAGE_URL, an
 * S3-compatible bucket (storage/backend.ts). Paths are `<account id>/<random>.<ext>`:
 * unguessable, and an account's files go with it. Files nothing refers to are removed by the
 * `storage.sweep` job (storage/cleanup.ts).
 */
export class Storage {
  /** The local folder (DATA_DIR/storage); it holds the files unless STORAGE_URL names a bucket. */
  readonly root: string;
  /** Where the bytes are: read, stream, size, delete and list go through it. */
  readonly backend: StorageBackend;
  readonly budgets: UploadBudgets;
  private readonly thumbnailer = new Thumbnailer();

  constructor(private readonly deps: StorageDeps) {
    this.root = deps.config.root;
    this.backend = openStorageBackend(deps.config.root, deps.config.url);
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
      await this.backend.put(rel, bytes, mimeOf(ext));
      const thumb = thumbnailPathOf(rel);
      // A small image is its own thumbnail (on the local folder a hard link: no space).
      if (thumbnail) await this.backend.put(thumb, thumbnail, mimeOf(thumbnailPathOf(rel).split('.').pop() ?? ext));
      else if (withThumbnail) await this.backend.copy(rel, thumb);
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
    await this.backend.deletePrefix(`${accountId}/`);
  }

  /** A stored file's bytes (undefined when there is none), whichever backend holds them. */
  read(rel: string): Promise<Buffer | undefined> {
    return this.backend.read(rel);
  }

  /** A stored file as a stream with its size (downloads). */
  open(rel: string): Promise<{ body: Readable; size: number } | undefined> {
    return this.backend.open(rel);
  }

  /** A stored file's size; undefined when there is none. */
  size(rel: string): Promise<number | undefined> {
    return this.backend.size(rel);
  }

  /** The local path of a stored file (the local folder only: other backends have none). */
  fullPath(rel: string): string {
    if (this.backend.kind !== 'local') throw new Error('fullPath: uploads are not on the local folder (STORAGE_URL)');
    return `${this.root}/${rel}`;
  }
}
