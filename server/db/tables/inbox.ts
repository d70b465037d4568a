// Issue 16 "Working faster": canned replies and labels; migration: migrations/0018_inbox.sql.
// Private notes are messages (sender_type 'note', db/tables/core.ts), kept from visitors by
// policies/messages.ts.
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts, conversations, users } from './core.js';

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
