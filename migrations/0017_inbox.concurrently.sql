-- Not run by server/db/migrate.ts (its name is not NNNN_name.sql). For a large PostgreSQL
-- database, run it with `psql -v ON_ERROR_STOP=1 -f migrations/0017_inbox.concurrently.sql`
-- BEFORE upgrading: it builds 0017_inbox_paging.sql's indexes without blocking writes, and
-- that migration's CREATE INDEX IF NOT EXISTS then skips them. The expression indexes need
-- the columns, so the columns are added first (instant: no default, no rewrite).
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "xact_id" xid8;
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "first_visitor_message_at" timestamp with time zone;
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "first_reply_at" timestamp with time zone;
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "waiting_since" timestamp with time zone;
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_xact_idx" ON "conversations" ("account_id", "xact_id");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_sort_idx" ON "conversations"
  ("account_id", (coalesce("last_message_at", '-infinity'::timestamptz)) DESC, "id" DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_status_sort_idx" ON "conversations"
  ("account_id", "status", (coalesce("last_message_at", '-infinity'::timestamptz)) DESC, "id" DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_assignee_sort_idx" ON "conversations"
  ("account_id", "assignee_id", "status", (coalesce("last_message_at", '-infinity'::timestamptz)) DESC, "id" DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_waiting_idx" ON "conversations"
  ("account_id", "status", (coalesce("waiting_since", 'infinity'::timestamptz)), "id");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_assignee_created_idx" ON "conversations" ("assignee_id", "created_at" DESC, "id" DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_first_visitor_idx" ON "conversations"
  ("account_id", "first_visitor_message_at") INCLUDE ("first_reply_at");
CREATE INDEX CONCURRENTLY IF NOT EXISTS "visitors_account_created_id_idx" ON "visitors" ("account_id", "created_at" DESC, "id" DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_account_bot_created_idx" ON "messages" ("account_id", "created_at") WHERE "sender_type" = 'bot';
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_search_idx" ON "messages" USING gin (to_tsvector('simple'::regconfig, "message"));
CREATE INDEX CONCURRENTLY IF NOT EXISTS "visitors_search_idx" ON "visitors" USING gin (to_tsvector('simple'::regconfig, "name" || ' ' || "email"));
