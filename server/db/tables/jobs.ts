// Tables of the jobs area; migrations: migrations/0004_jobs.sql, 0010_outbox.sql, 0023_push_outbox.sql (see db/migrate.ts).
import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
    kind: text('kind', { enum: ['newChat', 'offlineMessage', 'missedChat', 'chatLimit', 'planReminder', 'visitorReply', 'loginAttack', 'emailChange', 'digest', 'passwordReset', 'verifyEmail', 'transcript'] }).notNull(),
    /** 'held': over the account's email budget, waiting for the digest; 'digested': told in one. */
    status: text('status', { enum: ['sending', 'sent', 'held', 'digested'] }).notNull().default('sending'),
    recipient: text('recipient').notNull(),
    /** Held by the run sending it: a second run of the same job waits instead of sending too. */
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('sent_emails_conversation_kind_idx').on(t.conversationId, t.kind, t.sentAt),
    index('sent_emails_account_created_idx').on(t.accountId, t.createdAt),
  ],
);

/**
 * The outbox (server/outbox/): work written in the same transaction as the write that causes
 * it, relayed by any live node. `topic` names the relay ('job' today); a relayed row stays until
 * its work finished, so a queue that lost it is noticed and the row relayed again.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    topic: text('topic').notNull(),
    name: text('name').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    /** At most one unfinished row per key: a later trigger joins it. */
    dedupeKey: text('dedupe_key'),
    /** When the work is due (a delayed job). */
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    status: text('status', { enum: ['pending', 'relayed', 'failed'] }).notNull().default('pending'),
    /** Relay attempts (not job runs). */
    attempts: integer('attempts').notNull().default(0),
    /** Held by the relay handing it over; a relay that died lets it go when this passes. */
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    /** Last handed over (or last seen in the queue). */
    relayedAt: timestamp('relayed_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('outbox_status_idx').on(t.status, t.id),
    uniqueIndex('outbox_dedupe_idx')
      .on(t.dedupeKey)
      .where(sql`status in ('pending', 'relayed')`),
  ],
);

/**
 * Pushes owed (migration 0023): one row per chat message, written with it and deleted once its
 * push left the node; rows left behind by a node that died are pushed by any live node.
 */
export const pushOutbox = pgTable('push_outbox', {
  messageId: bigint('message_id', { mode: 'number' }).primaryKey(),
  /** The node that stored it (outbox/pushRelay.ts NODE_ID). */
  node: text('node').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
