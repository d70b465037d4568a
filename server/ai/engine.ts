import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { accounts, aiPassages, aiPatterns, widgetSettings } from '../db/schema.js';
import { detectIntent, type Intent, SMALL_TALK } from './intents.js';
import { KnowledgeIndex, type PatternFilter, RETIRE_AT, type SearchResult } from './knowledge.js';
import type { LlmConfig } from '../config.js';
import { groundedAnswer } from './llm.js';
import { terms } from './normalize.js';
import { embed } from './passages/embeddings.js';
import { extractiveReply, type PassageCandidate } from './passages/index.js';
import { passageIndexFor } from './passages/store.js';

/**
 * The assistant's engine, with a small interface: learn (store knowledge), answer (retrieve,
 * score, optionally let an LLM phrase it) and feedback (re-weight the pattern used).
 * Each account's patterns are kept in an in-memory index, refreshed from the database when
 * another request or node changed them (the `rev` sequence tells).
 */

/** Below this the console assistant says it does not know (SPEC: 0.6 is "Medium"). */
export const ANSWER_THRESHOLD = 0.6;
/** A suggestion must be at least this likely to be relevant. */
const SUGGESTION_MIN = 0.25;
const CACHE_ACCOUNTS = 200;

export interface Answer {
  text: string;
  confidence: number;
  intent: Intent;
  /** The pattern used, for feedback; null for built-in or "don't know" answers. */
  patternId: number | null;
  /** false: the engine did not know and said so. */
  known: boolean;
  suggestions: string[];
  /** The source passage the answer came from (issue 17); null for learned patterns and built-ins. */
  citation: Citation | null;
}

export interface Citation {
  passageId: number;
  sourceId: string;
  /** The page's title or the document's name. */
  title: string;
  /** The page's address; null for documents and FAQ rows. */
  url: string | null;
}

interface Cached {
  index: KnowledgeIndex;
  rev: number;
  count: number;
}
const cache = new Map<string, Cached>();

async function stamp(db: Db, accountId: string): Promise<{ rev: number; count: number }> {
  const [row] = await db
    .select({ rev: sql<string>`coalesce(max(${aiPatterns.rev}), 0)`, count: sql<string>`count(*)` })
    .from(aiPatterns)
    .where(eq(aiPatterns.accountId, accountId));
  return { rev: Number(row?.rev ?? 0), count: Number(row?.count ?? 0) };
}

/** The account's index, loaded once, then updated with only the rows changed since. */
export async function indexFor(db: Db, accountId: string): Promise<KnowledgeIndex> {
  const now = await stamp(db, accountId);
  let entry = cache.get(accountId);
  if (entry && entry.rev === now.rev && entry.count === now.count) return entry.index;
  // Rows were deleted (count went down without a new rev): rebuild from scratch.
  if (entry && now.count < entry.count) entry = undefined;
  const since = entry?.rev ?? 0;
  const index = entry?.index ?? new KnowledgeIndex();
  const rows = await db
    .select()
    .from(aiPatterns)
    .where(and(eq(aiPatterns.accountId, accountId), gt(aiPatterns.rev, since)));
  for (const r of rows) {
    if (r.retired || r.status === 'rejected') index.remove(r.id);
    else index.add({ id: r.id, question: r.question, answer: r.answer, weight: r.weight, status: r.status, conversationId: r.conversationId });
  }
  cache.delete(accountId);
  cache.set(accountId, { index, rev: now.rev, count: now.count });
  if (cache.size > CACHE_ACCOUNTS) cache.delete(cache.keys().next().value as string);
  return index;
}

export interface LearnInput {
  accountId: string;
  source: 'conversation' | 'taught';
  question: string;
  answer: string;
  /** approved (taught by an owner/Admin, or auto-approve) or pending review. */
  status: 'approved' | 'pending';
  sourceMessageId?: number | undefined;
  conversationId?: number | null | undefined;
  authorId?: number | null | undefined;
  redactions?: number | undefined;
}

/**
 * Stores a pattern; the same question with the same answer strengthens the existing one (and an
 * approval approves it). Something the owner rejected stays rejected. Returns its id.
 */
export async function learn(db: Db, input: LearnInput): Promise<number | undefined> {
  const question = input.question.trim().slice(0, 2000);
  const answer = input.answer.trim().slice(0, 5000);
  if (!question || !answer || terms(question).length === 0) return undefined;
  const [same] = await db
    .select({ id: aiPatterns.id, status: aiPatterns.status })
    .from(aiPatterns)
    .where(and(eq(aiPatterns.accountId, input.accountId), eq(aiPatterns.question, question), eq(aiPatterns.answer, answer)))
    .limit(1);
  if (same?.status === 'rejected' && input.status !== 'approved') return undefined;
  if (same) {
    await db
      .update(aiPatterns)
      .set({
        weight: sql`least(2, ${aiPatterns.weight} + 0.1)`,
        retired: false,
        ...(input.status === 'approved' ? { status: 'approved' as const } : {}),
        rev: sql`nextval('ai_patterns_rev_seq')`,
      })
      .where(eq(aiPatterns.id, same.id));
    return same.id;
  }
  const [row] = await db
    .insert(aiPatterns)
    .values({
      accountId: input.accountId,
      source: input.source,
      status: input.status,
      question,
      answer,
      sourceMessageId: input.sourceMessageId ?? null,
      conversationId: input.conversationId ?? null,
      authorId: input.authorId ?? null,
      redactions: input.redactions ?? 0,
    })
    .onConflictDoNothing()
    .returning({ id: aiPatterns.id });
  return row?.id;
}

/** Account info and greetings, the knowledge every account has without learning anything. */
async function builtIn(db: Db, accountId: string, intent: Intent, query: string[]): Promise<string | undefined> {
  if (intent === 'thanks') return "You're welcome! Is there anything else I can help you with?";
  if (intent === 'goodbye') return 'Goodbye, and thank you for getting in touch!';
  const [info] = await db
    .select({
      website: accounts.websiteUrl,
      phone: accounts.phoneNumber,
      location: accounts.businessLocation,
      greeting: widgetSettings.initialGreeting,
    })
    .from(accounts)
    .leftJoin(widgetSettings, eq(widgetSettings.accountId, accounts.id))
    .where(eq(accounts.id, accountId));
  if (!info) return undefined;
  if (intent === 'greeting') return info.greeting ?? 'Hello! How can we assist you today?';
  const parts: string[] = [];
  if (query.includes('contact') && info.phone) parts.push(`You can call us on ${info.phone}.`);
  if (query.includes('location') && info.location) parts.push(`We are located at ${info.location}.`);
  if ((query.includes('contact') || query.includes('websit')) && info.website) parts.push(`Our website is ${info.website}.`);
  return parts.length ? parts.join(' ') : undefined;
}

/** Confidence given to greetings, thanks and account info: rule-based, right when they fire. */
const BUILT_IN_CONFIDENCE = 0.9;

export interface AnswerOptions {
  llm?: LlmConfig | undefined;
  /** Optional embeddings endpoint (config.embeddings): adds vectors to passage retrieval. */
  embeddings?: LlmConfig | undefined;
  /** Confidence needed to give an answer (default ANSWER_THRESHOLD). */
  threshold?: number;
  /** The knowledge this asker may be answered from (visitors: approved only). Required on purpose. */
  allow: PatternFilter;
  /** How to say "teach me" (owners and Admins teach; Agents cannot). */
  canTeach?: boolean;
}

/** Visitors (and anyone who may see no source conversation) are answered from approved knowledge only. */
export const approvedOnly: PatternFilter = (p) => p.status !== 'pending';

/** Answers a question from the account's knowledge, honestly: below the threshold it says so. */
export async function answer(db: Db, accountId: string, text: string, opts: AnswerOptions): Promise<Answer> {
  const threshold = opts.threshold ?? ANSWER_THRESHOLD;
  const intent = detectIntent(text);
  // Small talk carries no question: "Hello" must not be answered with whatever learned pattern
  // happens to contain "hello". The same filter protects visitors' auto-answers.
  if (SMALL_TALK.has(intent)) {
    const info = await builtIn(db, accountId, intent, []);
    if (info) return { text: info, confidence: BUILT_IN_CONFIDENCE, intent, patternId: null, known: true, suggestions: [], citation: null };
  }
  const index = await indexFor(db, accountId);
  const found: SearchResult = index.search(text, 4, opts.allow);
  // The business's own sources (owner-provided, account-wide: PRODUCT.md section 11).
  const passages = await passageIndexFor(db, accountId, opts.embeddings);
  // Approved learned pairs teach the passages' related terms too (never pending ones: they are
  // not account-wide knowledge yet).
  if (passages.size) passages.learnPairs(index.version, () => index.patterns().filter(approvedOnly));
  const vector = opts.embeddings && passages.embedded ? (await embed(opts.embeddings, [text]))?.[0] : undefined;
  const retrieved = passages.size ? passages.search(text, 4, vector) : undefined;
  const cited: PassageCandidate | undefined = retrieved?.best;
  const best = found.best;
  // The best above the threshold wins: a learned pattern or a passage.
  const passageWins = !!cited && cited.confidence > (best?.confidence ?? 0);
  const top = passageWins ? cited!.confidence : best?.confidence;
  const suggestions = found.candidates
    .filter((c) => c !== best && c.confidence >= SUGGESTION_MIN)
    .map((c) => c.pattern.question)
    .slice(0, 3);

  if (top === undefined || top < BUILT_IN_CONFIDENCE) {
    const info = await builtIn(db, accountId, intent, found.terms);
    if (info) return { text: info, confidence: BUILT_IN_CONFIDENCE, intent, patternId: null, known: true, suggestions, citation: null };
  }
  if (top === undefined || top < threshold) {
    const guesses = best && best.confidence >= SUGGESTION_MIN ? [best.pattern.question, ...suggestions].slice(0, 3) : suggestions;
    return {
      text:
        "I'm not sure about that yet, so I won't guess. " +
        (guesses.length ? 'Did you mean one of the suggestions below? ' : '') +
        (opts.canTeach === false ? 'A team member will answer.' : 'You can teach me with "remember: ..." or a team member will answer.'),
      confidence: round(top ?? 0),
      intent,
      patternId: null,
      known: false,
      suggestions: guesses,
      citation: null,
    };
  }
  if (passageWins) {
    const p = cited!.passage;
    // Without an LLM: the passage trimmed to the sentences that matter. With one: written only
    // from the retrieved passages, and checked against them (llm.ts); anything else is dropped.
    let reply = extractiveReply(p, text);
    if (opts.llm) {
      const context = [p, ...retrieved!.candidates.filter((c) => c.passage.id !== p.id && c.confidence >= threshold).map((c) => c.passage)];
      const written = await groundedAnswer(opts.llm, text, context.map((c) => ({ question: c.question ?? (c.heading || c.title), answer: c.text })));
      if (written) reply = written;
    }
    await db.update(aiPassages).set({ uses: sql`${aiPassages.uses} + 1` }).where(eq(aiPassages.id, p.id));
    return {
      text: reply,
      confidence: round(cited!.confidence),
      intent,
      patternId: null,
      known: true,
      suggestions,
      citation: { passageId: p.id, sourceId: p.sourceId, title: p.title, url: p.url },
    };
  }
  const pattern = best!;
  let reply = pattern.pattern.answer;
  if (opts.llm) {
    const knowledge = found.candidates.filter((c) => c.confidence >= threshold).map((c) => c.pattern);
    reply = (await groundedAnswer(opts.llm, text, knowledge)) ?? reply;
  }
  await db.update(aiPatterns).set({ uses: sql`${aiPatterns.uses} + 1` }).where(eq(aiPatterns.id, pattern.pattern.id));
  return { text: reply, confidence: round(pattern.confidence), intent, patternId: pattern.pattern.id, known: true, suggestions, citation: null };
}

export type FeedbackValue = 'helpful' | 'partially_helpful' | 'not_helpful';

const DELTA: Record<FeedbackValue, number> = { helpful: 0.15, partially_helpful: 0.05, not_helpful: -0.3 };
export { RETIRE_AT };

/** Re-weights the pattern behind an answer; `previous` is the value this feedback replaces. */
export async function feedback(db: Db, patternId: number, value: FeedbackValue, previous?: FeedbackValue): Promise<void> {
  if (previous === value) return;
  const delta = DELTA[value] - (previous ? DELTA[previous] : 0);
  const count = (v: FeedbackValue) => (value === v ? 1 : 0) - (previous === v ? 1 : 0);
  const weight = sql`greatest(0, least(2, ${aiPatterns.weight} + ${delta}::real))`;
  await db
    .update(aiPatterns)
    .set({
      weight,
      helpful: sql`${aiPatterns.helpful} + ${count('helpful')}::int`,
      notHelpful: sql`${aiPatterns.notHelpful} + ${count('not_helpful')}::int`,
      retired: sql`${weight} <= ${RETIRE_AT}::real`,
      rev: sql`nextval('ai_patterns_rev_seq')`,
    })
    .where(eq(aiPatterns.id, patternId));
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Re-weights the source passage behind an answer, as feedback() does for a pattern. */
export async function feedbackPassage(db: Db, passageId: number, value: FeedbackValue, previous?: FeedbackValue): Promise<void> {
  if (previous === value) return;
  const delta = DELTA[value] - (previous ? DELTA[previous] : 0);
  const count = (v: FeedbackValue) => (value === v ? 1 : 0) - (previous === v ? 1 : 0);
  await db
    .update(aiPassages)
    .set({
      weight: sql`greatest(0, least(2, ${aiPassages.weight} + ${delta}::real))`,
      helpful: sql`${aiPassages.helpful} + ${count('helpful')}::int`,
      notHelpful: sql`${aiPassages.notHelpful} + ${count('not_helpful')}::int`,
      rev: sql`nextval('ai_passages_rev_seq')`,
    })
    .where(eq(aiPassages.id, passageId));
}
