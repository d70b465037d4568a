import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';

/**
 * Where upload bytes live (PRODUCT.md section 11, issue 15): the local folder by default
 * (DATA_DIR/storage, one volume shared by the nodes), or an S3-compatible bucket
 * (`STORAGE_URL=s3://bucket[/prefix]?endpoint=...&region=...`) for nodes without a shared
 * disk. Paths are relative (`<account id>/<random>.<ext>`); records, quotas and sweeps live in
 * the database (services/storage.ts, storage/cleanup.ts) whichever backend holds the bytes.
 */
export interface StorageBackend {
  readonly kind: 'local' | 's3';
  /** Writes a new file (never overwrites an existing one on the local folder). */
  put(rel: string, bytes: Buffer, contentType?: string): Promise<void>;
  /** `to` holds the same bytes as `from` (a hard link on the local folder: no space). */
  copy(from: string, to: string): Promise<void>;
  /** The whole file; undefined when there is none. */
  read(rel: string): Promise<Buffer | undefined>;
  /** The file as a stream with its size; undefined when there is none. */
  open(rel: string): Promise<{ body: Readable; size: number } | undefined>;
  /** Its size in bytes; undefined when there is none. */
  size(rel: string): Promise<number | undefined>;
  /** Removes a file; a missing one is fine. */
  delete(rel: string): Promise<void>;
  /** Removes every file under `prefix` (an account's folder). */
  deletePrefix(prefix: string): Promise<void>;
  /** Every file under `prefix`, with its size (sweeps, adopting files stored before records). */
  list(prefix?: string): AsyncIterable<{ rel: string; size: number }>;
}

const missing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

export class LocalBackend implements StorageBackend {
  readonly kind = 'local' as const;
  constructor(readonly root: string) {}

  private full(rel: string): string {
    const full = path.join(this.root, rel);
    if (!full.startsWith(this.root + path.sep)) throw new Error(`storage path outside the root: ${rel}`);
    return full;
  }

  async put(rel: string, bytes: Buffer): Promise<void> {
    const full = this.full(rel);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, bytes, { flag: 'wx' });
  }

  async copy(from: string, to: string): Promise<void> {
    await fs.link(this.full(from), this.full(to));
  }

  async read(rel: string): Promise<Buffer | undefined> {
    return fs.readFile(this.full(rel)).catch((e) => (missing(e) ? undefined : Promise.reject(e)));
  }

  async open(rel: string): Promise<{ body: Readable; size: number } | undefined> {
    const size = await this.size(rel);
    return size === undefined ? undefined : { body: createReadStream(this.full(rel)), size };
  }

  async size(rel: string): Promise<number | undefined> {
    const s = await fs.stat(this.full(rel)).catch((e) => (missing(e) ? undefined : Promise.reject(e)));
    return s?.isFile() ? s.size : undefined;
  }

  async delete(rel: string): Promise<void> {
    await fs.rm(this.full(rel), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await fs.rm(this.full(prefix.replace(/\/+$/, '')), { recursive: true, force: true });
  }

  async *list(prefix = ''): AsyncIterable<{ rel: string; size: number }> {
    const start = prefix ? this.full(prefix.replace(/\/+$/, '')) : this.root;
    const entries = await fs.readdir(start, { recursive: true, withFileTypes: true }).catch((e) => (missing(e) ? [] : Promise.reject(e)));
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      const s = await fs.stat(full).catch(() => undefined);
      if (s) yield { rel: path.relative(this.root, full).split(path.sep).join('/'), size: s.size };
    }
  }
}

export interface S3Location {
  bucket: string;
  /** Key prefix inside the bucket ('' or ending in '/'). */
  prefix: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

/** `s3://bucket[/prefix]?endpoint=http://host:port&region=us-east-1[&force_path_style=false]`; credentials from the AWS_* environment. */
export function parseStorageUrl(url: string): S3Location {
  const u = new URL(url);
  if (u.protocol !== 's3:' || !u.hostname) throw new Error('STORAGE_URL must look like s3://bucket?endpoint=...&region=...');
  const prefix = decodeURIComponent(u.pathname).replace(/^\/+/, '');
  const endpoint = u.searchParams.get('endpoint') ?? undefined;
  return {
    bucket: u.hostname,
    prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix,
    endpoint,
    region: u.searchParams.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
    // S3-compatible servers (MinIO, Ceph, test servers) address buckets by path.
    forcePathStyle: (u.searchParams.get('force_path_style') ?? (endpoint ? 'true' : 'false')) === 'true',
  };
}

type Sdk = typeof import('@aws-sdk/client-s3');

const notThere = (sdk: Sdk, e: unknown) =>
  e instanceof sdk.NoSuchKey || e instanceof sdk.NotFound || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

export class S3Backend implements StorageBackend {
  readonly kind = 's3' as const;
  /**
   * The AWS SDK and its client, loaded at the first call: the SDK is a large import that a node
   * on the local folder (the default) never needs, and that would slow every start.
   */
  private loaded: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  constructor(readonly where: S3Location) {}

  private s3(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.loaded ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: this.where.region,
        endpoint: this.where.endpoint,
        forcePathStyle: this.where.forcePathStyle,
        // Checksums only where S3 requires them: S3-compatible servers do not all take the SDK's default trailers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    }));
    return this.loaded;
  }

  private key(rel: string): string {
    if (rel.split('/').some((part) => part === '..' || part === '.')) throw new Error(`storage path not allowed: ${rel}`);
    return this.where.prefix + rel;
  }

  async put(rel: string, bytes: Buffer, contentType?: string): Promise<void> {
    const { sdk, client } = await this.s3();
    await client.send(new sdk.PutObjectCommand({ Bucket: this.where.bucket, Key: this.key(rel), Body: bytes, ContentType: contentType, ContentLength: bytes.length }));
  }

  async copy(from: string, to: string): Promise<void> {
    const bytes = await this.read(from);
    if (!bytes) throw new Error(`storage copy: no file at ${from}`);
    await this.put(to, bytes);
  }

  async read(rel: string): Promise<Buffer | undefined> {
    const file = await this.open(rel);
    if (!file) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of file.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async open(rel: string): Promise<{ body: Readable; size: number } | undefined> {
    const { sdk, client } = await this.s3();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.where.bucket, Key: this.key(rel) }));
      const body = res.Body instanceof Readable ? res.Body : Readable.fromWeb((res.Body as { transformToWebStream(): ReadableStream }).transformToWebStream() as never);
      return { body, size: Number(res.ContentLength ?? 0) };
    } catch (e) {
      if (notThere(sdk, e)) return undefined;
      throw e;
    }
  }

  async size(rel: string): Promise<number | undefined> {
    const { sdk, client } = await this.s3();
    try {
      const res = await client.send(new sdk.HeadObjectCommand({ Bucket: this.where.bucket, Key: this.key(rel) }));
      return Number(res.ContentLength ?? 0);
    } catch (e) {
      if (notThere(sdk, e)) return undefined;
      throw e;
    }
  }

  async delete(rel: string): Promise<void> {
    const { sdk, client } = await this.s3();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.where.bucket, Key: this.key(rel) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys: string[] = [];
    for await (const { rel } of this.list(prefix)) keys.push(this.key(rel));
    const { sdk, client } = await this.s3();
    // At most 1,000 keys per request (S3's limit).
    for (let i = 0; i < keys.length; i += 1000) {
      await client.send(new sdk.DeleteObjectsCommand({ Bucket: this.where.bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
    }
  }

  async *list(prefix = ''): AsyncIterable<{ rel: string; size: number }> {
    const { sdk, client } = await this.s3();
    let token: string | undefined;
    do {
      const res = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.where.bucket, Prefix: this.key(prefix), ContinuationToken: token }));
      for (const o of res.Contents ?? []) if (o.Key) yield { rel: o.Key.slice(this.where.prefix.length), size: Number(o.Size ?? 0) };
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }
}

/** Backends by local root: code handed only the storage root (jobs, retention) finds the app's backend. */
const byRoot = new Map<string, StorageBackend>();

/** The backend `STORAGE_URL` names (the local folder `root` when unset), remembered for `storageAt(root)`. */
export function openStorageBackend(root: string, url: string | undefined): StorageBackend {
  const backend = url ? new S3Backend(parseStorageUrl(url)) : new LocalBackend(root);
  byRoot.set(root, backend);
  return backend;
}

/** The backend opened for this storage root (the local folder when none was opened here). */
export function storageAt(root: string): StorageBackend {
  return byRoot.get(root) ?? new LocalBackend(root);
}
