/**
 * Agent replies emailed to an away visitor (issue 12 item 8). The widget's offline form promises
 * an answer by email: when an agent writes in a conversation whose visitor left an email, a job
 * recorded with the reply (notifications/messageJobs.ts) waits a short window (later replies join
 * it: one email for a burst), then, unless the visitor has the chat open or came back to it,
 * sends the visitor the replies with the business's name and a signed link back to the chat
 * (services/visitorLinks.ts; the page is routes/chatLink). Replies by email are not read.
 */
import { and, asc, eq, gte } from 'drizzle-orm';
import { z } from 'zod';
import { IMAGE_PLACEHOLDER } from '../commands/sendMessage.js';
import { conversations, messages, users, visitors, widgetSettings } from '../db/schema.js';
import { defineJob, type JobContext } from '../jobs/types.js';
import { escapeHtml } from '../services/html.js';
import { signVisitorLink, VISITOR_LINK_DAYS } from '../services/visitorLinks.js';
import { sendOnce } from './sendOnce.js';

const payloadSchema = z
  .object({
    accountId: z.uuid(),
    conversationId: z.number().int().positive(),
    /** The first reply of the burst: the email carries it and every agent reply after it. */
    messageId: z.number().int().positive().optional(),
    /** The same, as jobs queued by an earlier release name it. */
    fromMessageId: z.number().int().positive().optional(),
  })
  .refine((p) => p.messageId !== undefined || p.fromMessageId !== undefined, { error: 'messageId is required' });
type VisitorReplyPayload = z.output<typeof payloadSchema>;

const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

/** The job: the burst's replies in one email, unless the visitor came back to the chat meanwhile. */
export async function sendVisitorReply(p: VisitorReplyPayload, ctx: JobContext): Promise<void> {
  const { db, log } = ctx;
  const [row] = await db
    .select({ visitor: visitors, business: widgetSettings.name })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .leftJoin(widgetSettings, eq(widgetSettings.accountId, conversations.accountId))
    .where(and(eq(conversations.id, p.conversationId), eq(conversations.accountId, p.accountId)));
  if (!row?.visitor.email) return; // gone, or the email was removed since
  const { visitor } = row;

  const fromMessageId = (p.messageId ?? p.fromMessageId) as number;
  // The reply reached them live (a widget open on any node); a worker without sockets
  // (`npm run worker`) relies on the visit check below.
  if (ctx.visitorOnline && (await ctx.visitorOnline(visitor.id))) {
    log.info({ conversationId: p.conversationId }, 'visitor reply email skipped: the visitor is in the chat');
    return;
  }
  const replies = await db
    .select({ id: messages.id, text: messages.message, filePath: messages.filePath, at: messages.createdAt, author: users.name })
    .from(messages)
    .leftJoin(users, eq(users.id, messages.authorId))
    .where(and(eq(messages.conversationId, p.conversationId), eq(messages.senderType, 'user'), gte(messages.id, fromMessageId)))
    .orderBy(asc(messages.id));
  const last = replies.at(-1);
  if (!last) return;
  // The widget was open after the last reply (it records the visitor's visits): they have seen it.
  if (visitor.lastSeenAt >= last.at) {
    log.info({ conversationId: p.conversationId }, 'visitor reply email skipped: the visitor came back');
    return;
  }

  const business = oneLine(row.business ?? '') || 'The support team';
  const link = `${ctx.publicUrl}/api/chat/${await signVisitorLink(db, visitor.id)}`;
  const greeting = `Hello${visitor.name ? ` ${oneLine(visitor.name)}` : ''},`;
  const intro = `${business} replied to your message:`;
  const lines = replies.map((r) => ({ author: r.author ?? business, text: r.text || (r.filePath ? IMAGE_PLACEHOLDER : '') }));
  const outro = `Continue the chat here (the link works for ${VISITOR_LINK_DAYS} days). Answers sent to this email address are not read.`;

  const key = `visitorReply:${p.conversationId}:${last.id}`;
  const sent = await sendOnce(ctx, { key, accountId: p.accountId, conversationId: p.conversationId, kind: 'visitorReply', recipient: visitor.email }, () => ({
    to: visitor.email,
    subject: `${business} replied to your message`.slice(0, 200),
    text: [greeting, '', intro, '', ...lines.map((l) => `${l.author}: ${l.text}`), '', outro, link, ''].join('\n'),
    html: [
      '<!doctype html><html><body style="font-family:sans-serif">',
      `<p>${escapeHtml(greeting)}</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      '<ul>',
      ...lines.map((l) => `<li><b>${escapeHtml(l.author)}</b>: ${escapeHtml(l.text)}</li>`),
      '</ul>',
      `<p><a href="${escapeHtml(link)}">Continue the chat with ${escapeHtml(business)}</a></p>`,
      `<p><small>${escapeHtml(outro)}</small></p>`,
      '</body></html>',
    ].join('\n'),
  }));
  if (sent) log.info({ conversationId: p.conversationId, replies: replies.length }, 'visitor reply email sent');
}

/** Registered in jobs/registry.ts. */
export const visitorReplyJobs = [defineJob({ name: 'notify.visitorReply', schema: payloadSchema, handle: sendVisitorReply })] as const;
