import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { MessageAiDto, MessageDto } from '@parley/shared';
import type { Tx } from '../db/client.js';
import { committedSince } from '../db/commitCursor.js';
import { aiAnswers, aiHandovers, aiPassages, messages, users } from '../db/schema.js';
import { visitorVisibleMessages } from '../policies/messages.js';

export type MessageRow = typeof messages.$inferSelect;

/** One chat message; `author_name` is the staff member's name for sender_type 'user' and 'note'. */
export function presentMessage(m: MessageRow, visitorId: string, authorName: string | null, ai?: MessageAiDto | null): MessageDto {
  const dto: MessageDto = {
    id: m.id,
    visitor_id: visitorId,
    message: m.message,
    file_path: m.filePath,
    file_name: m.fileName,
    file_type: m.fileType,
    file_size: m.fileSize,
    sender_type: m.senderType,
    author_id: m.authorId,
    author_name: m.senderType === 'user' || m.senderType === 'note' ? authorName : null,
    client_id: m.clientId,
    created_at: m.createdAt.toISOString(),
  };
  if (ai) dto.ai = ai;
  return dto;
}

/**
 * Issue 17: the assistant's answer a bot message carries (ai_answers, and the passage it cites), or
 * its hand-over (ai_handovers: when the team is back or replies). Select `aiColumns` with the
 * three left joins below on a messages query, then `aiOf(row)`.
 */
export const aiColumns = {
  aiMessageId: aiAnswers.messageId,
  aiVote: aiAnswers.vote,
  citeTitle: aiPassages.title,
  citeUrl: aiPassages.url,
  handoverId: aiHandovers.messageId,
  handoverBackAt: aiHandovers.backAt,
  handoverReplySeconds: aiHandovers.replySeconds,
};
type AiRow = {
  aiMessageId: number | null;
  aiVote: 'helpful' | 'not_helpful' | null;
  citeTitle: string | null;
  citeUrl: string | null;
  handoverId: number | null;
  handoverBackAt: Date | null;
  handoverReplySeconds: number | null;
};

export function aiOf(r: AiRow): MessageAiDto | undefined {
  if (r.handoverId !== null) return { citation: null, vote: null, handover: { back_at: r.handoverBackAt?.toISOString() ?? null, reply_seconds: r.handoverReplySeconds } };
  if (r.aiMessageId === null) return undefined;
  return { citation: r.citeTitle !== null ? { title: r.citeTitle, url: r.citeUrl } : null, vote: r.aiVote };
}


/**
 * A conversation's messages in database order (ascending id), optionally only those after
 * `sinceId`, or only those committed since a cursor's `snapshot` (db/commitCursor.ts), with
 * their authors' names. Shared by the console and widget so both read the same, except that
 * `forVisitor` keeps only what a visitor may see (policies/messages.ts: no private notes).
 * With `page`: the newest `limit + 1` before `before` (issue 16), still ascending.
 */
export async function conversationMessages(
  db: Tx,
  conversation: { id: number; visitorId: string },
  after: {
    sinceId?: number | undefined;
    snapshot?: string | undefined;
    forVisitor?: boolean;
    page?: { limit: number; before?: number | undefined };
  } = {},
): Promise<MessageDto[]> {
  if (after.page) {
    const { limit, before } = after.page;
    const rows = await db
      .select({ message: messages, authorName: users.name, ...aiColumns })
      .from(messages)
      .leftJoin(users, eq(users.id, messages.authorId))
      .leftJoin(aiAnswers, eq(aiAnswers.messageId, messages.id))
      .leftJoin(aiPassages, eq(aiPassages.id, aiAnswers.passageId))
      .leftJoin(aiHandovers, eq(aiHandovers.messageId, messages.id))
      .where(and(eq(messages.conversationId, conversation.id), before !== undefined ? lt(messages.id, before) : undefined, after.forVisitor ? visitorVisibleMessages() : undefined))
      .orderBy(desc(messages.id))
      .limit(limit + 1);
    return rows.reverse().map((r) => presentMessage(r.message, conversation.visitorId, r.authorName, aiOf(r)));
  }
  const inConversation = eq(messages.conversationId, conversation.id);
  const since =
    after.snapshot !== undefined
      ? committedSince(sql`${messages}.${sql.identifier('xact_id')}`, after.snapshot)
      : after.sinceId !== undefined
        ? gt(messages.id, after.sinceId)
        : undefined;
  const rows = await db
    .select({ message: messages, authorName: users.name, ...aiColumns })
    .from(messages)
    .leftJoin(users, eq(users.id, messages.authorId))
    .leftJoin(aiAnswers, eq(aiAnswers.messageId, messages.id))
    .leftJoin(aiPassages, eq(aiPassages.id, aiAnswers.passageId))
    .leftJoin(aiHandovers, eq(aiHandovers.messageId, messages.id))
    .where(and(inConversation, since, after.forVisitor ? visitorVisibleMessages() : undefined))
    .orderBy(asc(messages.id));
  return rows.map((r) => presentMessage(r.message, conversation.visitorId, r.authorName, aiOf(r)));
}
