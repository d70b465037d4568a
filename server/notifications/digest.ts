import { and, asc, count, eq, inArray, max } from 'drizzle-orm';
import { conversations, sentEmails, visitors } from '../db/schema.js';
import { DeferJob, type JobContext } from '../jobs/types.js';
import type { MailMessage } from '../services/mail.js';
import { escapeHtml } from '../services/html.js';
import { kindLabel, type NotificationKind } from './compose.js';
import { sendOwnerOnce } from './sendOnce.js';

/** Conversations listed one by one in a digest; the rest are counted. */
const LISTED = 50;
const EXCERPT = 140;

export interface DigestItem {
  conversationId: number;
  visitorId: string;
  name: string;
  email: string;
  kinds: NotificationKind[];
  lastMessage: string;
}

const excerpt = (s: string) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return [...one].length > EXCERPT ? `${[...one].slice(0, EXCERPT - 1).join('')}\u2026` : one;
};
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The digest: a subject of fixed words and counts only, and the conversations (visitor text escaped in HTML). */
export function composeDigestEmail(e: {
  to: string;
  items: DigestItem[];
  budget: { count: number; windowMs: number };
  publicUrl: string;
}): Omit<MailMessage, 'messageId'> {
  const newChats = e.items.filter((i) => i.kinds.includes('newChat')).length;
  const waiting = e.items.length - newChats;
  const parts = [newChats > 0 ? plural(newChats, 'new chat', 'new chats') : '', waiting > 0 ? plural(waiting, 'conversation waiting', 'conversations waiting') : ''];
  const subject = `Parley: ${parts.filter(Boolean).join(' and ')}`;
  const minutes = Math.round(e.budget.windowMs / 60_000);
  const intro = `More visitors wrote than your notification budget allows (${plural(e.budget.count, 'email', 'emails')} per ${minutes >= 1 ? plural(minutes, 'minute', 'minutes') : 'minute'}), so they come together in this digest.`;
  const link = (i: DigestItem) => `${e.publicUrl}/conversations?visitor=${encodeURIComponent(i.visitorId)}`;
  const who = (i: DigestItem) => i.name || i.email || 'A visitor';
  const listed = e.items.slice(0, LISTED);
  const more = e.items.length - listed.length;
  const inbox = `${e.publicUrl}/conversations`;
  const text = [
    intro,
    '',
    ...listed.map((i) => `- ${who(i)} (${i.kinds.map(kindLabel).join(', ')}): ${excerpt(i.lastMessage)}\n  ${link(i)}`),
    ...(more > 0 ? ['', `and ${plural(more, 'more conversation', 'more conversations')}.`] : []),
    '',
    `Open your conversations: ${inbox}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(intro)}</p>`,
    '<ul>',
    ...listed.map(
      (i) =>
        `<li><a href="${escapeHtml(link(i))}">${escapeHtml(who(i))}</a> <small>(${escapeHtml(i.kinds.map(kindLabel).join(', '))})</small>: ${escapeHtml(excerpt(i.lastMessage))}</li>`,
    ),
    '</ul>',
    ...(more > 0 ? [`<p>and ${escapeHtml(plural(more, 'more conversation', 'more conversations'))}.</p>`] : []),
    `<p><a href="${escapeHtml(inbox)}">Open your conversations</a></p>`,
    '</body></html>',
  ].join('\n');
  return { to: e.to, subject, text, html };
}

/**
 * The 'notify.digest' job: the account's held notification emails in one email, at most one
 * digest per NOTIFY_DIGEST_SECONDS (an earlier one makes it wait).
 */
export async function notifyDigest(p: { accountId: string }, ctx: JobContext): Promise<void> {
  const { db } = ctx;
  const { digestMs } = ctx.settings.emailBudget;
  const [last] = await db
    .select({ at: max(sentEmails.sentAt) })
    .from(sentEmails)
    .where(and(eq(sentEmails.accountId, p.accountId), eq(sentEmails.kind, 'digest'), eq(sentEmails.status, 'sent')));
  const lastAt = last?.at ? new Date(last.at).getTime() : 0;
  if (Date.now() - lastAt < digestMs) throw new DeferJob(lastAt + digestMs);

  const held = await db
    .select({
      id: sentEmails.id,
      kind: sentEmails.kind,
      conversationId: conversations.id,
      visitorId: visitors.id,
      name: visitors.name,
      email: visitors.email,
      lastMessage: conversations.lastMessage,
    })
    .from(sentEmails)
    .innerJoin(conversations, eq(conversations.id, sentEmails.conversationId))
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .where(and(eq(sentEmails.accountId, p.accountId), eq(sentEmails.status, 'held')))
    .orderBy(asc(sentEmails.id));
  if (held.length === 0) return;

  const items = new Map<number, DigestItem>();
  for (const h of held) {
    const item = items.get(h.conversationId) ?? { conversationId: h.conversationId, visitorId: h.visitorId, name: h.name, email: h.email, kinds: [], lastMessage: h.lastMessage ?? '' };
    if (!item.kinds.includes(h.kind as NotificationKind)) item.kinds.push(h.kind as NotificationKind);
    items.set(h.conversationId, item);
  }
  const sent = await sendOwnerOnce(ctx, { accountId: p.accountId, key: `digest:${p.accountId}:${held[0]!.id}`, kind: 'digest' }, (owner) =>
    composeDigestEmail({ to: owner.email, items: [...items.values()], budget: ctx.settings.emailBudget, publicUrl: ctx.publicUrl }),
  );
  if (sent === undefined) return; // no owner any more
  await db
    .update(sentEmails)
    .set({ status: 'digested', sentAt: new Date() })
    .where(inArray(sentEmails.id, held.map((h) => h.id)));
  if (sent) ctx.log.info({ kind: 'digest', accountId: p.accountId, conversations: items.size, messageId: sent.messageId }, 'notification digest sent');
  // Emails held while this digest was read and sent did not schedule a digest of their own: this
  // job's outbox row still held the account's digest key (budget.ts), so theirs was dropped as a
  // duplicate. This job comes again for them, after the digest interval.
  const [left] = await db
    .select({ n: count() })
    .from(sentEmails)
    .where(and(eq(sentEmails.accountId, p.accountId), eq(sentEmails.status, 'held')));
  if ((left?.n ?? 0) > 0) throw new DeferJob(Date.now() + digestMs);
}
