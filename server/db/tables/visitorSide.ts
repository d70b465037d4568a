// Issue 13 "The visitor's side": ratings, transcript requests, proactive triggers;
// migration: migrations/0025_ratings_triggers.sql. The survey switch is accounts.csat_enabled.
import { boolean, date, index, integer, pgTable, primaryKey, serial, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts, conversations, users, visitors } from './core.js';

/** A visitor's rating of one stretch of their conversation (named by the stretch's opened_at). */
export const ratings = pgTable(
  'ratings',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    stretchOpenedAt: timestamp('stretch_opened_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The member who answered the stretch (assignee, else the last to reply); null: nobody known. */
    agentId: integer('agent_id').references(() => users.id, { onDelete: 'set null' }),
    score: smallint('score').notNull(),
    comment: text('comment').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('ratings_stretch_idx').on(t.conversationId, t.stretchOpenedAt), index('ratings_account_created_idx').on(t.accountId, t.createdAt)],
);

/** The visitor asked for the transcript: emailed when the conversation is resolved. */
export const transcriptRequests = pgTable('transcript_requests', {
  conversationId: integer('conversation_id')
    .primaryKey()
    .references(() => conversations.id, { onDelete: 'cascade' }),
  accountId: uuid('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  requestedAt: timestamp('requested_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** An owner's proactive message and when it shows. 0 / '' conditions are "any". */
export const proactiveTriggers = pgTable(
  'proactive_triggers',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    urlPattern: text('url_pattern').notNull().default(''),
    secondsOnPage: integer('seconds_on_page').notNull().default(0),
    nthPage: integer('nth_page').notNull().default(0),
    returningOnly: boolean('returning_only').notNull().default(false),
    message: text('message').notNull(),
    senderName: text('sender_name').notNull().default(''),
    senderAvatar: text('sender_avatar').notNull().default(''),
    openPanel: boolean('open_panel').notNull().default(false),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('proactive_triggers_account_idx').on(t.accountId)],
);

/** A trigger shown to a visitor on a (UTC) day: the primary key keeps it to once a day. */
export const proactiveFires = pgTable(
  'proactive_fires',
  {
    triggerId: integer('trigger_id')
      .notNull()
      .references(() => proactiveTriggers.id, { onDelete: 'cascade' }),
    visitorId: uuid('visitor_id')
      .notNull()
      .references(() => visitors.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'proactive_fires_pk', columns: [t.triggerId, t.visitorId, t.day] })],
);
