/** Integrations (issue 14): API keys, webhook endpoints, webhook deliveries. Migration 0026. */
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { accounts, users } from './core.js';

/** A named API key: acts as `userId` narrowed to `scopes`; deleted with that user. Only its hash is kept. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    /** sha256 of the key (services/secrets.ts hashToken); the key is shown once, at creation. */
    keyHash: text('key_hash').notNull(),
    /** The key's first characters, so a list can tell keys apart. */
    prefix: text('prefix').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [unique('api_keys_key_hash_unique').on(t.keyHash), index('api_keys_account_idx').on(t.accountId, t.createdAt), index('api_keys_user_idx').on(t.userId)],
);

/** An HTTPS endpoint an account sends events to; paused after failing for long. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    /** The HMAC-SHA256 signing secret (needed in clear to sign). */
    secret: text('secret').notNull(),
    status: text('status', { enum: ['active', 'paused'] }).notNull().default('active'),
    failingSince: timestamp('failing_since', { withTimezone: true }),
    pausedAt: timestamp('paused_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_account_idx').on(t.accountId, t.createdAt)],
);

/** One event for one endpoint: its id is the idempotency key; `seq` orders it within `orderingKey`. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    payload: jsonb('payload').notNull(),
    /** `conversation:<id>` (deliveries of one conversation go out in order), else `visitor:<id>`. */
    orderingKey: text('ordering_key').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    responseCode: integer('response_code'),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('webhook_deliveries_queue_idx').on(t.endpointId, t.orderingKey, t.seq).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_log_idx').on(t.endpointId, t.seq),
  ],
);
