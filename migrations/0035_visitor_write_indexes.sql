-- Issue 15, the write cost of the hot tables: every new visitor inserts one entry into every index
-- of visitors, and so does every update of a visitor that changes an indexed column (a page event
-- or a message sets last_seen_at, indexed, so those updates are never HOT). Two indexes served no
-- query the others do not:
--   visitors_account_seen_idx (account_id, last_seen_at)
--     = the key of visitors_account_seen_device_idx (account_id, last_seen_at) INCLUDE (device) (0022),
--       which the dashboard's visitors seen in a range (the only reader of last_seen_at) reads alone;
--   visitors_account_created_idx (account_id, created_at DESC NULLS LAST)
--     = a prefix of visitors_account_created_id_idx (account_id, created_at DESC, id DESC) (0017):
--       no query orders visitors NULLS LAST (created_at is NOT NULL; the lists order by created_at
--       DESC, id DESC), and the dashboard's counts and histogram of new visitors in a range and an
--       account's deletion (ON DELETE CASCADE) read the longer index the same way.
-- docs/DECISIONS.md "Fewer indexes on the hot tables" has the plans and the figures.
-- Removals only: the previous release works unchanged.
--
-- Large PostgreSQL databases: run migrations/0035_visitor_write_indexes.concurrently.sql with
-- psql BEFORE upgrading (the same drops, CONCURRENTLY: no lock that blocks the visitors table);
-- the IF EXISTS below then does nothing.
DROP INDEX IF EXISTS "visitors_account_seen_idx";
DROP INDEX IF EXISTS "visitors_account_created_idx";
