// Tables of the uploads area; migration: migrations/0009_uploads.sql (see db/migrate.ts).
import { bigint, bigserial, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts, messages } from './core.js';

/** One row per stored upload (thumbnail included in `bytes`); see services/storage.ts. */
export const storedFiles = pgTable(
  'stored_files',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** `<account id>/<random>.<ext>` under the storage root. */
    path: text('path').notNull().unique(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    /** What holds the file once the sweep checked it; null while unchecked. */
    heldBy: text('held_by', { enum: ['message', 'avatar', 'assistant', 'source'] }),
    /** Set null when the message goes: the file is then garbage. */
    messageId: bigint('message_id', { mode: 'number' }).references(() => messages.id, { onDelete: 'set null' }),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('stored_files_message_idx').on(t.messageId)],
);

/** The bytes and files an account stores, kept in the same transaction as stored_files. */
export const accountStorage = pgTable('account_storage', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
  files: integer('files').notNull().default(0),
});
