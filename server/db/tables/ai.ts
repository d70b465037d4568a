/** The AI assistant: settings, learned knowledge, assistant chats, feedback, widget hand-overs. Migrations: 0002_ai.sql, 0008_ai_review.sql, 0028_ai_sources.sql, 0030_ai_answers.sql, 0031_business_hours.sql. */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, pgTable, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts, conversations, messages, users } from './core.js';

/** Per account: whether the widget is answered by the assistant when nobody is online, and above which confidence. */
export const aiSettings = pgTable('ai_settings', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  autoAnswerEnabled: boolean('auto_answer_enabled').notNull().default(false),
  threshold: real('threshold').notNull().default(0.8),
  /** Learned knowledge is approved without review (off by default: the owner reviews it first). */
  autoApprove: boolean('auto_approve').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Knowledge of one account: a visitor question and the agent's answer, or a fact the owner taught. */
export const aiPatterns = pgTable(
  'ai_patterns',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    source: text('source', { enum: ['conversation', 'taught'] }).notNull(),
    /**
     * approved: answers everyone, visitors included; pending: learned, waiting for review, answers
     * only those who may see its source conversation; rejected: answers nobody.
     */
    status: text('status', { enum: ['approved', 'pending', 'rejected'] }).notNull().default('approved'),
    /** The conversation it was learned from (erasing it erases what came from it). */
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
    /** The agent whose reply it is, or who taught it. */
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    /** Private details (names, links, codes...) removed from the reply before it was kept. */
    redactions: integer('redactions').notNull().default(0),
    reviewedBy: integer('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: timestamp('reviewed_at', { withTimezone: true }),
    question: text('question').notNull(),
    answer: text('answer').notNull(),
    weight: real('weight').notNull().default(1),
    uses: integer('uses').notNull().default(0),
    helpful: integer('helpful').notNull().default(0),
    notHelpful: integer('not_helpful').notNull().default(0),
    retired: boolean('retired').notNull().default(false),
    /** The agent reply it was learned from (learning is idempotent per reply). */
    sourceMessageId: bigint('source_message_id', { mode: 'number' }),
    /** Bumped from a sequence on every change: nodes compare it to know their cached index is stale. */
    rev: bigint('rev', { mode: 'number' })
      .notNull()
      .default(sql`nextval('ai_patterns_rev_seq')`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('ai_patterns_account_idx').on(t.accountId, t.rev),
    uniqueIndex('ai_patterns_source_message_idx').on(t.sourceMessageId),
    index('ai_patterns_review_idx').on(t.accountId, t.status, t.id),
  ],
);

/** The assistant chat of one console user (history is per user and per account). */
export const aiChatMessages = pgTable(
  'ai_chat_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    senderType: text('sender_type', { enum: ['user', 'bot'] }).notNull(),
    content: text('content').notNull().default(''),
    filePath: text('file_path').notNull().default(''),
    confidenceScore: real('confidence_score'),
    intentDetected: text('intent_detected'),
    /** The pattern the answer came from, so feedback can re-weight it. */
    patternId: bigint('pattern_id', { mode: 'number' }).references(() => aiPatterns.id, { onDelete: 'set null' }),
    /** The source passage the answer came from (its citation), so feedback reaches it. */
    passageId: bigint('passage_id', { mode: 'number' }).references(() => aiPassages.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_chat_messages_user_idx').on(t.userId, t.id)],
);

/** One feedback value per bot message; a new value replaces the old one. */
export const aiFeedback = pgTable('ai_feedback', {
  messageId: bigint('message_id', { mode: 'number' })
    .primaryKey()
    .references(() => aiChatMessages.id, { onDelete: 'cascade' }),
  accountId: uuid('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  value: text('value', { enum: ['helpful', 'partially_helpful', 'not_helpful'] }).notNull(),
  /** The value counted in the pattern's weight (null: none yet). */
  appliedValue: text('applied_value', { enum: ['helpful', 'partially_helpful', 'not_helpful'] }),
  /** An Agent's rating that changes answers only once an owner/Admin confirms it. */
  pending: boolean('pending').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** What the assistant did in a widget conversation: answers given, and whether the visitor asked for a human. */
export const aiConversations = pgTable(
  'ai_conversations',
  {
    conversationId: integer('conversation_id')
      .primaryKey()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    botReplies: integer('bot_replies').notNull().default(0),
    /** Set when the visitor asked for a human: agents must pick the conversation up. */
    handover: boolean('handover').notNull().default(false),
    firstBotReplyAt: timestamp('first_bot_reply_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_conversations_account_idx').on(t.accountId, t.firstBotReplyAt)],
);

/**
 * A knowledge source of the business (issue 17): its website (crawled within its own host), a
 * document (PDF, DOCX, Markdown, TXT) or an FAQ file (CSV of question,answer). Refreshed on a
 * schedule by the jobs; removing it removes its passages (cascade).
 */
export const aiSources = pgTable(
  'ai_sources',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['website', 'document', 'faq'] }).notNull(),
    /** The site's host or the file's name, as the console lists it. */
    name: text('name').notNull(),
    /** website: the URL the owner gave (the crawl stays on its host). */
    url: text('url'),
    /** document / faq: the stored file (storage key), kept to refresh from. */
    filePath: text('file_path'),
    status: text('status', { enum: ['queued', 'refreshing', 'ready', 'failed'] }).notNull().default('queued'),
    pageCount: integer('page_count').notNull().default(0),
    passageCount: integer('passage_count').notNull().default(0),
    /** The last refresh's error (or its skipped pages), as the owner should read it. */
    error: text('error'),
    lastRefreshedAt: timestamp('last_refreshed_at', { withTimezone: true }),
    nextRefreshAt: timestamp('next_refresh_at', { withTimezone: true }),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_sources_account_idx').on(t.accountId, t.createdAt), index('ai_sources_refresh_idx').on(t.nextRefreshAt)],
);

/**
 * A passage of a source: a chunk of a page or document under its heading, or one FAQ row
 * (question + answer). Retrieved, scored and cited by the assistant; feedback re-weights it.
 */
export const aiPassages = pgTable(
  'ai_passages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    sourceId: uuid('source_id')
      .notNull()
      .references(() => aiSources.id, { onDelete: 'cascade' }),
    /** The page's URL (website sources); null for documents and FAQ rows. */
    url: text('url'),
    /** The page's <title> or the document's name: what an answer cites. */
    title: text('title').notNull(),
    /** The heading the chunk sits under ('' when none). */
    heading: text('heading').notNull().default(''),
    /** FAQ rows: the question (text is the answer). */
    question: text('question'),
    text: text('text').notNull(),
    /** Order within the source. */
    position: integer('position').notNull().default(0),
    weight: real('weight').notNull().default(1),
    uses: integer('uses').notNull().default(0),
    helpful: integer('helpful').notNull().default(0),
    notHelpful: integer('not_helpful').notNull().default(0),
    /** Optional: the vector of an OpenAI-compatible embeddings endpoint, when one is configured. */
    embedding: real('embedding').array(),
    /** Bumped from a sequence on every change: nodes compare it to know their cached index is stale. */
    rev: bigint('rev', { mode: 'number' })
      .notNull()
      .default(sql`nextval('ai_passages_rev_seq')`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_passages_account_idx').on(t.accountId, t.rev), index('ai_passages_source_idx').on(t.sourceId, t.position)],
);

/**
 * The assistant's answer to a widget visitor (issue 17, migration 0030): which bot message, from
 * which learned pattern or source passage, how sure, and the visitor's "Was this helpful?" vote.
 * Votes are recorded and shown to the owner only; they never re-weight (PRODUCT.md section 11).
 */
export const aiAnswers = pgTable(
  'ai_answers',
  {
    messageId: bigint('message_id', { mode: 'number' })
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    patternId: bigint('pattern_id', { mode: 'number' }).references(() => aiPatterns.id, { onDelete: 'set null' }),
    passageId: bigint('passage_id', { mode: 'number' }).references(() => aiPassages.id, { onDelete: 'set null' }),
    confidence: real('confidence').notNull(),
    vote: text('vote', { enum: ['helpful', 'not_helpful'] }),
    votedAt: timestamp('voted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_answers_account_idx').on(t.accountId, t.createdAt), index('ai_answers_passage_idx').on(t.passageId)],
);

/**
 * The assistant's hand-over message to a widget visitor (issue 17, migration 0031): the next opening
 * when it was sent outside business hours, else the typical reply time, so the widget words it in
 * the visitor's language and time zone (the message's own text is English).
 */
export const aiHandovers = pgTable(
  'ai_handovers',
  {
    messageId: bigint('message_id', { mode: 'number' })
      .primaryKey()
      .references(() => messages.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    backAt: timestamp('back_at', { withTimezone: true }),
    replySeconds: integer('reply_seconds'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ai_handovers_conversation_idx').on(t.conversationId)],
);
