import { and, asc, desc, eq, ne, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/client.js';
import { aiChatMessages, aiFeedback, aiPassages, aiPatterns, conversations } from '../db/schema.js';
import { HttpError, notFound } from '../errors.js';
import type { UploadedImage } from '../plugins/uploads.js';
import type { Actor } from '../policies/actor.js';
import { visibleConversations } from '../policies/conversations.js';
import { can } from '../policies/index.js';
import type { ChatbotMessageDto, LearningProgressDto } from '@parley/shared';
import { ANSWER_THRESHOLD, answer, approvedOnly, type Citation, type FeedbackValue, feedback, feedbackPassage, learn } from './engine.js';
import type { PatternFilter } from './knowledge.js';
import { describeImage, imageFacts } from './image.js';
import { taughtFact } from './intents.js';

/** The console's assistant chat: one history per user, answers from the account's knowledge. */

type ChatRow = typeof aiChatMessages.$inferSelect;


export const TEACH_FORBIDDEN = 'Only the owner or an Admin can teach the assistant';

/**
 * The knowledge an asker may be answered from (PRODUCT.md section 11): approved knowledge is
 * account-wide; knowledge waiting for review answers only those who may see the conversation
 * it came from (owners and Admins see all; an Agent, theirs and unassigned ones).
 */
export async function knowledgeVisibleTo(db: Db, actor: Actor): Promise<PatternFilter> {
  if (can(actor, 'conversations.readAll')) return () => true;
  const rows = await db
    .selectDistinct({ id: aiPatterns.conversationId })
    .from(aiPatterns)
    .innerJoin(conversations, eq(conversations.id, aiPatterns.conversationId))
    .where(and(eq(aiPatterns.accountId, actor.accountId), eq(aiPatterns.status, 'pending'), visibleConversations(actor)));
  const mine = new Set(rows.map((r) => r.id));
  return (p) => approvedOnly(p) || (p.conversationId != null && mine.has(p.conversationId));
}

/** What a message DTO shows of the passage it cites. */
type CitedPassage = Pick<Citation, 'sourceId' | 'title' | 'url'> | null;

export function presentChatMessage(m: ChatRow, fb: FeedbackValue | null = null, cited: CitedPassage = null): ChatbotMessageDto {
  const bot = m.senderType === 'bot';
  return {
    id: m.id,
    sender_type: m.senderType,
    content: m.content,
    file_path: m.filePath,
    confidence_score: bot ? m.confidenceScore : null,
    intent_detected: bot ? m.intentDetected : null,
    feedback: bot ? fb : null,
    sources: bot && cited && m.passageId !== null ? [{ title: cited.title, url: cited.url, source_id: cited.sourceId, passage_id: m.passageId }] : [],
    created_at: m.createdAt.toISOString(),
  };
}

const HISTORY_LIMIT = 200;
const DEFAULT_SUGGESTIONS = ['Hello', 'Need help?', 'Contact support'];

export async function history(db: Db, actor: Actor): Promise<ChatbotMessageDto[]> {
  const rows = await db
    .select({ m: aiChatMessages, fb: aiFeedback.value, sourceId: aiPassages.sourceId, title: aiPassages.title, url: aiPassages.url })
    .from(aiChatMessages)
    .leftJoin(aiFeedback, eq(aiFeedback.messageId, aiChatMessages.id))
    .leftJoin(aiPassages, eq(aiPassages.id, aiChatMessages.passageId))
    .where(and(eq(aiChatMessages.userId, actor.id), eq(aiChatMessages.accountId, actor.accountId)))
    .orderBy(desc(aiChatMessages.id))
    .limit(HISTORY_LIMIT);
  return rows.reverse().map((r) => presentChatMessage(r.m, r.fb, r.sourceId !== null ? { sourceId: r.sourceId, title: r.title!, url: r.url } : null));
}

/** The account's most used approved questions, as chips to try (the same for everyone). */
export async function popularQuestions(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .select({ q: aiPatterns.question })
    .from(aiPatterns)
    .where(and(eq(aiPatterns.accountId, accountId), eq(aiPatterns.retired, false), eq(aiPatterns.status, 'approved')))
    .orderBy(desc(aiPatterns.uses), desc(aiPatterns.weight), asc(aiPatterns.id))
    .limit(4);
  return rows.length ? rows.map((r) => r.q.slice(0, 120)) : DEFAULT_SUGGESTIONS;
}

/** Real counts: the user's questions and the answers they got; the account's active patterns. */
export async function learningProgress(db: Db, actor: Actor): Promise<LearningProgressDto> {
  const mine = and(eq(aiChatMessages.userId, actor.id), eq(aiChatMessages.accountId, actor.accountId));
  // Teaching acknowledgements are not answers: they would inflate the figures.
  const answers = and(mine, eq(aiChatMessages.senderType, 'bot'), sql`${aiChatMessages.intentDetected} is distinct from 'teach'`);
  const [asked] = await db
    .select({ n: sql<string>`count(*)` })
    .from(aiChatMessages)
    .where(and(mine, eq(aiChatMessages.senderType, 'user')));
  const [bot] = await db
    .select({
      n: sql<string>`count(${aiChatMessages.confidenceScore})`,
      avg: sql<string | null>`avg(${aiChatMessages.confidenceScore})`,
      known: sql<string>`count(*) filter (where ${aiChatMessages.confidenceScore} >= ${ANSWER_THRESHOLD})`,
    })
    .from(aiChatMessages)
    .where(answers);
  const [patterns] = await db
    .select({ n: sql<string>`count(*)` })
    .from(aiPatterns)
    .where(and(eq(aiPatterns.accountId, actor.accountId), eq(aiPatterns.retired, false), ne(aiPatterns.status, 'rejected')));
  const answered = Number(bot?.n ?? 0);
  return {
    total_interactions: Number(asked?.n ?? 0),
    learned_patterns: Number(patterns?.n ?? 0),
    average_confidence: Math.round(Number(bot?.avg ?? 0) * 1000) / 1000,
    learning_efficiency: answered ? Math.round((1000 * Number(bot?.known ?? 0)) / answered) / 10 : 0,
  };
}

export interface SendResult {
  data: ChatbotMessageDto[];
  suggestions: string[];
}

/** Stores the user's message, works out the reply (teach, image, or an answer) and stores it. */
export async function sendToAssistant(app: FastifyInstance, actor: Actor, text: string, image?: UploadedImage): Promise<SendResult> {
  const db = app.db;
  const fact = text ? taughtFact(text) : undefined;
  // What visitors are told is the owner's and Admins' to decide (PRODUCT.md section 2).
  const canTeach = can(actor, 'ai.manage');
  if (fact && !canTeach) throw new HttpError(403, TEACH_FORBIDDEN);
  const filePath = image ? await app.storage.save(actor.accountId, image.bytes, image.ext) : '';
  const [mine] = await db
    .insert(aiChatMessages)
    .values({ accountId: actor.accountId, userId: actor.id, senderType: 'user', content: text, filePath })
    .returning();

  let content: string;
  let confidence: number;
  let intent: string;
  let patternId: number | null = null;
  let citation: Citation | null = null;
  let suggestions: string[] = [];
  if (fact) {
    await learn(db, { accountId: actor.accountId, source: 'taught', status: 'approved', question: fact, answer: fact, authorId: actor.id });
    content = `Got it! I'll remember: ${fact}`;
    confidence = 1;
    intent = 'teach';
  } else if (text) {
    const a = await answer(db, actor.accountId, text, {
      llm: app.config.llm,
      embeddings: app.config.embeddings,
      allow: await knowledgeVisibleTo(db, actor),
      canTeach,
    });
    content = image ? `${describeImage(imageFacts(image))}\n\n${a.text}` : a.text;
    confidence = a.confidence;
    intent = a.intent;
    patternId = a.patternId;
    citation = a.citation;
    suggestions = a.suggestions;
  } else {
    // An image alone: metadata is all there is to tell, and it is certain.
    content = describeImage(imageFacts(image!));
    confidence = 1;
    intent = 'image';
  }
  const [bot] = await db
    .insert(aiChatMessages)
    .values({
      accountId: actor.accountId,
      userId: actor.id,
      senderType: 'bot',
      content,
      confidenceScore: confidence,
      intentDetected: intent,
      patternId,
      passageId: citation?.passageId ?? null,
    })
    .returning();
  if (suggestions.length === 0) suggestions = await popularQuestions(db, actor.accountId);
  return { data: [presentChatMessage(mine!), presentChatMessage(bot!, null, citation)], suggestions };
}

/**
 * Rates a bot message of this user (the latest one unless `messageId` says which); a new value
 * replaces the old. An owner's or Admin's rating re-weights the pattern at once; an Agent's is
 * recorded and waits for an owner/Admin to confirm it (reviewFeedback).
 */
export async function rateAnswer(
  db: Db,
  actor: Actor,
  value: FeedbackValue,
  messageId?: number,
): Promise<{ message_id: number; feedback: FeedbackValue; pending: boolean }> {
  const own = and(
    eq(aiChatMessages.userId, actor.id),
    eq(aiChatMessages.accountId, actor.accountId),
    eq(aiChatMessages.senderType, 'bot'),
  );
  const [message] = await db
    .select()
    .from(aiChatMessages)
    .where(messageId !== undefined ? and(own, eq(aiChatMessages.id, messageId)) : own)
    .orderBy(desc(aiChatMessages.id))
    .limit(1);
  if (!message) throw notFound('No assistant message to give feedback on');
  const [previous] = await db.select().from(aiFeedback).where(eq(aiFeedback.messageId, message.id));
  const applied = previous?.appliedValue ?? undefined;
  const confirmed = can(actor, 'ai.manage') || (message.patternId === null && message.passageId === null);
  const pending = !confirmed && applied !== value;
  await db
    .insert(aiFeedback)
    .values({ messageId: message.id, accountId: actor.accountId, value, pending, appliedValue: confirmed ? value : null })
    .onConflictDoUpdate({
      target: aiFeedback.messageId,
      set: { value, pending, ...(confirmed ? { appliedValue: value } : {}), updatedAt: new Date() },
    });
  if (confirmed && message.patternId !== null) await feedback(db, message.patternId, value, applied);
  // Feedback on a sourced answer reaches the passage it came from (issue 17).
  if (confirmed && message.passageId !== null) await feedbackPassage(db, message.passageId, value, applied);
  return { message_id: message.id, feedback: value, pending };
}
