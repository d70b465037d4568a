-- Not run by server/db/migrate.ts (its name is not NNNN_name.sql). For a large PostgreSQL
-- database, run it with `psql -v ON_ERROR_STOP=1 -f migrations/0021_visitor_lists.concurrently.sql`
-- BEFORE upgrading: it builds 0021_visitor_lists.sql's indexes without blocking writes, and that
-- migration's CREATE INDEX IF NOT EXISTS then skips them.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "visitors_account_country_created_idx" ON "visitors" ("account_id", "country", "created_at" DESC, "id" DESC);
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_account_created_id_idx" ON "conversations" ("account_id", "created_at" DESC, "id" DESC);
