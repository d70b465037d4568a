import { hasProfessional } from '../billing/limits.js';
import { type SQL, and, desc, eq, gte, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { type HandoverDto, isTimeZone } from '@parley/shared';
import type { FastifyInstance } from 'fastify';
import { sendMessage } from '../commands/sendMessage.js';
import type { Db } from '../db/client.js';
import { aiAnswers, aiConversations, aiFeedback, aiSettings, conversations, messages, visitors } from '../db/schema.js';
import type { DomainEventMap } from '../services/domainEvents.js';
import { isAgentOnline } from '../services/presence.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { answer, approvedOnly, learn } from './engine.js';
import { insertSystemLine, lines } from '../commands/systemLine.js';
import { routeNewConversation } from '../policies/routing.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { VisitorRow } from '../presenters/visitor.js';
import { asksForHuman, detectIntent, type Intent, SMALL_TALK } from './intents.js';
import { makeGeneric, peopleIn, scrubQuestion } from './privacy.js';
import { visitorVisibleMessages } from '../policies/messages.js';
import { accountHours, nextOpening, whenInWords } from '../services/businessHours.js';

/** Learning from agent replies, and answering widget visitors when nobody is online. */

/** The start of the assistant's hand-over message; when a person will reply follows (replyTimeText). */
export const HANDOVER_MESSAGE = "I'm asking a member of our team to take over.";
/** Questions that carry no knowledge: learning "hello" -> "hi, how can I help?" would only add noise. */
const NOT_QUESTIONS: ReadonlySet<Intent> = new Set<Intent>([...SMALL_TALK, 'human']);

export interface ReplyToLearn {
  accountId: string;
  conversationId: number;
  /** The agent's message (sender_type 'user'). */
  replyId: number;
  replyText: string;
}

/**
 * Learns a pattern from an agent's reply: the question is the visitor's message(s) right before
 * it. Only what is safe to tell anyone is kept (ai/privacy.ts): the visitor's own data never;
 * a reply that cannot be made generic is not learned. What is learned waits for the owner's
 * review unless auto-approve is on. Idempotent per reply (unique source message).
 */
export async function learnFromReply(db: Db, reply: ReplyToLearn): Promise<number | undefined> {
  if (!reply.replyText.trim()) return undefined;
  const before = await db
    .select({ senderType: messages.senderType, text: messages.message, authorId: messages.authorId, id: messages.id })
    .from(messages)
    // Private notes are neither the question nor a reply (policies/messages.ts).
    .where(and(eq(messages.conversationId, reply.conversationId), lt(messages.id, reply.replyId), visitorVisibleMessages()))
    .orderBy(desc(messages.id))
    .limit(5);
  const asked: string[] = [];
  for (const m of before) {
    if (m.senderType !== 'visitor') break; // a staff or bot message ends the question
    if (m.text.trim() && !NOT_QUESTIONS.has(detectIntent(m.text))) asked.unshift(m.text.trim());
  }
  if (asked.length === 0) return undefined;
  const [who] = await db
    .select({ name: visitors.name, email: visitors.email, author: messages.authorId })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .where(and(eq(messages.id, reply.replyId), eq(messages.accountId, reply.accountId)));
  if (!who) return undefined;
  // The visitor as the conversation knows them: stored name and email, and names they gave.
  const visitorText = await db
    .select({ text: messages.message })
    .from(messages)
    .where(and(eq(messages.conversationId, reply.conversationId), eq(messages.senderType, 'visitor')))
    .orderBy(desc(messages.id))
    .limit(20);
  const ctx = {
    names: [who.name, ...visitorText.flatMap((m) => peopleIn(m.text))].filter(Boolean),
    values: [who.email].filter(Boolean),
  };
  const generic = makeGeneric(reply.replyText, ctx);
  const question = scrubQuestion(asked.slice(-3).join(' '), ctx);
  if (!generic || !question) return undefined;
  const settings = await getAiSettings(db, reply.accountId);
  return learn(db, {
    accountId: reply.accountId,
    source: 'conversation',
    status: settings.auto_approve ? 'approved' : 'pending',
    question,
    answer: generic.text,
    sourceMessageId: reply.replyId,
    conversationId: reply.conversationId,
    authorId: who.author,
    redactions: generic.removed,
  });
}

export interface AiSettingsDto {
  auto_answer_enabled: boolean;
  threshold: number;
  /** Learned knowledge is approved without the owner's review (default false). */
  auto_approve: boolean;
}

/** Read per visitor message by auto-answer: kept briefly per node (a save here forgets it). */
const SETTINGS_CACHE_MS = 5000;
const settingsCaches = new WeakMap<Db, TtlCache<string, AiSettingsDto>>();
function cachedAiSettings(db: Db, accountId: string): Promise<AiSettingsDto> {
  let cache = settingsCaches.get(db);
  if (!cache) settingsCaches.set(db, (cache = ttlCache(SETTINGS_CACHE_MS)));
  return cache.get(accountId, (id) => getAiSettings(db, id));
}

export async function getAiSettings(db: Db, accountId: string): Promise<AiSettingsDto> {
  const [row] = await db.select().from(aiSettings).where(eq(aiSettings.accountId, accountId));
  return {
    auto_answer_enabled: row?.autoAnswerEnabled ?? false,
    threshold: Math.round((row?.threshold ?? 0.8) * 100) / 100,
    auto_approve: row?.autoApprove ?? false,
  };
}

export async function saveAiSettings(db: Db, accountId: string, patch: Partial<AiSettingsDto>): Promise<AiSettingsDto> {
  const set = {
    ...(patch.auto_answer_enabled !== undefined ? { autoAnswerEnabled: patch.auto_answer_enabled } : {}),
    ...(patch.threshold !== undefined ? { threshold: patch.threshold } : {}),
    ...(patch.auto_approve !== undefined ? { autoApprove: patch.auto_approve } : {}),
    updatedAt: new Date(),
  };
  await db.insert(aiSettings).values({ accountId, ...set }).onConflictDoUpdate({ target: aiSettings.accountId, set });
  settingsCaches.get(db)?.forget(accountId);
  return getAiSettings(db, accountId);
}

async function flag(db: Db, accountId: string, conversationId: number, change: 'answered' | 'handover'): Promise<void> {
  const now = new Date();
  const values = change === 'answered' ? { botReplies: 1, firstBotReplyAt: now } : { handover: true };
  const set =
    change === 'answered'
      ? { botReplies: sql`${aiConversations.botReplies} + 1`, firstBotReplyAt: sql`coalesce(${aiConversations.firstBotReplyAt}, now())`, updatedAt: now }
      : { handover: true, updatedAt: now };
  await db
    .insert(aiConversations)
    .values({ conversationId, accountId, ...values })
    .onConflictDoUpdate({ target: aiConversations.conversationId, set });
}

/** When enabled and no agent is online: answer above the owner's threshold, or hand over on request. */
export async function autoAnswer(app: FastifyInstance, event: DomainEventMap['message.stored']): Promise<void> {
  const { accountId, conversation, visitor, message } = event;
  const text = message.message.trim();
  if (!text) return;
  // Cheapest first: the settings are cached per node and auto-answer is off by default.
  const settings = await cachedAiSettings(app.db, accountId);
  if (!settings.auto_answer_enabled) return;
  if (await isAgentOnline(app.db, accountId)) return;
  if (!(await hasProfessional(app.db, accountId, new Date()))) return; // Starter has no AI assistant
  const [state] = await app.db.select().from(aiConversations).where(eq(aiConversations.conversationId, conversation.id));
  if (state?.handover) return; // a human was asked for: the bot stays quiet
  if (asksForHuman(text)) {
    await handOver(app, conversation, visitor);
    return;
  }
  // Visitors get approved knowledge only: nothing learned reaches them before the owner's review.
  const a = await answer(app.db, accountId, text, { threshold: settings.threshold, llm: app.config.llm, embeddings: app.config.embeddings, allow: approvedOnly });
  if (!a.known || a.confidence < settings.threshold || NOT_QUESTIONS.has(a.intent)) return; // a human will answer
  await flag(app.db, accountId, conversation.id, 'answered');
  // Issue 17: the answer is recorded (ai_answers) with what it cites; the widget shows it as the
  // assistant's, with "Was this helpful?" and "Talk to a person" (which replaced a typed hint).
  const citation = a.citation;
  await sendMessage(app, {
    visitor,
    senderType: 'bot',
    author: null,
    text: a.text,
    ai: { patternId: a.patternId, passageId: citation?.passageId ?? null, confidence: a.confidence, citation: citation ? { title: citation.title, url: citation.url } : null },
  });
}

/**
 * The visitor asked for a person ("Talk to a person", or typed it): the assistant stays quiet from
 * now on (ai_conversations.handover), an unassigned conversation is assigned as the routing rule
 * says (policies/routing.ts; nobody eligible or routing off: every Agent sees it, as before), and
 * the visitor is told when a person will reply: outside the account's business hours when the team
 * is back, else its typical reply time. Repeating it changes nothing more.
 */
export async function handOver(app: FastifyInstance, conversation: ConversationRow, visitor: VisitorRow, now = new Date()): Promise<HandoverDto> {
  const { accountId } = conversation;
  const [state] = await app.db.select({ handover: aiConversations.handover }).from(aiConversations).where(eq(aiConversations.conversationId, conversation.id));
  // Outside business hours: when the team is back, in the visitor's zone when the widget reported it.
  const { timeZone, hours, closedDates } = await accountHours(app.db, accountId);
  const backAt = nextOpening(hours, timeZone, now, closedDates);
  const seconds = await typicalReplySeconds(app.db, accountId, now);
  const visitorZone = visitor.timeZone && isTimeZone(visitor.timeZone) ? visitor.timeZone : null;
  const result: HandoverDto = {
    handover: true,
    reply_time: backAt ? backText(backAt, now, visitorZone ?? timeZone, visitorZone === null) : replyTimeText(seconds),
    typical_reply_seconds: seconds,
    back_at: backAt?.toISOString() ?? null,
  };
  if (state?.handover) return result;
  await flag(app.db, accountId, conversation.id, 'handover');
  if (conversation.assigneeId === null) {
    const change = await app.db.transaction(async (tx) => {
      const routed = await routeNewConversation(app.db, tx, accountId);
      if (!routed) return null;
      const [updated] = await tx
        .update(conversations)
        .set({ assigneeId: routed.id })
        .where(and(eq(conversations.id, conversation.id), isNull(conversations.assigneeId)))
        .returning();
      if (!updated) return null;
      return { updated, routed, line: await insertSystemLine(tx, conversation, lines.routed(routed.name), null) };
    });
    if (change) {
      await app.events.emit('conversation.changed', {
        accountId,
        conversation: change.updated,
        visitor,
        line: change.line,
        previousAssigneeId: null, // it was unassigned: every Agent saw it
        assigneeName: change.routed.name,
        lineAuthorName: null,
      });
    }
  }
  // The text is English (the console, transcripts); the widget words it in the visitor's language from `handover`.
  await sendMessage(app, { visitor, senderType: 'bot', author: null, text: `${HANDOVER_MESSAGE} ${result.reply_time}`, handover: { backAt, replySeconds: backAt ? null : seconds } });
  return result;
}

const TYPICAL_REPLY_DAYS = 30;

/**
 * The account's typical first response: the median, over its conversations whose first visitor
 * message is in the last 30 days, of the time to the first staff reply (kept on the conversation,
 * migration 0017; read through conversations_account_first_visitor_idx). null with none.
 */
export async function typicalReplySeconds(db: Db, accountId: string, now = new Date()): Promise<number | null> {
  const since = new Date(now.getTime() - TYPICAL_REPLY_DAYS * 86_400_000);
  const [row] = await db
    .select({
      median: sql<string | null>`percentile_cont(0.5) within group (order by extract(epoch from (${conversations.firstReplyAt} - ${conversations.firstVisitorMessageAt})))`,
    })
    .from(conversations)
    .where(and(eq(conversations.accountId, accountId), gte(conversations.firstVisitorMessageAt, since), isNotNull(conversations.firstReplyAt)));
  return row?.median != null ? Math.max(0, Math.round(Number(row.median))) : null;
}

/**
 * When a person will reply, as the visitor reads it (English; the widget has the same words in the
 * visitor's language, widget/src/ui/aiTexts.ts): the typical reply time in broad steps, no count.
 */
export function replyTimeText(seconds: number | null): string {
  if (seconds === null) return 'A member of our team will answer you here as soon as they can.';
  const when = seconds <= 10 * 60 ? 'in a few minutes' : seconds < 3600 ? 'in under an hour' : seconds < 20 * 3600 ? 'in a few hours' : seconds < 36 * 3600 ? 'in a day' : 'in a few days';
  return `Our team usually replies ${when}.`;
}

/** Outside business hours: "We're back Monday at 09:00." in `timeZone`, naming it when it is the account's (the visitor's own is unknown). */
export function backText(backAt: Date, now: Date, timeZone: string, nameZone: boolean): string {
  return `We're back ${whenInWords(backAt, now, timeZone)}${nameZone ? ` (${timeZone} time)` : ''}.`;
}

/** "AI Resolved": conversations the assistant answered where the visitor did not ask for a human (`scope` narrows them, e.g. to what an Agent may see). */
export async function aiResolvedCount(db: Db, accountId: string, since: Date, scope?: SQL): Promise<number> {
  const [row] = await db
    .select({ n: sql<string>`count(*)` })
    .from(aiConversations)
    .where(
      and(
        eq(aiConversations.accountId, accountId),
        scope,
        eq(aiConversations.handover, false),
        sql`${aiConversations.botReplies} > 0`,
        gte(aiConversations.firstBotReplyAt, since),
      ),
    );
  return Number(row?.n ?? 0);
}

export interface AutoAnswerFigures {
  /** Answers the assistant gave to visitors. */
  answers_given: number;
  /** Conversations where a visitor asked for a human after the assistant. */
  handovers: number;
  /** Share of rated assistant answers rated helpful (partially: half), 0-100; null with no ratings. */
  accuracy: number | null;
  /** How many answers the accuracy is computed from. */
  rated_answers: number;
  /** Issue 17: visitors' "Was this helpful?" votes on the assistant's widget answers (shown, never re-weighting). */
  visitor_helpful: number;
  visitor_not_helpful: number;
}

/** The figures shown beside the auto-answer control: real counts of the account. */
export async function autoAnswerFigures(db: Db, accountId: string): Promise<AutoAnswerFigures> {
  const [c] = await db
    .select({
      answers: sql<string>`coalesce(sum(${aiConversations.botReplies}), 0)`,
      handovers: sql<string>`count(*) filter (where ${aiConversations.handover})`,
    })
    .from(aiConversations)
    .where(eq(aiConversations.accountId, accountId));
  const [f] = await db
    .select({
      n: sql<string>`count(*)`,
      helpful: sql<string>`count(*) filter (where ${aiFeedback.value} = 'helpful')`,
      partial: sql<string>`count(*) filter (where ${aiFeedback.value} = 'partially_helpful')`,
    })
    .from(aiFeedback)
    .where(eq(aiFeedback.accountId, accountId));
  const [v] = await db
    .select({
      helpful: sql<string>`count(*) filter (where ${aiAnswers.vote} = 'helpful')`,
      notHelpful: sql<string>`count(*) filter (where ${aiAnswers.vote} = 'not_helpful')`,
    })
    .from(aiAnswers)
    .where(and(eq(aiAnswers.accountId, accountId), isNotNull(aiAnswers.vote)));
  const n = Number(f?.n ?? 0);
  return {
    answers_given: Number(c?.answers ?? 0),
    handovers: Number(c?.handovers ?? 0),
    accuracy: n ? Math.round((1000 * (Number(f?.helpful ?? 0) + Number(f?.partial ?? 0) / 2)) / n) / 10 : null,
    rated_answers: n,
    visitor_helpful: Number(v?.helpful ?? 0),
    visitor_not_helpful: Number(v?.notHelpful ?? 0),
  };
}
