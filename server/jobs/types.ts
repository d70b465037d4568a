import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Db } from '../db/client.js';
import type { Mailer } from '../services/mail.js';
import type { JobsSettings } from './config.js';
import type { JobName, JobPayloads } from './registry.js';

/** What a job handler may use: no Fastify app, so `npm run worker` can run handlers alone. */
export interface JobContext {
  db: Db;
  log: FastifyBaseLogger;
  mailer: Mailer;
  settings: JobsSettings;
  /** The link base for emails (PUBLIC_URL, or localhost with the port). */
  publicUrl: string;
  /** Where uploaded files live (config.uploads.root): the storage cleanup removes them there. */
  storageRoot: string;
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

/** The app's queue (app.jobs): the same behaviour on BullMQ and in-process. */
export interface JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N], opts?: EnqueueOptions): Promise<void>;
  /** Drops the pending job holding this dedupe key (a running one finishes). */
  cancel(dedupeKey: string): Promise<void>;
  counts(): Promise<JobCounts>;
}

export interface JobRunner extends JobQueue {
  /** Starts taking jobs (the server's in-process workers, or `npm run worker`). */
  startWorkers(): Promise<void>;
  /** Stops taking jobs, lets running ones finish (or hands them back), releases connections. */
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
