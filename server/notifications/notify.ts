import { and, desc, eq, gt, max, ne } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { conversations, messages, sentEmails, users, visitors, widgetSettings } from '../db/schema.js';
import { IMAGE_PLACEHOLDER } from '../commands/sendMessage.js';
import { DeferJob, type JobContext } from '../jobs/types.js';
import { composeEmail, type EmailLine, type NotificationKind } from './compose.js';
import { takeFromBudget } from './budget.js';
import { accountOwner, sendOnce } from './sendOnce.js';
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

/** When the last email of this kind for the conversation was sent (the batching window). */
async function lastSentAt(db: Db, conversationId: number, kind: NotificationKind, exceptKey = ''): Promise<Date | null> {
  const [row] = await db
    .select({ at: max(sentEmails.sentAt) })
    .from(sentEmails)
    .where(and(eq(sentEmails.conversationId, conversationId), eq(sentEmails.kind, kind), eq(sentEmails.status, 'sent'), ne(sentEmails.key, exceptKey)));
  return row?.at ? new Date(row.at) : null;
}

/**
 * One notification job: checks the toggle, the answer (missed chat), the batching window and
 * the account's email budget, then sends the owner one email, recorded under a unique key
 * before sending.
 */
export async function notifyOwner(kind: NotificationKind, p: NotifyPayload, ctx: JobContext): Promise<void> {
  const { db, log } = ctx;
  const [row] = await db
    .select({ conversation: conversations, visitor: visitors })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .where(and(eq(conversations.id, p.conversationId), eq(conversations.accountId, p.accountId)));
  if (!row) return; // deleted since: nothing to tell
  const { conversation, visitor } = row;

  const [settings] = await db.select({ toggles: widgetSettings.emailNotifications }).from(widgetSettings).where(eq(widgetSettings.accountId, p.accountId));
  // The toggles are true when absent (SPEC.md section 3).
  if (settings && settings.toggles[TOGGLE[kind]] === false) return;

  if (kind === 'missedChat' && p.messageId !== undefined) {
    const [answer] = await db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.conversationId, conversation.id), eq(messages.senderType, 'user'), gt(messages.id, p.messageId)))
      .limit(1);
    if (answer) return;
  }

  const key = `${kind}:${conversation.id}:${p.key}`;
  const last = await lastSentAt(db, conversation.id, kind, key);
  if (last && Date.now() - last.getTime() < ctx.settings.batchWindowMs) {
    // One was sent within the window: this one goes at the window's end, with the latest messages.
    log.info({ kind, conversationId: conversation.id }, 'notification batched until the window ends');
    throw new DeferJob(last.getTime() + ctx.settings.batchWindowMs);
  }

  const owner = await accountOwner(db, p.accountId);
  if (!owner) return;

  const record = { key, accountId: p.accountId, conversationId: conversation.id, kind, recipient: owner.email };
  // Past the account's email budget the email waits for the digest instead (a flood of chats
  // is one "N new chats" email, not a hundred).
  const gate = await takeFromBudget(ctx, record);
  if (gate !== 'send') {
    if (gate === 'held') log.info({ kind, conversationId: conversation.id }, 'notification held for the digest (email budget spent)');
    return;
  }
  const sent = await sendOnce(ctx, record, async () =>
    composeEmail({
      kind,
      to: owner.email,
      visitor: { id: visitor.id, name: visitor.name, email: visitor.email, page: visitor.currentPage },
      lines: await lastLines(db, conversation.id, visitor.name),
      link: `${ctx.publicUrl}/conversations?visitor=${encodeURIComponent(visitor.id)}`,
      replyTo: kind === 'offlineMessage' && visitor.email ? visitor.email : undefined,
    }),
  );
  if (!sent) return; // this job already ran to the end once
  log.info({ kind, conversationId: conversation.id, messageId: sent.messageId }, 'notification sent');
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
