import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema.js';
import { FairQueue } from './fair.js';
import { runMigrations } from './migrate.js';
import { seedFromTemplate } from './pgliteTemplate.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The rows of a raw `db.execute` result (node-postgres' and PGlite's both carry `rows`). */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** A transaction or the database itself: commands accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** The scheduler in front of the connections: tenants take turns (db/fair.ts). */
  fair: FairQueue;
  /** Runs the SQL migrations under an advisory lock (safe when several nodes start at once). */
  migrate(): Promise<void>;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Pool timeouts (server/config.ts, DB_* variables): a lost database makes calls fail fast, never hang. */
export interface PoolOptions {
  /** Connections per node. */
  poolMax: number;
  /** A new connection must be ready (TCP + start-up) within this. */
  connectTimeoutMs: number;
  /** PostgreSQL cancels a statement running longer (statement_timeout); the client gives up a little later. */
  statementTimeoutMs: number;
  /** A transaction left idle this long is ended by PostgreSQL (idle_in_transaction_session_timeout). */
  idleInTransactionTimeoutMs: number;
  /** An idle pooled connection is closed after this. */
  idleTimeoutMs: number;
  /** TCP keepalive starts probing an idle connection after this. */
  keepAliveDelayMs: number;
  /** /readyz's ping and the recovery probe give up after this. */
  readyTimeoutMs: number;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = {
  poolMax: 10,
  connectTimeoutMs: 5000,
  statementTimeoutMs: 15_000,
  idleInTransactionTimeoutMs: 60_000,
  idleTimeoutMs: 30_000,
  keepAliveDelayMs: 10_000,
  readyTimeoutMs: 2000,
};

/** Raised at once, without a round trip, while the database is known to be unreachable. */
export class DatabaseUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('database unavailable', { cause });
  }
}

// Driver errors that mean "cannot reach the database", not "bad query".
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNREACHABLE_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end',
  'PGlite is closed',
];
// Reachable but cannot serve now (pool queue full, too many connections, statement timeout):
// 503 too, but no reason to stop everyone's calls.
const BUSY_CODES = new Set(['53300', '57014']);
const BUSY_MESSAGES = ['timeout exceeded when trying to connect'];

function someCause(err: unknown, test: (e: { code?: unknown; message?: unknown }) => boolean): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (test(e as { code?: unknown; message?: unknown })) return true;
  }
  return false;
}

/**
 * Whether an error (or one of its causes, as drizzle wraps driver errors) means the database
 * cannot be reached: network errors, lost or timed-out connections, SQLSTATE class 08
 * (connection exception), 57P01-57P03 (shutdown, cannot connect now). These open the breaker.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  return someCause(
    err,
    (e) =>
      e instanceof DatabaseUnavailableError ||
      (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || /^08/.test(e.code) || /^57P0[123]$/.test(e.code))) ||
      (typeof e.message === 'string' && UNREACHABLE_MESSAGES.some((m) => (e.message as string).includes(m))),
  );
}

/**
 * Whether the database cannot serve this call now: unreachable, or reachable but saturated
 * (no free connection in time, too many connections, statement timeout). The error handler
 * answers these 503, never 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return (
    isDatabaseUnreachable(err) ||
    someCause(
      err,
      (e) =>
        (typeof e.code === 'string' && BUSY_CODES.has(e.code)) ||
        (typeof e.message === 'string' && BUSY_MESSAGES.some((m) => (e.message as string).includes(m))),
    )
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(new Error(`no answer within ${ms} ms`))), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type PoolClient = pg.PoolClient & { release: (err?: Error | boolean) => void };

/** Runs of a statement PostgreSQL chose as a deadlock's victim, after the first. */
const DEADLOCK_RETRIES = 2;

async function retryOnDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      // The driver's own error here (errors.ts's pgErrorCode also reads drizzle's wrapper, and imports this module).
      if (attempt >= DEADLOCK_RETRIES || (err as { code?: unknown } | null)?.code !== '40P01') throw err;
      // A few milliseconds, spread: two victims of one cycle do not meet again at once.
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 8 * (attempt + 1)));
    }
  }
}

/**
 * A pool that fails fast while the database is unreachable. The first sign of a lost database
 * (a connection error, a timed-out query, a ping without answer) opens the breaker: checkouts
 * fail at once with DatabaseUnavailableError, and every connection opened before is dropped
 * instead of reused (a failover leaves sockets that never answer again). A probe on a fresh
 * connection every second closes the breaker as soon as the database answers.
 */
class GuardedPool extends pg.Pool {
  private down = false;
  private generation = 0;
  private readonly generations = new WeakMap<pg.PoolClient, number>();
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /**
   * The pool's waiters, served round-robin over tenants (db/fair.ts) instead of first come first
   * served: one slot per connection, held from checkout to release (a transaction keeps its
   * connection, and its slot, until it ends).
   */
  readonly fair: FairQueue;

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly opts: PoolOptions,
  ) {
    super({ ...clientConfig, max: opts.poolMax, idleTimeoutMillis: opts.idleTimeoutMs });
    this.fair = new FairQueue(opts.poolMax);
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    this.on('error', (err) => this.noteError(err));
    this.on('connect', (client) => {
      this.generations.set(client, this.generation);
      this.watchQueries(client);
    });
  }

  get isDown(): boolean {
    return this.down;
  }

  /** Opens the breaker when `err` says the database is unreachable. */
  noteError(err: unknown): void {
    if (this.closed || this.down || !isDatabaseUnreachable(err) || err instanceof DatabaseUnavailableError) return;
    this.trip();
  }

  trip(): void {
    if (this.closed || this.down) return;
    this.down = true;
    this.generation++;
    this.scheduleProbe();
  }

  /** Queries report their errors, so a timed-out query opens the breaker for everyone. */
  private watchQueries(client: pg.PoolClient): void {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const last = args.at(-1);
      if (typeof last === 'function') {
        args[args.length - 1] = (err: unknown, res: unknown) => {
          if (err) this.noteError(err);
          (last as (e: unknown, r: unknown) => void)(err, res);
        };
        return original(...args);
      }
      const result = original(...args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, (err: unknown) => this.noteError(err));
      }
      return result;
    };
  }

  // The overloads of pg.Pool#connect (promise, or node-style callback as Pool#query uses it).
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
    // biome-ignore lint/suspicious/noConfusingVoidType: pg.Pool#connect returns nothing when given a callback
  ): Promise<pg.PoolClient> | void {
    const checkout = this.checkout();
    if (!callback) return checkout;
    checkout.then(
      (client) => callback(undefined, client, (release?: unknown) => client.release(release as Error | boolean | undefined)),
      (err: Error) => callback(err, undefined, () => {}),
    );
  }

  private async checkout(): Promise<pg.PoolClient> {
    if (this.down) throw new DatabaseUnavailableError();
    // Waiting for a turn counts against the connect timeout, as waiting in pg.Pool's queue did.
    const started = Date.now();
    const slot = await this.fair.acquire(undefined, this.opts.connectTimeoutMs, () => new Error('timeout exceeded when trying to connect'));
    try {
      for (;;) {
        if (this.down) throw new DatabaseUnavailableError();
        let client: PoolClient;
        try {
          client = (await super.connect()) as PoolClient;
        } catch (err) {
          this.noteError(err);
          throw err;
        }
        const born = this.generations.get(client);
        if (born !== this.generation) {
          client.release(new Error('connection opened before the database was lost'));
          if (Date.now() - started > this.opts.connectTimeoutMs) throw new DatabaseUnavailableError();
          continue;
        }
        // A client checked out before the breaker opened is dropped when it comes back; either
        // way its slot goes to the next lane's waiter.
        const release = client.release.bind(client);
        let released = false;
        client.release = (err?: Error | boolean) => {
          if (!released) {
            released = true;
            slot();
          }
          return release(err || (this.generation !== born ? new Error('stale connection') : undefined));
        };
        return client;
      }
    } catch (err) {
      slot();
      throw err;
    }
  }

  /** One round trip on a fresh connection (not the pool's): is the database back? */
  private async probe(): Promise<void> {
    const client = new pg.Client({ ...this.clientConfig, connectionTimeoutMillis: this.opts.readyTimeoutMs });
    client.on('error', () => {});
    try {
      await withTimeout(
        (async () => {
          await client.connect();
          await client.query('select 1');
        })(),
        this.opts.readyTimeoutMs,
      );
      this.down = false;
    } finally {
      void client.end().catch(() => {});
    }
  }

  private scheduleProbe(): void {
    if (this.closed || this.probeTimer) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      this.probe().catch(() => {}).finally(() => {
        if (this.down) this.scheduleProbe();
      });
    }, 1000);
    this.probeTimer.unref();
  }

  /**
   * A statement of its own (not in a transaction) that PostgreSQL aborted to break a deadlock
   * (40P01) is run again, up to DEADLOCK_RETRIES times: the abort undid all of it, and the other
   * side of the cycle has gone on meanwhile, so the second run is the same statement a moment
   * later. The user then never sees a 500 for a lock cycle between unrelated writers (e.g. a
   * console marking a conversation read between two nodes' message batches). A transaction runs
   * on a checked-out client, not here: its caller decides on a retry.
   */
  // pg.Pool#query's overloads, passed through unchanged (any, as its own declarations)
  override query(...args: any[]): any {
    const last = args.at(-1);
    const submittable = typeof (args[0] as { submit?: unknown } | undefined)?.submit === 'function';
    const run = () => (super.query as (...a: any[]) => any)(...args);
    if (typeof last === 'function' || submittable) return run();
    return retryOnDeadlock(run);
  }

  override async end(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    await super.end();
  }
}

export async function openPostgres(url: string, options: Partial<PoolOptions> = {}): Promise<Database> {
  const opts = { ...DEFAULT_POOL_OPTIONS, ...options };
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    statement_timeout: opts.statementTimeoutMs,
    // The client's own deadline, for a server that stopped answering (statement_timeout cannot fire there).
    query_timeout: opts.statementTimeoutMs + 1000,
    idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: opts.keepAliveDelayMs,
  };
  const pool = new GuardedPool(clientConfig, opts);
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    fair: pool.fair,
    async migrate() {
      // Its own connection without statement timeouts: a migration may take long.
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: opts.connectTimeoutMs, keepAlive: true });
      await client.connect();
      try {
        await runMigrations(
          (text) => client.query(text),
          async <T>(text: string, params: unknown[]) => (await client.query(text, params)).rows as T[],
        );
      } finally {
        await client.end();
      }
    },
    async ping() {
      try {
        await withTimeout(pool.query('select 1'), opts.readyTimeoutMs);
      } catch (err) {
        // No answer in time is a lost database too: fail the next calls fast.
        if (isDatabaseUnreachable(err)) pool.trip();
        throw err;
      }
    },
    close: () => pool.end(),
  };
}

/**
 * PGlite is one connection: its calls run one at a time, first come first served, so one
 * tenant's queued writes would delay every other tenant's reads. Its entry points go through a
 * one-slot FairQueue instead (db/fair.ts: round-robin over tenants). A transaction holds the slot
 * until it ends; its own queries use the transaction object, not these, so it never waits on itself.
 */
function shareFairly(client: PGlite): FairQueue {
  const fair = new FairQueue(1, { yieldBetweenTurns: true });
  const target = client as unknown as Record<'query' | 'exec' | 'transaction', (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['query', 'exec', 'transaction'] as const) {
    const original = target[name].bind(client);
    // Closing or closed, PGlite refuses at once: a call queued behind one it will never answer must not wait.
    target[name] = (...args: unknown[]) => (client.ready ? fair.run(() => original(...args)) : original(...args));
  }
  return fair;
}

/** The embedded default: PGlite in dataDir (or in memory when dataDir is undefined). */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  let client: PGlite;
  if (dataDir) {
    const dir = path.join(dataDir, 'pgdata');
    await fs.mkdir(dir, { recursive: true });
    client = new PGlite(dir);
  } else {
    client = new PGlite();
  }
  await client.waitReady;
  const fair = shareFairly(client);
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    fair,
    async migrate() {
      await runMigrations(
        (text) => client.exec(text),
        async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
      );
    },
    async ping() {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

/**
 * The database the configuration names (`npm start`, `npm run migrate`, the worker). An empty
 * DATA_DIR starts from the build's migrated template when there is a current one
 * (db/pgliteTemplate.ts): no initdb, no migrations to run.
 */
export async function openDatabase(config: { databaseUrl?: string | undefined; dataDir: string; database?: PoolOptions }): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config.database);
  await seedFromTemplate(path.join(config.dataDir, 'pgdata'));
  return openPglite(config.dataDir);
}
