import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { aiChatMessages, aiFeedback, aiPassages, aiPatterns, conversations, users } from '../db/schema.js';
import { notFound } from '../errors.js';
import { pageOf } from '../presenters/page.js';
import type { Actor } from '../policies/actor.js';
import type { KnowledgeDto, KnowledgeStatus, PendingFeedbackDto } from '@parley/shared';
import { feedback, feedbackPassage } from './engine.js';

/**
 * The owner's review of what the assistant learned (the AI Chatbot screen's review queue), and
 * of Agents' ratings waiting to change answers. Owner/Admin only: the routes authorize.
 */

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

const knowledgeColumns = {
  p: aiPatterns,
  authorName: users.name,
  visitorId: conversations.visitorId,
};

function presentKnowledge(r: { p: typeof aiPatterns.$inferSelect; authorName: string | null; visitorId: string | null }): KnowledgeDto {
  const p = r.p;
  return {
    id: p.id,
    source: p.source,
    status: p.status,
    question: p.question,
    answer: p.answer,
    redactions: p.redactions,
    uses: p.uses,
    helpful: p.helpful,
    not_helpful: p.notHelpful,
    retired: p.retired,
    conversation_id: p.conversationId,
    visitor_id: r.visitorId,
    author: p.authorId !== null && r.authorName !== null ? { id: p.authorId, name: r.authorName } : null,
    reviewed_at: p.reviewedAt?.toISOString() ?? null,
    created_at: p.createdAt.toISOString(),
  };
}

/** Counts per status, so the queue can say how much is waiting. */
export async function knowledgeCounts(db: Db, accountId: string): Promise<Record<KnowledgeStatus, number> & { pending_feedback: number }> {
  const rows = await db
    .select({ status: aiPatterns.status, n: sql<string>`count(*)` })
    .from(aiPatterns)
    .where(eq(aiPatterns.accountId, accountId))
    .groupBy(aiPatterns.status);
  const n = (s: KnowledgeStatus) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  const [fb] = await db
    .select({ n: sql<string>`count(*)` })
    .from(aiFeedback)
    .where(and(eq(aiFeedback.accountId, accountId), eq(aiFeedback.pending, true)));
  return { pending: n('pending'), approved: n('approved'), rejected: n('rejected'), pending_feedback: Number(fb?.n ?? 0) };
}

/** One page of the account's knowledge with a status, newest first. */
export async function listKnowledge(
  db: Db,
  actor: Actor,
  q: { status: KnowledgeStatus; limit: number; cursor?: number | undefined },
): Promise<Page<KnowledgeDto>> {
  const rows = await db
    .select(knowledgeColumns)
    .from(aiPatterns)
    .leftJoin(users, eq(users.id, aiPatterns.authorId))
    .leftJoin(conversations, eq(conversations.id, aiPatterns.conversationId))
    .where(
      and(
        eq(aiPatterns.accountId, actor.accountId),
        eq(aiPatterns.status, q.status),
        q.cursor !== undefined ? lt(aiPatterns.id, q.cursor) : undefined,
      ),
    )
    .orderBy(desc(aiPatterns.id))
    .limit(q.limit + 1);
  const page = pageOf(rows, q.limit, (r) => [r.p.id]);
  return { data: page.rows.map(presentKnowledge), has_more: page.hasMore, next_cursor: page.nextCursor };
}

export interface KnowledgeChange {
  question?: string | undefined;
  answer?: string | undefined;
  status?: KnowledgeStatus | undefined;
}

/** Approve, edit or reject one piece of knowledge of the actor's account (another account's: 404). */
export async function reviewKnowledge(db: Db, actor: Actor, id: number, change: KnowledgeChange): Promise<KnowledgeDto> {
  const set = {
    ...(change.question !== undefined ? { question: change.question } : {}),
    ...(change.answer !== undefined ? { answer: change.answer } : {}),
    ...(change.status !== undefined ? { status: change.status, reviewedBy: actor.id, reviewedAt: new Date() } : {}),
    rev: sql`nextval('ai_patterns_rev_seq')`,
  };
  const [row] = await db
    .update(aiPatterns)
    .set(set)
    .where(and(eq(aiPatterns.id, id), eq(aiPatterns.accountId, actor.accountId)))
    .returning({ id: aiPatterns.id });
  if (!row) throw notFound('Knowledge not found');
  const [full] = await db
    .select(knowledgeColumns)
    .from(aiPatterns)
    .leftJoin(users, eq(users.id, aiPatterns.authorId))
    .leftJoin(conversations, eq(conversations.id, aiPatterns.conversationId))
    .where(eq(aiPatterns.id, row.id));
  return presentKnowledge(full!);
}


/** Agents' ratings waiting for confirmation, newest first. */
export async function listPendingFeedback(db: Db, actor: Actor, q: { limit: number; cursor?: number | undefined }): Promise<Page<PendingFeedbackDto>> {
  const rows = await db
    .select({ f: aiFeedback, m: aiChatMessages, userName: users.name, question: aiPatterns.question, cited: aiPassages.title })
    .from(aiFeedback)
    .innerJoin(aiChatMessages, eq(aiChatMessages.id, aiFeedback.messageId))
    .innerJoin(users, eq(users.id, aiChatMessages.userId))
    .leftJoin(aiPatterns, eq(aiPatterns.id, aiChatMessages.patternId))
    .leftJoin(aiPassages, eq(aiPassages.id, aiChatMessages.passageId))
    .where(
      and(
        eq(aiFeedback.accountId, actor.accountId),
        eq(aiFeedback.pending, true),
        q.cursor !== undefined ? lt(aiFeedback.messageId, q.cursor) : undefined,
      ),
    )
    .orderBy(desc(aiFeedback.messageId))
    .limit(q.limit + 1);
  const page = pageOf(rows, q.limit, (r) => [r.f.messageId]);
  return {
    data: page.rows.map((r) => ({
      message_id: r.f.messageId,
      feedback: r.f.value,
      answer: r.m.content,
      // A passage answer (issue 17): the source it cites stands for the question.
      question: r.question ?? r.cited ?? '',
      pattern_id: r.m.patternId,
      passage_id: r.m.passageId,
      user: { id: r.m.userId, name: r.userName },
      updated_at: r.f.updatedAt.toISOString(),
    })),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/** Confirm (apply to the pattern's weight) or dismiss (keep recorded, never applied) an Agent's rating. */
export async function reviewFeedback(db: Db, actor: Actor, messageId: number, decision: 'confirm' | 'dismiss'): Promise<{ message_id: number; applied: boolean }> {
  const [row] = await db
    .select({ f: aiFeedback, patternId: aiChatMessages.patternId, passageId: aiChatMessages.passageId })
    .from(aiFeedback)
    .innerJoin(aiChatMessages, eq(aiChatMessages.id, aiFeedback.messageId))
    .where(and(eq(aiFeedback.messageId, messageId), eq(aiFeedback.accountId, actor.accountId), eq(aiFeedback.pending, true)));
  if (!row) throw notFound('Feedback not found');
  const confirm = decision === 'confirm';
  // Conditional on still pending: two reviewers confirming at once apply it once.
  const [changed] = await db
    .update(aiFeedback)
    .set({ pending: false, ...(confirm ? { appliedValue: row.f.value } : {}) })
    .where(and(eq(aiFeedback.messageId, messageId), eq(aiFeedback.pending, true)))
    .returning({ id: aiFeedback.messageId });
  if (!changed) throw notFound('Feedback not found');
  if (confirm && row.patternId !== null) await feedback(db, row.patternId, row.f.value, row.f.appliedValue ?? undefined);
  if (confirm && row.passageId !== null) await feedbackPassage(db, row.passageId, row.f.value, row.f.appliedValue ?? undefined);
  return { message_id: messageId, applied: confirm };
}
