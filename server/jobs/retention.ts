import { and, eq, inArray, lt } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { accounts, conversations, messages } from '../db/schema.js';
import { recordAudit } from '../services/audit.js';
import { removeStoredFile } from '../storage/cleanup.js';
import { DeferJob, type JobContext, defineJob } from './types.js';

const BATCH = 500;
const DAY_MS = 86_400_000;
export const retentionKey = (accountId: string) => `gdpr.retention:${accountId}`;

/** The moment `months` calendar months before `now`. */
export function retentionCutoff(now: Date, months: number): Date {
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d;
}

/**
 * One account's retention (issue 14; PRODUCT.md section 11): messages older than the account's
 * months are deleted with their files, in batches, and conversation previews that old are
 * blanked; then the job waits a day (DeferJob keeps its dedupe key) and runs again while the
 * setting stays. Each run that deleted something leaves one audit entry.
 */
export async function applyRetention(p: { accountId: string }, ctx: JobContext, now = new Date()): Promise<number> {
  const [account] = await ctx.db.select({ months: accounts.retentionMonths }).from(accounts).where(eq(accounts.id, p.accountId));
  if (!account?.months) return 0;
  const cutoff = retentionCutoff(now, account.months);
  let deleted = 0;
  let files = 0;
  for (;;) {
    const old = ctx.db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.accountId, p.accountId), lt(messages.createdAt, cutoff)))
      .limit(BATCH);
    const gone = await ctx.db.delete(messages).where(inArray(messages.id, old)).returning({ filePath: messages.filePath });
    for (const { filePath } of gone) {
      if (!filePath) continue;
      await removeStoredFile(ctx.db, ctx.storageRoot, filePath);
      files++;
    }
    deleted += gone.length;
    if (gone.length < BATCH) break;
  }
  await ctx.db
    .update(conversations)
    .set({ lastMessage: '' })
    .where(and(eq(conversations.accountId, p.accountId), lt(conversations.lastMessageAt, cutoff)));
  if (deleted > 0) {
    await recordAudit(ctx.db, { accountId: p.accountId, actorUserId: null, action: 'retention.deleted', target: 'messages', detail: { messages: deleted, files, older_than: cutoff.toISOString() } });
  }
  return deleted;
}

export const retentionJobs = [
  defineJob({
    name: 'gdpr.retention',
    schema: z.object({ accountId: z.uuid() }),
    async handle(p, ctx) {
      await applyRetention(p, ctx);
      const [account] = await ctx.db.select({ months: accounts.retentionMonths }).from(accounts).where(eq(accounts.id, p.accountId));
      if (account?.months) throw new DeferJob(Date.now() + DAY_MS);
    },
  }),
] as const;

/** After the setting changes: the account's pending run is replaced by one now (none when off). */
export async function scheduleRetention(app: Pick<FastifyInstance, 'db' | 'jobs'>, accountId: string): Promise<void> {
  await app.jobs.cancel(retentionKey(accountId));
  const [account] = await app.db.select({ months: accounts.retentionMonths }).from(accounts).where(eq(accounts.id, accountId));
  if (account?.months) await app.jobs.enqueue('gdpr.retention', { accountId }, { dedupeKey: retentionKey(accountId) });
}
