import type { SecretBox } from '../services/secrets.js';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Db, Tx } from '../db/client.js';
import type { OutboxEntry, OutboxRow, OutboxSink } from '../outbox/outbox.js';
import type { OutboxCounts, RelayTotals } from '../outbox/relay.js';
import type { DomainEvents } from '../services/domainEvents.js';
import type { Mailer } from '../services/mail.js';
import type { JobsSettings } from './config.js';
import type { JobName, JobPayloads } from './registry.js';

/** What a job handler may use: no Fastify app, so `npm run worker` can run handlers alone. */
export interface JobContext {
  /** Told each run's duration and outcome (the job duration histogram on /metrics). */
  observe?: ((name: string, seconds: number, outcome: 'done' | 'failed') => void) | undefined;
  db: Db;
  log: FastifyBaseLogger;
  mailer: Mailer;
  /** Opens the webhook signing secrets (services/secrets.ts). */
  secrets: SecretBox;
  settings: JobsSettings;
  /** The link base for emails (PUBLIC_URL, or localhost with the port). */
  publicUrl: string;
  /** Where uploaded files live (config.uploads.root): the storage cleanup removes them there. */
  storageRoot: string;
  /**
   * The server's domain events, so a job's change is pushed live (through the Redis adapter to
   * every node). Absent in `npm run worker`: consoles then see the change on their next poll.
   */
  events?: DomainEvents | undefined;
  /**
   * Whether a visitor has the widget open now (a socket on any node). Absent in `npm run worker`
   * (no sockets there): jobs then judge by the visitor's last visit.
   */
  visitorOnline?: ((visitorId: string) => Promise<boolean>) | undefined;
}

export interface JobDefinition<N extends string = string, S extends z.ZodType = z.ZodType> {
  name: N;
  schema: S;
  handle(payload: z.output<S>, ctx: JobContext): Promise<void>;
}

/** Keeps the literal name and payload type of a definition (the registry's types come from them). */
export function defineJob<const N extends string, S extends z.ZodType>(def: JobDefinition<N, S>): JobDefinition<N, S> {
  return def;
}

export interface EnqueueOptions {
  delayMs?: number;
  /** While a job with this key is pending or running, enqueueing another with the key does nothing. */
  dedupeKey?: string;
}

export interface JobCounts {
  /** Waiting, delayed or running. */
  pending: number;
  /** Exhausted their retries; kept with their error. */
  failed: number;
}

/** The outbox topic of jobs: a job is an outbox row first, relayed to the runner by any live node. */
export const JOB_TOPIC = 'job';

/** The app's queue (app.jobs): the same behaviour on BullMQ and in-process. */
export interface JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  readonly settings: JobsSettings;
  /**
   * Records the job in the outbox (durable at once, even while Redis is down) and wakes the
   * relay. Pass `tx` to record it in the caller's transaction: it then exists exactly when the
   * write that causes it commits (call `wake()` after the commit).
   */
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N], opts?: EnqueueOptions, tx?: Tx): Promise<void>;
  /** Outbox rows were written in a transaction that committed: relay them now. */
  wake(): void;
  /** Drops the pending job holding this dedupe key (a running one finishes). */
  cancel(dedupeKey: string): Promise<void>;
  counts(): Promise<JobCounts>;
  /** The outbox as /metrics shows it: rows waiting for the relay, relayed, failed, lost. */
  outbox(): Promise<OutboxCounts & { totals: RelayTotals }>;
}

export interface JobRunner extends JobQueue {
  /** Starts taking jobs (the server's in-process workers, or `npm run worker`). */
  startWorkers(): Promise<void>;
  /** Starts relaying the outbox (every server node and worker; independent of workers). */
  startRelay(): void;
  /** Stops taking jobs, lets running ones finish (or hands them back), releases connections. */
  close(): Promise<void>;
}

/**
 * What a runner does; the outbox and the relay in front of it are the same for both. BullMQ is
 * handed the rows one by one (OutboxHandOver); the in-process runner, in the same database,
 * takes them itself (OutboxTaker).
 */
export type JobBackend = JobBackendBase & OutboxSink;

export interface JobBackendBase {
  readonly kind: 'bullmq' | 'in-process';
  /**
   * A job enqueued outside a transaction, when the backend is itself the database (in-process):
   * written straight into its table, as durable as an outbox row and seen at once.
   */
  insertNow?(entry: OutboxEntry): Promise<void>;
  /** The outbox rows holding `dedupeKey` were dropped (`relayed` ones reached the backend): drop the pending job too. */
  cancel(dedupeKey: string, relayed: OutboxRow[]): Promise<void>;
  counts(): Promise<JobCounts>;
  startWorkers(): Promise<void>;
  close(): Promise<void>;
}

/** A failure that retrying cannot fix (unknown job, bad payload): failed at once. */
export class PermanentJobError extends Error {}

/**
 * Thrown by a handler whose job is not due yet: it runs again at `untilMs`. Not a failure (no
 * attempt is used) and the job keeps its dedupe key, so triggers meanwhile still join it.
 */
export class DeferJob extends Error {
  constructor(readonly untilMs: number) {
    super(`deferred until ${new Date(untilMs).toISOString()}`);
  }
}
