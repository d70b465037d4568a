// Tables of the reply-email links (issue 12 item 8); migration: migrations/0013_billing.sql.
import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { visitors } from './core.js';

/**
 * Extra widget tokens of a visitor (stored as hashes), issued when the visitor opens a reply
 * email's signed link: the browser that opened it gets its own token, and the visitor's first
 * token (visitors.token_hash) keeps working on the business's site.
 */
export const visitorTokens = pgTable(
  'visitor_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    visitorId: uuid('visitor_id')
      .notNull()
      .references(() => visitors.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('visitor_tokens_visitor_idx').on(t.visitorId)],
);

/** Keys generated once by whichever node needs them first and shared by all (HMAC keys). */
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
