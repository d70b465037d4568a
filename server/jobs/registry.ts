import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { aiJobs } from '../ai/jobs.js';
import { sourceJobs } from '../ai/sources/ingest.js';
import { billingJobs } from '../billing/reminders.js';
import { notificationJobs } from '../notifications/jobs.js';
import { visitorReplyJobs } from '../notifications/visitorReply.js';
import { authJobs } from '../routes/auth/jobs.js';
import { storageJobs } from '../storage/cleanup.js';
import { SYSTEM_LANE, laneOfAccount, runInLane } from '../db/fair.js';
import { lifecycleJobs } from './lifecycle.js';
import { transcriptJobs } from './transcript.js';
import { webhookJobs } from '../webhooks/deliver.js';
import { retentionJobs } from './retention.js';
import { PermanentJobError, type JobContext, type JobDefinition } from './types.js';

/**
 * Every background job of the server: name, payload schema, handler. One list, read by both
 * runners and by `npm run worker`; another area adds its definitions here.
 */
export const jobDefinitions = [...notificationJobs, ...aiJobs, ...sourceJobs, ...billingJobs, ...visitorReplyJobs, ...authJobs, ...storageJobs, ...lifecycleJobs, ...transcriptJobs, ...webhookJobs, ...retentionJobs] as const;

type Definitions = (typeof jobDefinitions)[number];
export type JobName = Definitions['name'];
export type JobPayloads = { [D in Definitions as D['name']]: z.input<D['schema']> };

const byName = new Map<string, JobDefinition>(jobDefinitions.map((d) => [d.name, d as unknown as JobDefinition]));

/** Checks a payload before it is stored: a bad enqueue fails at the caller, not later in a worker. */
export function validatePayload(name: string, payload: unknown): unknown {
  const def = byName.get(name);
  if (!def) throw new Error(`unknown job ${name}`);
  return def.schema.parse(payload);
}

/** Runs one job; an unknown name or an invalid payload is permanent (no retry can fix it). */
export async function runJob(name: string, payload: unknown, ctx: JobContext): Promise<void> {
  const def = byName.get(name);
  if (!def) throw new PermanentJobError(`unknown job ${name}`);
  const parsed = def.schema.safeParse(payload);
  if (!parsed.success) throw new PermanentJobError(`invalid payload for ${name}: ${parsed.error.message}`);
  // Its database calls wait in the lane of the account it works for (db/fair.ts), else the server's own.
  const accountId = (parsed.data as { accountId?: unknown }).accountId;
  const started = performance.now();
  let outcome: 'done' | 'failed' = 'failed';
  try {
    await runInLane(typeof accountId === 'string' ? laneOfAccount(accountId) : SYSTEM_LANE, () => def.handle(parsed.data, ctx));
    outcome = 'done';
  } finally {
    ctx.observe?.(name, (performance.now() - started) / 1000, outcome);
  }
}

/** The delay before retry number `attempt` (1-based runs made so far): base, 2x, 4x... */
export function backoffDelay(baseMs: number, attemptsMade: number): number {
  return baseMs * 2 ** Math.max(0, attemptsMade - 1);
}
