import { and, desc, eq, gt, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { conversations, messages, sentEmails, users, visitors, widgetSettings } from '../db/schema.js';
import { IMAGE_PLACEHOLDER } from '../commands/sendMessage.js';
import { DeferJob, type JobContext } from '../jobs/types.js';
import { composeEmail, type EmailLine, type NotificationKind } from './compose.js';
import { takeFromBudget } from './budget.js';
import { isAccountOwner, sendClaimed, sendRecorded } from './sendOnce.js';
import { visitorVisibleMessages } from '../policies/messages.js';

const LAST_MESSAGES = 10;

/** The widget settings' email_notifications toggle of each kind. */
const TOGGLE = { newChat: 'newChats', offlineMessage: 'offlineMessages', missedChat: 'missedChats' } as const;

export interface NotifyPayload {
  accountId: string;
  conversationId: number;
  /** Unique per trigger: the idempotency key of the email (a job run twice sends once). */
  key: string;
  /** Missed chat: the visitor message that must be answered. */
  messageId?: number | undefined;
}

/**
 * One notification job: checks the toggle, the answer (missed chat), the batching window and
 * the account's email budget, then sends the owner one email, recorded under a unique key
 * before sending. A new chat's email is seven statements: one read of everything the checks
 * need, the budget's transaction (four, recording the email claimed by this run), the
 * transcript, and marking it sent.
 */
export async function notifyOwner(kind: NotificationKind, p: NotifyPayload, ctx: JobContext): Promise<void> {
  const { db, log } = ctx;
  const key = `${kind}:${p.conversationId}:${p.key}`;
  // The checks' facts in one read (each is a row of one account: nothing is cached between runs
  // or nodes). The owner: the first row of a left join (accountOwner's condition, joined).
  const [row] = await db
    .select({
      conversationId: conversations.id,
      visitor: { id: visitors.id, name: visitors.name, email: visitors.email, currentPage: visitors.currentPage },
      toggles: widgetSettings.emailNotifications,
      ownerEmail: users.email,
      // The batching window: when the last email of this kind for the conversation was sent
      // (another key's: a run of this job again is not batched behind its own email).
      lastSentAt: sql<Date | string | null>`(select max(${sentEmails.sentAt}) from ${sentEmails} where ${and(
        eq(sentEmails.conversationId, conversations.id),
        eq(sentEmails.kind, kind),
        eq(sentEmails.status, 'sent'),
        ne(sentEmails.key, key),
      )})`,
      // Missed chat: an agent answered after the message that was waiting.
      answered:
        kind === 'missedChat' && p.messageId !== undefined
          ? sql<boolean>`exists (select 1 from ${messages} where ${and(eq(messages.conversationId, conversations.id), eq(messages.senderType, 'user'), gt(messages.id, p.messageId))})`
          : sql<boolean>`false`,
    })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .leftJoin(widgetSettings, eq(widgetSettings.accountId, conversations.accountId))
    .leftJoin(users, isAccountOwner(conversations.accountId))
    .where(and(eq(conversations.id, p.conversationId), eq(conversations.accountId, p.accountId)))
    .limit(1);
  if (!row) return; // deleted since: nothing to tell
  const { conversationId, visitor } = row;

  // The toggles are true when absent (SPEC.md section 3).
  if (row.toggles && row.toggles[TOGGLE[kind]] === false) return;
  if (row.answered) return;

  const last = row.lastSentAt ? new Date(row.lastSentAt) : null;
  if (last && Date.now() - last.getTime() < ctx.settings.batchWindowMs) {
    // One was sent within the window: this one goes at the window's end, with the latest messages.
    log.info({ kind, conversationId }, 'notification batched until the window ends');
    throw new DeferJob(last.getTime() + ctx.settings.batchWindowMs);
  }

  if (!row.ownerEmail) return; // the account has no owner any more
  const to = row.ownerEmail;

  const record = { key, accountId: p.accountId, conversationId, kind, recipient: to };
  // Past the account's email budget the email waits for the digest instead (a flood of chats
  // is one "N new chats" email, not a hundred).
  const gate = await takeFromBudget(ctx, record);
  if (gate === 'held') log.info({ kind, conversationId }, 'notification held for the digest (email budget spent)');
  if (gate === 'held' || gate === 'done') return;
  const email = async () =>
    composeEmail({
      kind,
      to,
      visitor: { id: visitor.id, name: visitor.name, email: visitor.email, page: visitor.currentPage },
      lines: await lastLines(db, conversationId, visitor.name),
      link: `${ctx.publicUrl}/conversations?visitor=${encodeURIComponent(visitor.id)}`,
      replyTo: kind === 'offlineMessage' && visitor.email ? visitor.email : undefined,
    });
  // 'claimed': the budget recorded it held by this run; 'send': recorded by an earlier run, claimed now.
  const sent = gate === 'claimed' ? await sendClaimed(ctx, key, email) : await sendRecorded(ctx, key, email);
  if (!sent) return; // this job already ran to the end once
  log.info({ kind, conversationId, messageId: sent.messageId }, 'notification sent');
}

async function lastLines(db: Db, conversationId: number, visitorName: string): Promise<EmailLine[]> {
  const rows = await db
    .select({ senderType: messages.senderType, text: messages.message, filePath: messages.filePath, at: messages.createdAt, author: users.name })
    .from(messages)
    .leftJoin(users, eq(users.id, messages.authorId))
    // The email may be answered to the visitor (offline form's Reply-To): no private notes in it.
    .where(and(eq(messages.conversationId, conversationId), visitorVisibleMessages()))
    .orderBy(desc(messages.id))
    .limit(LAST_MESSAGES);
  return rows.reverse().map((m) => ({
    author: m.senderType === 'visitor' ? visitorName || 'Visitor' : m.senderType === 'bot' ? 'Assistant' : (m.author ?? 'Agent'),
    text: m.text || (m.filePath ? IMAGE_PLACEHOLDER : ''),
    at: m.at,
  }));
}
