import { and, desc, eq, gte, sql } from 'drizzle-orm';
import { RATING_ALREADY_GIVEN, RATING_NOT_DUE, RATING_SURVEY_OFF, type RatingDto, type RatingInput, type RatingStateDto } from '@parley/shared';
import type { Db, Tx } from '../../db/client.js';
import { accounts, conversations, messages, ratings, users } from '../../db/schema.js';
import { HttpError } from '../../errors.js';
import type { ConversationRow } from '../../presenters/conversation.js';
import type { VisitorRow } from '../../presenters/visitor.js';
import type { DomainEvents } from '../../services/domainEvents.js';
import { insertSystemLine } from '../../commands/systemLine.js';

/**
 * Ratings (CSAT, issue 13): a visitor rates the current stretch of their conversation once
 * (PRODUCT.md section 11), when it was resolved or an agent answered in it, unless the owner
 * turned the survey off. The rating becomes a console-only system line in the thread.
 */

type Reader = Db | Tx;

export const ratingLine = (who: string, score: number, comment: string) =>
  `${who || 'The visitor'} rated the conversation ${score}/5${comment ? `: “${comment}”` : ''}`;

/** Did a member answer in the stretch that started at `since`? */
async function answeredSince(db: Reader, conversation: ConversationRow): Promise<boolean> {
  const [row] = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.conversationId, conversation.id), eq(messages.senderType, 'user'), gte(messages.createdAt, conversation.openedAt)))
    .limit(1);
  return !!row;
}

async function surveyOn(db: Reader, accountId: string): Promise<boolean> {
  const [row] = await db.select({ on: accounts.csatEnabled }).from(accounts).where(eq(accounts.id, accountId));
  return row?.on ?? false;
}

async function ratedStretch(db: Reader, conversation: ConversationRow): Promise<boolean> {
  const [row] = await db
    .select({ id: ratings.id })
    .from(ratings)
    .where(and(eq(ratings.conversationId, conversation.id), eq(ratings.stretchOpenedAt, conversation.openedAt)));
  return !!row;
}

/** Why the stretch may not be rated now (a message for the envelope), or null when it may. */
async function refusal(db: Reader, conversation: ConversationRow | undefined): Promise<{ status: number; message: string } | null> {
  if (!conversation) return { status: 409, message: RATING_NOT_DUE };
  if (!(await surveyOn(db, conversation.accountId))) return { status: 403, message: RATING_SURVEY_OFF };
  if (await ratedStretch(db, conversation)) return { status: 409, message: RATING_ALREADY_GIVEN };
  if (conversation.status !== 'resolved' && !(await answeredSince(db, conversation))) return { status: 409, message: RATING_NOT_DUE };
  return null;
}

/** GET /api/widget/rating: whether the widget should ask this visitor now. */
export async function ratingState(db: Db, visitor: VisitorRow): Promise<RatingStateDto> {
  const [conversation] = await db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
  if (!conversation) return { due: false, stretch: null };
  return { due: (await refusal(db, conversation)) === null, stretch: conversation.openedAt.toISOString() };
}

/** Whether a just-resolved conversation's visitor should be asked (the resolve push). */
export async function ratingDue(db: Db, conversation: ConversationRow): Promise<boolean> {
  return (await refusal(db, conversation)) === null;
}

export function presentRating(r: typeof ratings.$inferSelect): RatingDto {
  return { id: r.id, score: r.score, comment: r.comment, stretch: r.stretchOpenedAt.toISOString(), agent_id: r.agentId, created_at: r.createdAt.toISOString() };
}

/** POST /api/widget/rating: stores the rating and its line, under the conversation's row lock. */
export async function rateConversation(deps: { db: Db; events: DomainEvents }, visitor: VisitorRow, input: RatingInput): Promise<RatingDto> {
  const outcome = await deps.db.transaction(async (tx) => {
    const [conversation] = await tx.select().from(conversations).where(eq(conversations.visitorId, visitor.id)).for('update');
    const refused = await refusal(tx, conversation);
    if (refused) throw new HttpError(refused.status, refused.message);
    const c = conversation!;
    // Who answered: the assignee, else the last member who replied in the stretch.
    let agentId = c.assigneeId;
    if (agentId === null) {
      const [last] = await tx
        .select({ authorId: messages.authorId })
        .from(messages)
        .where(and(eq(messages.conversationId, c.id), eq(messages.senderType, 'user'), gte(messages.createdAt, c.openedAt)))
        .orderBy(desc(messages.id))
        .limit(1);
      agentId = last?.authorId ?? null;
    }
    const [rating] = await tx
      .insert(ratings)
      .values({ accountId: c.accountId, conversationId: c.id, stretchOpenedAt: c.openedAt, agentId, score: input.score, comment: input.comment })
      .onConflictDoNothing()
      .returning();
    if (!rating) throw new HttpError(409, RATING_ALREADY_GIVEN);
    const line = await insertSystemLine(tx, c, ratingLine(visitor.name, input.score, input.comment), null);
    const [assignee] = c.assigneeId === null ? [] : await tx.select({ name: users.name }).from(users).where(eq(users.id, c.assigneeId));
    return { rating, conversation: c, line, assigneeName: assignee?.name ?? null };
  });
  await deps.events.emit('conversation.changed', {
    accountId: visitor.accountId,
    conversation: outcome.conversation,
    visitor,
    previousAssigneeId: outcome.conversation.assigneeId,
    assigneeName: outcome.assigneeName,
    line: outcome.line,
    lineAuthorName: null,
  });
  const rating = presentRating(outcome.rating);
  await deps.events.emit('rating.given', { accountId: visitor.accountId, conversation: outcome.conversation, visitor, rating: { ...rating } });
  return rating;
}

/** Average score (one decimal) and count of the ratings matching `where`. */
export async function averageOf(db: Db, where: ReturnType<typeof sql>): Promise<{ average: number | null; count: number }> {
  const [row] = await db
    .select({ avg: sql<string | null>`avg(${ratings.score})`, n: sql<number>`count(*)::int` })
    .from(ratings)
    .where(where);
  const n = Number(row?.n ?? 0);
  return { average: n > 0 && row?.avg != null ? Math.round(Number(row.avg) * 10) / 10 : null, count: n };
}
