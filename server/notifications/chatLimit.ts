import { eq } from 'drizzle-orm';
import { STARTER_MONTHLY_CHATS } from '@parley/shared';
import { canStartChat, monthKey } from '../billing/limits.js';
import { sentEmails } from '../db/schema.js';
import type { Db } from '../db/client.js';
import type { JobContext } from '../jobs/types.js';
import type { MailMessage } from '../services/mail.js';
import { escapeHtml } from '../services/html.js';
import { sendOwnerOnce } from './sendOnce.js';

export interface ChatLimitPayload {
  accountId: string;
  /** 'YYYY-MM' (UTC): one notice per account and month. */
  month: string;
}

/** The sent_emails key: the notice goes out once per account and calendar month. */
export const chatLimitKey = (accountId: string, month: string) => `chatLimit:${accountId}:${month}`;

/** Whether this month's notice has gone out already (saves enqueueing a job per refused visitor). */
export async function chatLimitNoticeSent(db: Db, accountId: string, month: string): Promise<boolean> {
  const [row] = await db.select({ status: sentEmails.status }).from(sentEmails).where(eq(sentEmails.key, chatLimitKey(accountId, month)));
  return row?.status === 'sent';
}

/** 'June 2025' for '2025-06'; the first day of the next month, when the count starts again. */
function monthLabels(month: string): { label: string; resets: string } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const opts = { timeZone: 'UTC' } as const;
  return {
    label: new Date(Date.UTC(y, m - 1, 1)).toLocaleString('en-US', { ...opts, month: 'long', year: 'numeric' }),
    resets: new Date(Date.UTC(y, m, 1)).toLocaleString('en-US', { ...opts, month: 'long', day: 'numeric', year: 'numeric' }),
  };
}

/** The owner's notice: plain text and HTML with the owner's name escaped. */
export function composeChatLimitEmail(e: { to: string; ownerName: string; month: string; link: string }): Omit<MailMessage, 'messageId'> {
  const { label, resets } = monthLabels(e.month);
  const lines = {
    hello: `Hello ${e.ownerName.trim() || 'there'},`,
    reached: `Your Parley account has reached the Starter plan's ${STARTER_MONTHLY_CHATS} new chats for ${label}.`,
    effect:
      'New visitors now see the offline form instead of a live chat: the emails and messages they leave reach your conversations as usual. Chats already under way go on.',
    resets: `The count starts again on ${resets} (UTC).`,
    upgrade: 'Upgrade to Professional for unlimited chats',
  };
  const text = [lines.hello, '', lines.reached, lines.effect, '', `${lines.upgrade}: ${e.link}`, '', lines.resets, ''].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(lines.hello)}</p>`,
    `<p>${escapeHtml(lines.reached)}</p>`,
    `<p>${escapeHtml(lines.effect)}</p>`,
    `<p><a href="${escapeHtml(e.link)}">${escapeHtml(lines.upgrade)}</a></p>`,
    `<p>${escapeHtml(lines.resets)}</p>`,
    '</body></html>',
  ].join('\n');
  return { to: e.to, subject: `You've reached the Starter plan's ${STARTER_MONTHLY_CHATS} chats for ${label}`, text, html };
}

/**
 * The 'notify.chatLimit' job: tells the owner, once per month, that new visitors are refused.
 * Nothing is sent when the month is over or the account may chat again (upgraded since).
 */
export async function notifyChatLimit(p: ChatLimitPayload, ctx: JobContext): Promise<void> {
  const { db, log } = ctx;
  const now = new Date();
  if (monthKey(now) !== p.month) return;
  if (await canStartChat(db, p.accountId, now)) return;
  const sent = await sendOwnerOnce(ctx, { accountId: p.accountId, key: chatLimitKey(p.accountId, p.month), kind: 'chatLimit' }, (owner) =>
    composeChatLimitEmail({ to: owner.email, ownerName: owner.name, month: p.month, link: `${ctx.publicUrl}/subscription` }),
  );
  if (sent) log.info({ kind: 'chatLimit', accountId: p.accountId, month: p.month, messageId: sent.messageId }, 'notification sent');
}
