-- Issue 16, the Visitors page and the team lists: paged in each query's order, with totals that
-- never count the tenant's rows. Additions only (compatible with the previous release).
--
-- Large PostgreSQL databases: run migrations/0021_visitor_lists.concurrently.sql with psql
-- BEFORE upgrading (same indexes, built CONCURRENTLY); the IF NOT EXISTS below then skips them.

-- 1. Visitors per (account, country), kept by a trigger: the Visitors page's "Total Visitors"
-- and "Countries" cards and the list's `total` read a handful of rows (routes/visitors).
CREATE TABLE IF NOT EXISTS "visitor_counts" (
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "country" text NOT NULL,
  "n" integer NOT NULL DEFAULT 0,
  PRIMARY KEY ("account_id", "country")
);
CREATE OR REPLACE FUNCTION parley_visitor_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.account_id = NEW.account_id AND OLD.country = NEW.country THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "visitor_counts" SET "n" = "n" - 1 WHERE "account_id" = OLD.account_id AND "country" = OLD.country;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "visitor_counts" ("account_id", "country", "n") VALUES (NEW.account_id, NEW.country, 1)
    ON CONFLICT ("account_id", "country") DO UPDATE SET "n" = "visitor_counts"."n" + 1;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS visitors_counts ON "visitors";
CREATE TRIGGER visitors_counts AFTER INSERT OR UPDATE OF "account_id", "country" OR DELETE ON "visitors"
  FOR EACH ROW EXECUTE FUNCTION parley_visitor_counts();
DELETE FROM "visitor_counts";
INSERT INTO "visitor_counts" ("account_id", "country", "n")
SELECT "account_id", "country", count(*) FROM "visitors" GROUP BY 1, 2;

-- 2. Indexes in the lists' order. GET /visitor?country= (newest first within a country);
-- GET /users (website users: conversations newest first, id breaking ties).
CREATE INDEX IF NOT EXISTS "visitors_account_country_created_idx" ON "visitors" ("account_id", "country", "created_at" DESC, "id" DESC);
CREATE INDEX IF NOT EXISTS "conversations_account_created_id_idx" ON "conversations" ("account_id", "created_at" DESC, "id" DESC);
