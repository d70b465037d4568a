-- Not run by server/db/migrate.ts (its name is not NNNN_name.sql). For a large PostgreSQL
-- database, run it with `psql -v ON_ERROR_STOP=1 -f migrations/0035_visitor_write_indexes.concurrently.sql`
-- BEFORE upgrading: it drops 0035_visitor_write_indexes.sql's indexes without taking a lock that
-- blocks reads and writes of visitors (a plain DROP INDEX holds one until the migration commits),
-- and that migration's DROP INDEX IF EXISTS then does nothing. Safe for the previous release
-- (its queries read the indexes that stay).
DROP INDEX CONCURRENTLY IF EXISTS "visitors_account_seen_idx";
DROP INDEX CONCURRENTLY IF EXISTS "visitors_account_created_idx";
