// Tables of the billing area; migration: migrations/0003_billing.sql (see db/migrate.ts).
import { bigint, index, integer, pgTable, serial, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts, plans, subscriptions, users } from './core.js';

export const PAYMENT_STATUSES = ['pending', 'success', 'failed', 'abandoned'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * One row per checkout attempt, written (pending) before the provider is called. The row is
 * the settlement lock: whichever of redirect or webhook settles it first activates the
 * subscription; the other finds it settled.
 */
export const payments = pgTable(
  'payments',
  {
    id: serial('id').primaryKey(),
    /** Our own reference, sent to the provider and echoed back by it. */
    reference: text('reference').notNull().unique(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The owner who started the checkout. */
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    planId: integer('plan_id')
      .notNull()
      .references(() => plans.id),
    /** In the currency's subunit (cents): exact comparison with what the provider reports. */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull().default('pending'),
    provider: text('provider', { enum: ['paystack', 'sandbox'] }).notNull(),
    /** The provider's words (gateway response) or ours (amount mismatch...). */
    statusText: text('status_text').notNull().default(''),
    subscriptionId: integer('subscription_id').references(() => subscriptions.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('payments_account_idx').on(t.accountId, t.createdAt.desc())],
);

/**
 * The offline sandbox provider's own ledger: what the person chose on the sandbox checkout
 * page. Kept in the database (not memory) so it works with several server nodes.
 */
export const sandboxCharges = pgTable('sandbox_charges', {
  reference: text('reference').primaryKey(),
  amount: bigint('amount', { mode: 'number' }).notNull(),
  currency: text('currency').notNull(),
  email: text('email').notNull(),
  status: text('status', { enum: ['pending', 'success', 'failed', 'abandoned'] }).notNull().default('pending'),
  gatewayResponse: text('gateway_response').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A new chat let through by the Starter limit whose conversation may not exist yet (migration
 * 0011_cursor.sql): it counts against the month until the conversation counts, or it expires.
 */
export const chatClaims = pgTable(
  'chat_claims',
  {
    visitorId: uuid('visitor_id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('chat_claims_account_idx').on(t.accountId, t.createdAt)],
);

export const PLAN_CHANGE_KINDS = ['downgrade', 'cancel'] as const;
export type PlanChangeKind = (typeof PLAN_CHANGE_KINDS)[number];

/**
 * A change the owner scheduled for the end of the period in force (migration 0013): Starter
 * instead of the paid plan (downgrade) or no paid plan at all (cancel). One per account; a new
 * payment or "keep my plan" removes it. Past its effective_at it is history.
 */
export const planChanges = pgTable('plan_changes', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  kind: text('kind', { enum: PLAN_CHANGE_KINDS }).notNull(),
  /** The plan in force from effective_at on (Starter). */
  planId: integer('plan_id')
    .notNull()
    .references(() => plans.id),
  effectiveAt: timestamp('effective_at', { withTimezone: true }).notNull(),
  requestedBy: integer('requested_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
