-- Run with psql BEFORE upgrading a large PostgreSQL database (not by the server's migrator:
-- CREATE INDEX CONCURRENTLY cannot run inside its transaction). See 0022_inbox_stats.sql.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "visitors_account_seen_device_idx" ON "visitors" ("account_id", "last_seen_at") INCLUDE ("device");
