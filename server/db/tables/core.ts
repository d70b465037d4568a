/** Accounts, users, tokens, settings, visitors, conversations, messages, plans, subscriptions, widget loads. */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { CONVERSATION_STATUSES, SENDER_TYPES, type WeekHours } from '@parley/shared';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** A business: one website widget, its team, its visitors and its plan. */
export const accounts = pgTable('accounts', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Public widget key pasted into the business's site; random, not derived from ids. */
  widgetKey: text('widget_key').notNull().unique(),
  websiteUrl: text('website_url').notNull().default(''),
  phoneNumber: text('phone_number').notNull().default(''),
  businessLocation: text('business_location').notNull().default(''),
  /** IANA zone for "tomorrow" (snooze), business hours and stats days (migrations/0016_lifecycle.sql). */
  timeZone: text('time_zone').notNull().default('UTC'),
  /** Open conversations silent this many hours are resolved by a job; null: off. */
  autoResolveHours: integer('auto_resolve_hours'),
  /** New conversations go round-robin to available Agents (server/policies/routing.ts). */
  roundRobin: boolean('round_robin').notNull().default(false),
  /** The member the last routed conversation went to: the round-robin pointer. */
  routedUserId: integer('routed_user_id'),
  /** Issue 14: every member must sign in with a second factor; messages older than N months are deleted (null: kept). */
  requireTwoFactor: boolean('require_two_factor').notNull().default(false),
  retentionMonths: integer('retention_months'),
  createdAt: createdAt(),
  /** The satisfaction survey is asked in the widget (issue 13, migrations/0025_ratings_triggers.sql). */
  csatEnabled: boolean('csat_enabled').notNull().default(true),
  /** Issue 17: opening hours per weekday in time_zone; null: always open (migrations/0031_business_hours.sql, services/businessHours.ts). */
  businessHours: jsonb('business_hours').$type<WeekHours>(),
  /** Issue 17: days closed all day (holidays), "YYYY-MM-DD" in time_zone, sorted (migrations/0032_closed_dates.sql). */
  closedDates: jsonb('closed_dates').$type<string[]>().notNull().default([]),
});

export const roles = pgTable('roles', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
});

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    isAdmin: boolean('is_admin').notNull().default(false),
    type: text('type', { enum: ['owner', 'team_member'] }).notNull(),
    roleId: integer('role_id').references(() => roles.id),
    status: text('status', { enum: ['active', 'disabled'] }).notNull().default('active'),
    /** Whether routing and the widget count this member as available. */
    availability: text('availability', { enum: ['online', 'away'] }).notNull().default('online'),
    /** Routing gives them no new conversation while they hold this many open ones; null: no cap. */
    maxOpenChats: integer('max_open_chats'),
    /** Console alerts while the tab is hidden (issue 16): desktop notification, sound. */
    alertDesktop: boolean('alert_desktop').notNull().default(true),
    alertSound: boolean('alert_sound').notNull().default(true),
    /** Issue 14: null until the owner opens the verification link; TOTP secret (live once enabled) and last step used. */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    totpSecret: text('totp_secret'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`), index('users_account_idx').on(t.accountId)],
);

export const authTokens = pgTable(
  'auth_tokens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** sha256 of the bearer token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    /** Issue 14: where the session was signed in from (active sessions list). */
    ip: text('ip').notNull().default(''),
    userAgent: text('user_agent').notNull().default(''),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('auth_tokens_user_idx').on(t.userId)],
);

export const widgetSettings = pgTable('widget_settings', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  name: text('name').notNull().default(''),
  title: text('title').notNull().default(''),
  color: text('color').notNull().default('#667eea'),
  avatar: text('avatar').notNull().default(''),
  emailNotifications: jsonb('email_notifications')
    .$type<{ newChats: boolean; offlineMessages: boolean; missedChats: boolean }>()
    .notNull()
    .default({ newChats: true, offlineMessages: true, missedChats: true }),
  initialGreeting: text('initial_greeting').notNull().default('Hello! How can we assist you today?'),
  followUpGreeting: text('follow_up_greeting').notNull().default('Feel free to ask any questions!'),
  /** Hides the widget's 'Powered by Parley' credit; honoured only while the plan allows it. */
  hideBranding: boolean('hide_branding').notNull().default(false),
  /** Issue 13 (0024): '' follows the visitor's browser; otherwise the widget's language code. */
  language: text('language').notNull().default(''),
  /** Issue 13 (0024): greetings per language code; the default greetings above otherwise. */
  greetingsByLanguage: jsonb('greetings_by_language')
    .$type<Record<string, { initial_greeting: string; follow_up_greeting: string }>>()
    .notNull()
    .default({}),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const visitors = pgTable(
  'visitors',
  {
    /** Random uuid: not guessable, safe to show in URLs. */
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    name: text('name').notNull().default(''),
    email: text('email').notNull().default(''),
    ip: text('ip').notNull().default(''),
    country: text('country').notNull().default(''),
    browser: text('browser').notNull().default(''),
    os: text('os').notNull().default(''),
    device: text('device').notNull().default(''),
    currentPage: text('current_page').notNull().default(''),
    referrer: text('referrer').notNull().default(''),
    locale: text('locale').notNull().default(''),
    pageViews: integer('page_views').notNull().default(1),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    /** Visits so far and the current one's start, kept by a trigger (migrations/0022_inbox_context.sql). */
    visitCount: integer('visit_count').notNull().default(1),
    visitStartedAt: timestamp('visit_started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The browser's IANA time zone when known; '' otherwise. */
    timeZone: text('time_zone').notNull().default(''),
  },
  (t) => [
    // No (account_id, last_seen_at) nor (account_id, created_at DESC NULLS LAST) index: the next two serve them (0035).
    // INCLUDE (device) in migrations/0022_inbox_stats.sql: the stats' device split reads the index only.
    index('visitors_account_seen_device_idx').on(t.accountId, t.lastSeenAt),
    index('visitors_account_created_id_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()),
    index('visitors_search_idx').using('gin', sql`to_tsvector('simple'::regconfig, ${t.name} || ' ' || ${t.email})`),
    index('visitors_account_country_created_idx').on(t.accountId, t.country, t.createdAt.desc(), t.id.desc()),
  ],
);

export const conversations = pgTable(
  'conversations',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    visitorId: uuid('visitor_id')
      .notNull()
      .references(() => visitors.id, { onDelete: 'cascade' }),
    /** open | pending (snoozed until snoozedUntil, or until the visitor writes) | resolved. */
    status: text('status', { enum: CONVERSATION_STATUSES }).notNull().default('open'),
    snoozedUntil: timestamp('snoozed_until', { withTimezone: true, mode: 'date' }),
    /** Start of the current stretch (PRODUCT.md section 11): creation, or the last reopen after a resolve. */
    openedAt: timestamp('opened_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** End of the last stretch; null while it runs. */
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
    assigneeId: integer('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    lastMessage: text('last_message').notNull().default(''),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true }),
    unreadCount: integer('unread_count').notNull().default(0),
    /**
     * When it became one of the plan's monthly chats (its opening, usually); null while it only
     * holds an offline-form message. The month of this instant is the month it counts in.
     */
    countedAt: timestamp('counted_at', { withTimezone: true, mode: 'date' }).defaultNow(),
    createdAt: createdAt(),
    /**
     * Kept by a trigger on messages (migrations/0017_inbox_paging.sql), so lists and stats never
     * scan messages: the first visitor message, the first staff reply after it, and the oldest
     * visitor message not answered yet (null: nobody waiting). Also `xact_id xid8`, stamped by a
     * trigger on every insert/update (the change cursor), left out here like messages.xact_id.
     */
    firstVisitorMessageAt: timestamp('first_visitor_message_at', { withTimezone: true, mode: 'date' }),
    firstReplyAt: timestamp('first_reply_at', { withTimezone: true, mode: 'date' }),
    waitingSince: timestamp('waiting_since', { withTimezone: true, mode: 'date' }),
    /** The newest message id the visitor's widget reported seen (seen ticks, 0022); null: none. */
    visitorSeenId: bigint('visitor_seen_id', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('conversations_visitor_idx').on(t.visitorId),
    index('conversations_account_last_idx').on(t.accountId, t.lastMessageAt.desc()),
    // No (assignee_id) nor (account_id, created_at) index: their longer forms below serve them (0033).
    index('conversations_account_counted_idx').on(t.accountId, t.countedAt),
    index('conversations_account_xact_idx').on(t.accountId, sql`xact_id`),
    index('conversations_account_sort_idx').on(t.accountId, sql`(coalesce(${t.lastMessageAt}, '-infinity'::timestamptz)) desc`, t.id.desc()),
    index('conversations_account_status_sort_idx').on(
      t.accountId,
      t.status,
      sql`(coalesce(${t.lastMessageAt}, '-infinity'::timestamptz)) desc`,
      t.id.desc(),
    ),
    index('conversations_account_assignee_sort_idx').on(
      t.accountId,
      t.assigneeId,
      t.status,
      sql`(coalesce(${t.lastMessageAt}, '-infinity'::timestamptz)) desc`,
      t.id.desc(),
    ),
    index('conversations_account_waiting_idx').on(t.accountId, t.status, sql`(coalesce(${t.waitingSince}, 'infinity'::timestamptz))`, t.id),
    index('conversations_assignee_created_idx').on(t.assigneeId, t.createdAt.desc(), t.id.desc()),
    index('conversations_account_first_visitor_idx').on(t.accountId, t.firstVisitorMessageAt),
    index('conversations_account_created_id_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()),
  ],
);

/** Conversations per (account, assignee, status), kept by a trigger (0017): live list counts. */
export const conversationCounts = pgTable(
  'conversation_counts',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The assignee's user id; 0 for unassigned. */
    assigneeKey: integer('assignee_key').notNull(),
    status: text('status').notNull(),
    n: integer('n').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.assigneeKey, t.status] })],
);

export const messages = pgTable(
  'messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Its conversation's account (no foreign key of its own since 0034: the conversation's holds it, and its cascade deletes the message). */
    accountId: uuid('account_id').notNull(),
    conversationId: integer('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    clientId: text('client_id'),
    /** 'system': a lifecycle line ("Ada resolved the conversation"), never shown to the visitor (policies/messages.ts). */
    senderType: text('sender_type', { enum: SENDER_TYPES }).notNull(),
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    message: text('message').notNull().default(''),
    filePath: text('file_path').notNull().default(''),
    /** Issue 13 (0024): the attachment's cleaned name, sniffed type and size ('' / '' / 0: none). */
    fileName: text('file_name').notNull().default(''),
    fileType: text('file_type').notNull().default(''),
    fileSize: integer('file_size').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('messages_client_id_idx').on(t.conversationId, t.clientId),
    index('messages_conversation_id_idx').on(t.conversationId, t.id),
    index('messages_account_created_idx').on(t.accountId, t.createdAt),
    index('messages_account_bot_created_idx').on(t.accountId, t.createdAt).where(sql`${t.senderType} = 'bot'`),
    index('messages_search_idx').using('gin', sql`to_tsvector('simple'::regconfig, ${t.message})`),
  ],
);

export const plans = pgTable('plans', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  /** Dollars per month; null for a custom (contact sales) price. */
  price: numeric('price', { precision: 10, scale: 2, mode: 'number' }),
  features: jsonb('features').$type<string[]>().notNull(),
  position: integer('position').notNull(),
  /** Storage quota in megabytes; null: none (migrations/0009_uploads.sql). */
  storageQuotaMb: integer('storage_quota_mb'),
});

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    planId: integer('plan_id')
      .notNull()
      .references(() => plans.id),
    planName: text('plan_name').notNull(),
    amount: numeric('amount', { precision: 10, scale: 2, mode: 'number' }).notNull(),
    status: text('status').notNull(),
    isActive: boolean('is_active').notNull().default(false),
    paymentReference: text('payment_reference').unique(),
    startDate: timestamp('start_date', { withTimezone: true }).notNull(),
    expiryDate: timestamp('expiry_date', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('subscriptions_account_idx').on(t.accountId, t.createdAt.desc())],
);

/** One row per widget load on a host page; its status says how far it got (integration metrics). */
export const widgetLoads = pgTable(
  'widget_loads',
  {
    id: text('id').notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['Active', 'Pending', 'Error'] }).notNull(),
    detail: text('detail').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('widget_loads_account_id_idx').on(t.accountId, t.id),
    index('widget_loads_account_created_idx').on(t.accountId, t.createdAt),
  ],
);
