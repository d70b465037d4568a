// Issue 16 "Working faster": canned replies and labels; migration: migrations/0018_inbox.sql.
// Private notes are messages (sender_type 'note', db/tables/core.ts), kept from visitors by
// policies/messages.ts.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts, conversations, users, visitors } from './core.js';

/** A saved answer the team inserts with `/shortcut` in the composer. */
export const cannedReplies = pgTable(
  'canned_replies',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    text: text('text').notNull(),
    shortcut: text('shortcut').notNull(),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('canned_replies_account_shortcut_idx').on(t.accountId, t.shortcut)],
);

/** A coloured tag of the account's conversations; names are unique per account, ignoring case. */
export const labels = pgTable(
  'labels',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    color: text('color').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('labels_account_name_idx').on(t.accountId, sql`lower(${t.name})`)],
);

/** Which labels a conversation carries; `label_id` first in the second index for the list's label filter. */
export const conversationLabels = pgTable(
  'conversation_labels',
  {
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    labelId: integer('label_id')
      .notNull()
      .references(() => labels.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.labelId] }), index('conversation_labels_label_idx').on(t.labelId, t.conversationId)],
);

// Issue 16 "Visitor context beside the chat"; migration: migrations/0022_inbox_context.sql
// (both tables are written by triggers there, never by the server's code).

/** A page a visitor opened (the side panel lists the current visit's). */
export const visitorPages = pgTable(
  'visitor_pages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    visitorId: uuid('visitor_id')
      .notNull()
      .references(() => visitors.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('visitor_pages_visitor_idx').on(t.visitorId, t.id.desc())],
);

/** A past stretch of a conversation (PRODUCT.md section 11), written when it is resolved. */
export const conversationStretches = pgTable(
  'conversation_stretches',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    openedAt: timestamp('opened_at', { withTimezone: true, mode: 'date' }).notNull(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }).notNull(),
    messageCount: integer('message_count').notNull().default(0),
    firstMessage: text('first_message').notNull().default(''),
  },
  (t) => [index('conversation_stretches_conversation_idx').on(t.conversationId, t.resolvedAt.desc())],
);
