import { and, count, eq, gt, inArray, sql } from 'drizzle-orm';
import { sentEmails } from '../db/schema.js';
import { JOB_TOPIC, type JobContext } from '../jobs/types.js';
import { writeOutbox } from '../outbox/outbox.js';
import type { SendOnceRecord } from './sendOnce.js';

/** The kinds visitors can cause at will: they share the account's budget. */
export const BUDGETED_KINDS = ['newChat', 'offlineMessage', 'missedChat'] as const;

/** The pending digest job of an account (later held emails join it). */
export const digestDedupeKey = (accountId: string) => `notify:digest:${accountId}`;

/**
 * Whether a notification email may go out on its own: at most `emailBudget.count` per account
 * within `emailBudget.windowMs` (counted under a per-account lock, so concurrent jobs and nodes
 * cannot overshoot). Past the budget the email is recorded as 'held' and the account's digest
 * job is scheduled in the same transaction. 'done': this key was held or digested already.
 */
export async function takeFromBudget(ctx: Pick<JobContext, 'db' | 'settings'>, record: SendOnceRecord): Promise<'send' | 'held' | 'done'> {
  const { count: budget, windowMs, digestMs } = ctx.settings.emailBudget;
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`parley:email-budget:${record.accountId}`}))`);
    const [existing] = await tx.select({ status: sentEmails.status }).from(sentEmails).where(eq(sentEmails.key, record.key));
    if (existing) return existing.status === 'sending' || existing.status === 'sent' ? 'send' : 'done';
    const [used] = await tx
      .select({ n: count() })
      .from(sentEmails)
      .where(
        and(
          eq(sentEmails.accountId, record.accountId),
          inArray(sentEmails.kind, [...BUDGETED_KINDS]),
          inArray(sentEmails.status, ['sending', 'sent']),
          gt(sentEmails.createdAt, new Date(Date.now() - windowMs)),
        ),
      );
    if ((used?.n ?? 0) < budget) {
      await tx.insert(sentEmails).values(record);
      return 'send';
    }
    await tx.insert(sentEmails).values({ ...record, status: 'held' });
    await writeOutbox(tx, [
      { topic: JOB_TOPIC, name: 'notify.digest', payload: { accountId: record.accountId }, dedupeKey: digestDedupeKey(record.accountId), delayMs: digestMs },
    ]);
    return 'held';
  });
}
