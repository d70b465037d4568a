import { type SQL, type SQLWrapper, and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { sentEmails, users } from '../db/schema.js';
import type { JobContext } from '../jobs/types.js';
import type { MailMessage, SentMail } from '../services/mail.js';

/** How long one run holds an email it is sending (longer than any SMTP timeout). */
const SEND_LOCK_MS = 5 * 60_000;

export type SentEmailKind = (typeof sentEmails.$inferInsert)['kind'];

export interface SendOnceRecord {
  /** The idempotency key: one email per key, however often the job runs. */
  key: string;
  accountId: string;
  /** null for account-wide emails. */
  conversationId: number | null;
  kind: SentEmailKind;
  recipient: string;
}

/** When a claim made now runs out: the run that made it holds the email until then. */
export const sendLockUntil = (now: Date = new Date()): Date => new Date(now.getTime() + SEND_LOCK_MS);

type ComposeEmail = () => Promise<Omit<MailMessage, 'messageId'>> | Omit<MailMessage, 'messageId'>;

/**
 * Sends an email at most once per key: recorded in sent_emails before sending, claimed by one
 * run at a time, marked 'sent' after. Returns null when a run already sent it; throws (the job
 * is retried) when another run holds it or SMTP fails.
 */
export async function sendOnce(ctx: Pick<JobContext, 'db' | 'mailer'>, record: SendOnceRecord, email: ComposeEmail): Promise<SentMail | null> {
  await ctx.db.insert(sentEmails).values(record).onConflictDoNothing({ target: sentEmails.key });
  return sendRecorded(ctx, record.key, email);
}

/** sendOnce of an email already recorded under `key`: claims it, then sends it (sendClaimed). */
export async function sendRecorded(ctx: Pick<JobContext, 'db' | 'mailer'>, key: string, email: ComposeEmail): Promise<SentMail | null> {
  const { db } = ctx;
  // Claim the send: a concurrent run of the same job must not send it too.
  const now = new Date();
  const [claimed] = await db
    .update(sentEmails)
    .set({ lockedUntil: sendLockUntil(now) })
    .where(and(eq(sentEmails.key, key), eq(sentEmails.status, 'sending'), or(isNull(sentEmails.lockedUntil), lt(sentEmails.lockedUntil, now))))
    .returning({ id: sentEmails.id });
  if (!claimed) {
    const [row] = await db.select({ status: sentEmails.status }).from(sentEmails).where(eq(sentEmails.key, key));
    if (row?.status === 'sent') return null; // this job already ran to the end once
    throw new Error('the same notification is being sent by another run'); // retried: then it is 'sent'
  }
  return sendClaimed(ctx, key, email);
}

/**
 * Sends the email of `key`, which this run holds ('sending', locked_until set by this run:
 * sendRecorded's claim, or the budget's insert that recorded it claimed), and marks it 'sent'.
 * SMTP failing releases it for the retry.
 */
export async function sendClaimed(ctx: Pick<JobContext, 'db' | 'mailer'>, key: string, email: ComposeEmail): Promise<SentMail> {
  const { db } = ctx;
  let sent: SentMail;
  try {
    sent = await ctx.mailer.send({ ...(await email()), messageId: `<${key.replace(/[^\w.-]/g, '.')}@parley>` });
  } catch (err) {
    // Released for the retry, which sends it (the job runner retries with backoff).
    await db.update(sentEmails).set({ lockedUntil: null }).where(eq(sentEmails.key, key));
    throw err;
  }
  await db.update(sentEmails).set({ status: 'sent', sentAt: new Date(), lockedUntil: null }).where(eq(sentEmails.key, key));
  return sent;
}

/** The users row of `accountId`'s owner (a column, to join on it, or an id). */
export const isAccountOwner = (accountId: SQLWrapper | string): SQL => and(eq(users.accountId, accountId), eq(users.type, 'owner')) as SQL;

/** The account owner's address and name (the recipient of every account email); undefined when gone. */
export async function accountOwner(db: Db, accountId: string): Promise<{ email: string; name: string } | undefined> {
  const [owner] = await db
    .select({ email: users.email, name: users.name })
    .from(users)
    .where(isAccountOwner(accountId))
    .limit(1);
  return owner;
}

/**
 * An account-wide email to the owner, at most once per key (sendOnce). Returns undefined when
 * the account has no owner any more, null when a run already sent it.
 */
export async function sendOwnerOnce(
  ctx: Pick<JobContext, 'db' | 'mailer'>,
  account: { accountId: string; key: string; kind: SentEmailKind },
  email: (owner: { email: string; name: string }) => Omit<MailMessage, 'messageId'> | Promise<Omit<MailMessage, 'messageId'>>,
): Promise<SentMail | null | undefined> {
  const owner = await accountOwner(ctx.db, account.accountId);
  if (!owner) return undefined;
  return sendOnce(ctx, { ...account, conversationId: null, recipient: owner.email }, () => email(owner));
}
