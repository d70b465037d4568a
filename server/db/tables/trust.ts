/** Account trust (issue 14): the audit log, single-use user links, two-factor recovery codes. */
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts, users } from './core.js';

/** Who did what, when, from where (server/services/audit.ts writes it; the owner reads it). */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    actorUserId: integer('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Copied at the time, so the entry still names its actor once the member is deleted. */
    actorEmail: text('actor_email').notNull().default(''),
    action: text('action').notNull(),
    target: text('target').notNull().default(''),
    ip: text('ip').notNull().default(''),
    userAgent: text('user_agent').notNull().default(''),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_log_account_idx').on(t.accountId, t.id), index('audit_log_account_action_idx').on(t.accountId, t.action, t.id)],
);

export type UserLinkPurpose = 'password_reset' | 'email_verify' | 'two_factor' | 'two_factor_setup';

/** A single-use link or challenge for one user; only the token's hash is stored. */
export const userLinks = pgTable(
  'user_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<UserLinkPurpose>().notNull(),
    /** The address a verification link was sent to (it verifies only while the email is unchanged). */
    email: text('email').notNull().default(''),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('user_links_user_idx').on(t.userId, t.purpose), index('user_links_expires_idx').on(t.expiresAt)],
);

/** Ten single-use two-factor recovery codes per user, hashed. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);
