// Tables of the jobs area; migration: migrations/0004_jobs.sql (see db/migrate.ts).
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts, conversations } from './core.js';

/**
 * The in-process runner's queue (without REDIS_URL): a job is written here before it runs, so
 * delayed and pending jobs survive a restart. Failed jobs stay with their error.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    name: text('name').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    status: text('status', { enum: ['pending', 'running', 'completed', 'failed'] }).notNull().default('pending'),
    /** Runs made so far (a retry increments it). */
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    backoffMs: integer('backoff_ms').notNull(),
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    /** A running job whose lock expired (its process died) is handed back to pending. */
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    /** At most one pending or running job per key (the same rule as BullMQ's deduplication). */
    dedupeKey: text('dedupe_key'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('jobs_due_idx').on(t.status, t.runAt),
    uniqueIndex('jobs_dedupe_idx')
      .on(t.dedupeKey)
      .where(sql`status in ('pending', 'running')`),
  ],
);

/** Every notification email, keyed so a job that runs twice sends once; also the batching window. */
export const sentEmails = pgTable(
  'sent_emails',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Unique per notification trigger (kind + conversation + trigger id; chatLimit: account + month). */
    key: text('key').notNull().unique(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** Null for account-wide emails (the monthly chat limit notice). */
    conversationId: integer('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['newChat', 'offlineMessage', 'missedChat', 'chatLimit', 'planReminder', 'visitorReply', 'loginAttack', 'emailChange'] }).notNull(),
    status: text('status', { enum: ['sending', 'sent'] }).notNull().default('sending'),
    recipient: text('recipient').notNull(),
    /** Held by the run sending it: a second run of the same job waits instead of sending too. */
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sent_emails_conversation_kind_idx').on(t.conversationId, t.kind, t.sentAt)],
);
