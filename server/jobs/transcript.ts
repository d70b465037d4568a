/**
 * Issue 13: a conversation's transcript emailed to the visitor who asked for it (widget menu),
 * with the business's name, readable HTML and a text part. Queued by routes/transcripts when
 * asked after a resolve, or when a conversation with a pending request is resolved.
 */
import { and, asc, eq, gte } from 'drizzle-orm';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { IMAGE_PLACEHOLDER } from '../commands/sendMessage.js';
import { accounts, conversations, messages, users, visitors, widgetSettings } from '../db/schema.js';
import { sendOnce } from '../notifications/sendOnce.js';
import { visitorVisibleMessages } from '../policies/messages.js';
import { escapeHtml } from '../services/html.js';
import { defineJob, type JobContext } from './types.js';

export const TRANSCRIPT_JOB = 'transcript.send';

const payloadSchema = z.object({
  accountId: z.uuid(),
  conversationId: z.number().int().positive(),
  email: z.string().min(3).max(254),
  /** The stretch sent: messages from its start (ISO). */
  from: z.string(),
  /** One email per request, however often the job runs. */
  key: z.string().min(1).max(200),
});
export type TranscriptPayload = z.output<typeof payloadSchema>;

const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').trim();

/** The text and HTML of a transcript: who wrote what, when, in the account's time zone. */
export function composeTranscript(input: {
  business: string;
  visitorName: string;
  timeZone: string;
  lines: { who: string; text: string; at: Date; mine: boolean }[];
}): { subject: string; text: string; html: string } {
  const { business, timeZone } = input;
  const when = (at: Date) => DateTime.fromJSDate(at).setZone(timeZone).toFormat('d LLL yyyy, HH:mm');
  const subject = `Your conversation with ${business}`.slice(0, 200);
  const intro = `Here is the transcript of your conversation with ${business}.`;
  const text = [
    `Hello${input.visitorName ? ` ${input.visitorName}` : ''},`,
    '',
    intro,
    '',
    ...input.lines.flatMap((l) => [`[${when(l.at)}] ${l.who}:`, l.text, '']),
    `Times are in ${timeZone}.`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;color:#111;max-width:640px">',
    `<p>Hello${input.visitorName ? ` ${escapeHtml(input.visitorName)}` : ''},</p>`,
    `<p>${escapeHtml(intro)}</p>`,
    '<table role="presentation" style="border-collapse:collapse;width:100%">',
    ...input.lines.map(
      (l) =>
        `<tr><td style="padding:6px 0;vertical-align:top;border-bottom:1px solid #eee"><b>${escapeHtml(l.who)}</b> ` +
        `<small style="color:#666">${escapeHtml(when(l.at))}</small><br>` +
        `<span style="white-space:pre-wrap">${escapeHtml(l.text)}</span></td></tr>`,
    ),
    '</table>',
    `<p><small>Times are in ${escapeHtml(timeZone)}.</small></p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

export async function sendTranscript(p: TranscriptPayload, ctx: JobContext): Promise<void> {
  const { db } = ctx;
  const [row] = await db
    .select({ visitor: visitors, business: widgetSettings.name, timeZone: accounts.timeZone })
    .from(conversations)
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .innerJoin(accounts, eq(accounts.id, conversations.accountId))
    .leftJoin(widgetSettings, eq(widgetSettings.accountId, conversations.accountId))
    .where(and(eq(conversations.id, p.conversationId), eq(conversations.accountId, p.accountId)));
  if (!row) return; // the conversation or account is gone
  const business = oneLine(row.business ?? '') || 'The support team';
  // What the visitor saw: their messages, the team's replies and the assistant's, never notes or system lines.
  const rows = await db
    .select({ senderType: messages.senderType, text: messages.message, filePath: messages.filePath, at: messages.createdAt, author: users.name })
    .from(messages)
    .leftJoin(users, eq(users.id, messages.authorId))
    .where(and(eq(messages.conversationId, p.conversationId), visitorVisibleMessages(), gte(messages.createdAt, new Date(p.from))))
    .orderBy(asc(messages.id));
  if (rows.length === 0) return;
  const visitorName = oneLine(row.visitor.name);
  const lines = rows.map((m) => ({
    who: m.senderType === 'visitor' ? visitorName || 'You' : oneLine(m.author ?? '') || business,
    text: m.text || (m.filePath ? IMAGE_PLACEHOLDER : ''),
    at: m.at,
    mine: m.senderType === 'visitor',
  }));
  const mail = composeTranscript({ business, visitorName, timeZone: row.timeZone, lines });
  const sent = await sendOnce(ctx, { key: p.key, accountId: p.accountId, conversationId: p.conversationId, kind: 'transcript', recipient: p.email }, () => ({ to: p.email, ...mail }));
  if (sent) ctx.log.info({ conversationId: p.conversationId, messages: rows.length }, 'transcript email sent');
}

/** Registered in jobs/registry.ts. */
export const transcriptJobs = [defineJob({ name: TRANSCRIPT_JOB, schema: payloadSchema, handle: sendTranscript })] as const;
