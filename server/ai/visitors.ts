import { hasProfessional } from '../billing/limits.js';
import { type SQL, and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { sendMessage } from '../commands/sendMessage.js';
import type { Db } from '../db/client.js';
import { aiConversations, aiSettings, messages } from '../db/schema.js';
import type { DomainEventMap } from '../services/domainEvents.js';
import { isAgentOnline } from '../services/presence.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { answer, learn } from './engine.js';
import { asksForHuman, detectIntent } from './intents.js';

/** Learning from agent replies, and answering widget visitors when nobody is online. */

export const HANDOVER_HINT = 'Not what you needed? Reply "human" and a member of our team will answer.';
export const HANDOVER_MESSAGE = "I'm asking a member of our team to take over. They will answer you here as soon as they can.";
/** Questions that carry no knowledge: learning "hello" -> "hi, how can I help?" would only add noise. */
const NOT_QUESTIONS = new Set(['greeting', 'thanks', 'goodbye', 'human']);

export interface ReplyToLearn {
  accountId: string;
  conversationId: number;
  /** The agent's message (sender_type 'user'). */
  replyId: number;
  replyText: string;
}

/**
 * Learns a pattern from an agent's reply: the question is the visitor's message(s) right before
 * it. Idempotent per reply (unique source message), so a job may run it again safely.
 */
export async function learnFromReply(db: Db, reply: ReplyToLearn): Promise<number | undefined> {
  if (!reply.replyText.trim()) return undefined;
  const before = await db
    .select({ senderType: messages.senderType, text: messages.message })
    .from(messages)
    .where(and(eq(messages.conversationId, reply.conversationId), lt(messages.id, reply.replyId)))
    .orderBy(desc(messages.id))
    .limit(5);
  const asked: string[] = [];
  for (const m of before) {
    if (m.senderType !== 'visitor') break; // a staff or bot message ends the question
    if (m.text.trim() && !NOT_QUESTIONS.has(detectIntent(m.text))) asked.unshift(m.text.trim());
  }
  if (asked.length === 0) return undefined;
  return learn(db, {
    accountId: reply.accountId,
    source: 'conversation',
    question: asked.slice(-3).join(' '),
    answer: reply.replyText,
    sourceMessageId: reply.replyId,
  });
}

export interface AiSettingsDto {
  auto_answer_enabled: boolean;
  threshold: number;
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
  return { auto_answer_enabled: row?.autoAnswerEnabled ?? false, threshold: Math.round((row?.threshold ?? 0.8) * 100) / 100 };
}

export async function saveAiSettings(db: Db, accountId: string, patch: Partial<AiSettingsDto>): Promise<AiSettingsDto> {
  const set = {
    ...(patch.auto_answer_enabled !== undefined ? { autoAnswerEnabled: patch.auto_answer_enabled } : {}),
    ...(patch.threshold !== undefined ? { threshold: patch.threshold } : {}),
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
  const bot = { visitor, senderType: 'bot' as const, author: null };
  if (asksForHuman(text)) {
    await flag(app.db, accountId, conversation.id, 'handover');
    await sendMessage(app, { ...bot, text: HANDOVER_MESSAGE });
    return;
  }
  const a = await answer(app.db, accountId, text, { threshold: settings.threshold, llm: app.config.llm });
  if (!a.known || a.confidence < settings.threshold || NOT_QUESTIONS.has(a.intent)) return; // a human will answer
  await flag(app.db, accountId, conversation.id, 'answered');
  await sendMessage(app, { ...bot, text: `${a.text}\n\n${HANDOVER_HINT}` });
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
