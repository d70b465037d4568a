import { integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './core.js';

/** Visitors per (account, country), kept by a trigger (migrations/0021): the Visitors page's totals. */
export const visitorCounts = pgTable(
  'visitor_counts',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    country: text('country').notNull(),
    n: integer('n').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.country] })],
);
