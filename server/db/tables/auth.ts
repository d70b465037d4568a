/** Sign-in safety: known devices (lift a sign-in lock) and email changes awaiting confirmation. */
import { bigserial, index, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { users } from './core.js';

/** A browser that signed in before: its cookie lets the right password through an email's lock. */
export const knownDevices = pgTable(
  'known_devices',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** sha256 of the browser's device cookie; the cookie itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('known_devices_user_token_unique').on(t.userId, t.tokenHash)],
);

/** A requested sign-in email change: applied when the link sent to the new address is opened. */
export const emailChanges = pgTable(
  'email_changes',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    newEmail: text('new_email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('email_changes_user_idx').on(t.userId)],
);
