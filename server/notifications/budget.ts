import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { rowsOf } from '../db/client.js';
import { sentEmails } from '../db/schema.js';
import { JOB_TOPIC, type JobContext } from '../jobs/types.js';
import { writeOutbox } from '../outbox/outbox.js';
import { type SendOnceRecord, sendLockUntil } from './sendOnce.js';

/** The kinds visitors can cause at will: they share the account's budget. */
export const BUDGETED_KINDS = ['newChat', 'offlineMessage', 'missedChat'] as const;

/** The pending digest job of an account (later held emails join it). */
export const digestDedupeKey = (accountId: string) => `notify:digest:${accountId}`;

/**
 * What takeFromBudget decided for an email:
 * - 'claimed': recorded now within the budget, and held by this run (locked_until set, as
 *   sendOnce's claim would): send it with sendClaimed;
 * - 'send': recorded by an earlier run and not sent yet (a retry, or a concurrent run sending
 *   it): claim it first (sendRecorded);
 * - 'held': past the budget, recorded as 'held' for the digest;
 * - 'done': sent, held or digested already.
 */
export type BudgetGate = 'claimed' | 'send' | 'held' | 'done';

type SentEmailStatus = (typeof sentEmails.$inferSelect)['status'];

/**
 * Whether a notification email may go out on its own: at most `emailBudget.count` per account
 * within `emailBudget.windowMs` (counted under a per-account lock, so concurrent jobs and nodes
 * cannot overshoot). Past the budget the email is recorded as 'held' and the account's digest
 * job is scheduled in the same transaction. Four statements when it may go out (begin, lock,
 * one insert, commit), five when held (the digest's outbox row).
 */
export async function takeFromBudget(ctx: Pick<JobContext, 'db' | 'settings'>, record: SendOnceRecord): Promise<BudgetGate> {
  const { count: budget, windowMs, digestMs } = ctx.settings.emailBudget;
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`parley:email-budget:${record.accountId}`}))`);
    // One statement after the lock's (in READ COMMITTED a statement sees what was committed when
    // it started: this one sees every email the lock's earlier holders recorded): the key's row
    // if it exists, else the count of the account's budgeted emails in the window and the insert
    // of this one, 'sending' and claimed by this run within the budget, 'held' past it. The
    // count is not made when the key exists (the insert's one-time filter).
    const used = and(
      eq(sentEmails.accountId, record.accountId),
      inArray(sentEmails.kind, [...BUDGETED_KINDS]),
      inArray(sentEmails.status, ['sending', 'sent']),
      gt(sentEmails.createdAt, new Date(Date.now() - windowMs)),
    );
    const result = await tx.execute(sql`
      with existing as (
        select ${sentEmails.status} as status from ${sentEmails} where ${sentEmails.key} = ${record.key}
      ), taken as (
        insert into ${sentEmails} (key, account_id, conversation_id, kind, recipient, status, locked_until)
        select ${record.key}::text, ${record.accountId}::uuid, ${record.conversationId}::integer, ${record.kind}::text, ${record.recipient}::text,
          case when used.n < ${budget}::integer then 'sending' else 'held' end,
          case when used.n < ${budget}::integer then ${sendLockUntil().toISOString()}::timestamptz end
        from (select count(*) as n from ${sentEmails} where ${used}) used
        where not exists (select 1 from existing)
        returning status
      )
      select (select status from existing) as existing, (select status from taken) as taken`);
    const [row] = rowsOf<{ existing: SentEmailStatus | null; taken: SentEmailStatus | null }>(result);
    if (row?.existing) return row.existing === 'sending' ? 'send' : 'done';
    if (row?.taken === 'sending') return 'claimed';
    if (row?.taken !== 'held') throw new Error(`email budget: no row recorded for ${record.key}`);
    await writeOutbox(tx, [
      { topic: JOB_TOPIC, name: 'notify.digest', payload: { accountId: record.accountId }, dedupeKey: digestDedupeKey(record.accountId), delayMs: digestMs },
    ]);
    return 'held';
  });
}
