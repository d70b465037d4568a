import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { aiChatMessages, aiFeedback, aiPatterns } from '../db/schema.js';
import type { Actor } from '../policies/actor.js';
import type { LearningProgressDto } from '@parley/shared';
import { learningProgress } from './assistant.js';
import { aiResolvedCount } from './visitors.js';

export interface InsightsDto {
  learning_progress: LearningProgressDto;
  /** The account's knowledge by origin, and how much feedback retired. */
  patterns: { active: number; retired: number; taught: number; learned_from_conversations: number };
  /** Feedback given on this user's answers. */
  feedback: { helpful: number; partially_helpful: number; not_helpful: number };
  /** What this user asks about most. */
  top_intents: { intent: string; count: number }[];
  /** Widget conversations answered by the assistant without a hand-over, last 30 days. */
  ai_resolved_last_30_days: number;
}

/** GET chatbot/insights: every figure is counted from stored rows. */
export async function insights(db: Db, actor: Actor): Promise<InsightsDto> {
  const [p] = await db
    .select({
      active: sql<string>`count(*) filter (where not ${aiPatterns.retired})`,
      retired: sql<string>`count(*) filter (where ${aiPatterns.retired})`,
      taught: sql<string>`count(*) filter (where not ${aiPatterns.retired} and ${aiPatterns.source} = 'taught')`,
      learned: sql<string>`count(*) filter (where not ${aiPatterns.retired} and ${aiPatterns.source} = 'conversation')`,
    })
    .from(aiPatterns)
    .where(eq(aiPatterns.accountId, actor.accountId));
  const fb = await db
    .select({ value: aiFeedback.value, n: sql<string>`count(*)` })
    .from(aiFeedback)
    .innerJoin(aiChatMessages, eq(aiChatMessages.id, aiFeedback.messageId))
    .where(eq(aiChatMessages.userId, actor.id))
    .groupBy(aiFeedback.value);
  const count = (v: string) => Number(fb.find((r) => r.value === v)?.n ?? 0);
  const intents = await db
    .select({ intent: aiChatMessages.intentDetected, n: sql<string>`count(*)` })
    .from(aiChatMessages)
    .where(and(eq(aiChatMessages.userId, actor.id), eq(aiChatMessages.senderType, 'bot')))
    .groupBy(aiChatMessages.intentDetected)
    .orderBy(desc(sql`count(*)`))
    .limit(5);
  return {
    learning_progress: await learningProgress(db, actor),
    patterns: { active: Number(p?.active ?? 0), retired: Number(p?.retired ?? 0), taught: Number(p?.taught ?? 0), learned_from_conversations: Number(p?.learned ?? 0) },
    feedback: { helpful: count('helpful'), partially_helpful: count('partially_helpful'), not_helpful: count('not_helpful') },
    top_intents: intents.map((r) => ({ intent: r.intent ?? 'unknown', count: Number(r.n) })),
    ai_resolved_last_30_days: await aiResolvedCount(db, actor.accountId, new Date(Date.now() - 30 * 86_400_000)),
  };
}
