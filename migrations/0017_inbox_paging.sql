-- Issue 16, "Pagination and server search": change cursor, counters, per-conversation times,
-- search and ordered indexes. Additions only (compatible with the previous release).
--
-- Large PostgreSQL databases: this file runs in one transaction (server/db/migrate.ts), where
-- CREATE INDEX CONCURRENTLY is not allowed. Run migrations/0017_inbox.concurrently.sql with psql
-- BEFORE upgrading (it builds the same indexes CONCURRENTLY without blocking writes); every
-- CREATE INDEX below is IF NOT EXISTS and then costs nothing (docs/DECISIONS.md, issue 16).

-- 1. Change cursor. Every INSERT/UPDATE of a conversation, by any writer (a message's
-- last_message, a status or an assignment, a label), stamps the writing transaction's id, so
-- `GET /conversations?changes_since=` returns what committed since a snapshot (db/commitCursor.ts).
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "xact_id" xid8;
CREATE OR REPLACE FUNCTION parley_stamp_xact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.xact_id := pg_current_xact_id();
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS conversations_stamp_xact ON "conversations";
CREATE TRIGGER conversations_stamp_xact BEFORE INSERT OR UPDATE ON "conversations"
  FOR EACH ROW EXECUTE FUNCTION parley_stamp_xact();
CREATE INDEX IF NOT EXISTS "conversations_account_xact_idx" ON "conversations" ("account_id", "xact_id");

-- 2. Times kept per conversation so lists and stats never scan messages: the first visitor
-- message, the first staff reply after it, and the oldest visitor message not answered yet.
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "first_visitor_message_at" timestamp with time zone;
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "first_reply_at" timestamp with time zone;
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "waiting_since" timestamp with time zone;

CREATE OR REPLACE FUNCTION parley_message_times() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.sender_type = 'visitor' THEN
    UPDATE "conversations" SET
      "first_visitor_message_at" = coalesce("first_visitor_message_at", NEW.created_at),
      "waiting_since" = coalesce("waiting_since", NEW.created_at)
    WHERE "id" = NEW.conversation_id AND ("first_visitor_message_at" IS NULL OR "waiting_since" IS NULL);
  ELSIF NEW.sender_type = 'user' THEN
    UPDATE "conversations" SET
      "first_reply_at" = CASE WHEN "first_reply_at" IS NULL AND "first_visitor_message_at" IS NOT NULL
                              THEN NEW.created_at ELSE "first_reply_at" END,
      "waiting_since" = NULL
    WHERE "id" = NEW.conversation_id
      AND ("waiting_since" IS NOT NULL OR ("first_reply_at" IS NULL AND "first_visitor_message_at" IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS messages_conversation_times ON "messages";
CREATE TRIGGER messages_conversation_times AFTER INSERT ON "messages"
  FOR EACH ROW EXECUTE FUNCTION parley_message_times();

-- Backfill from the messages already stored.
UPDATE "conversations" c SET "first_visitor_message_at" = x.fv
FROM (SELECT "conversation_id", min("created_at") AS fv FROM "messages" WHERE "sender_type" = 'visitor' GROUP BY "conversation_id") x
WHERE x."conversation_id" = c."id" AND c."first_visitor_message_at" IS NULL;
UPDATE "conversations" c SET "first_reply_at" = x.fr
FROM (SELECT m."conversation_id", min(m."created_at") AS fr FROM "messages" m
      JOIN "conversations" c2 ON c2."id" = m."conversation_id"
      WHERE m."sender_type" = 'user' AND m."created_at" >= c2."first_visitor_message_at" GROUP BY m."conversation_id") x
WHERE x."conversation_id" = c."id" AND c."first_reply_at" IS NULL;
UPDATE "conversations" c SET "waiting_since" = x.ws
FROM (SELECT "conversation_id", min("created_at") FILTER (WHERE "sender_type" = 'visitor' AND "id" > coalesce(lu, 0)) AS ws
      FROM (SELECT "conversation_id", "id", "created_at", "sender_type",
                   max("id") FILTER (WHERE "sender_type" = 'user') OVER (PARTITION BY "conversation_id") AS lu
            FROM "messages") m
      GROUP BY "conversation_id") x
WHERE x."conversation_id" = c."id" AND x.ws IS NOT NULL AND c."waiting_since" IS NULL;

-- 3. Live counts per (account, assignee, status), kept by a trigger, so the list's totals and
-- the Mine / Unassigned / All counts never count the tenant's rows. assignee_key 0 = nobody.
CREATE TABLE IF NOT EXISTS "conversation_counts" (
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "assignee_key" integer NOT NULL,
  "status" text NOT NULL,
  "n" integer NOT NULL DEFAULT 0,
  PRIMARY KEY ("account_id", "assignee_key", "status")
);
CREATE OR REPLACE FUNCTION parley_conversation_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.account_id = NEW.account_id AND OLD.status = NEW.status
     AND OLD.assignee_id IS NOT DISTINCT FROM NEW.assignee_id THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    -- An UPDATE only: the row may be gone with its account (cascade), never re-created here.
    UPDATE "conversation_counts" SET "n" = "n" - 1
    WHERE "account_id" = OLD.account_id AND "assignee_key" = coalesce(OLD.assignee_id, 0) AND "status" = OLD.status;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "conversation_counts" ("account_id", "assignee_key", "status", "n")
    VALUES (NEW.account_id, coalesce(NEW.assignee_id, 0), NEW.status, 1)
    ON CONFLICT ("account_id", "assignee_key", "status") DO UPDATE SET "n" = "conversation_counts"."n" + 1;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS conversations_counts ON "conversations";
CREATE TRIGGER conversations_counts AFTER INSERT OR UPDATE OR DELETE ON "conversations"
  FOR EACH ROW EXECUTE FUNCTION parley_conversation_counts();
DELETE FROM "conversation_counts";
INSERT INTO "conversation_counts" ("account_id", "assignee_key", "status", "n")
SELECT "account_id", coalesce("assignee_id", 0), "status", count(*) FROM "conversations" GROUP BY 1, 2, 3;

-- 4. Indexes in each query's order (server/routes/conversations/list.ts and others). The sort
-- key of "newest" is last_message_at with conversations that have none last.
CREATE INDEX IF NOT EXISTS "conversations_account_sort_idx" ON "conversations"
  ("account_id", (coalesce("last_message_at", '-infinity'::timestamptz)) DESC, "id" DESC);
CREATE INDEX IF NOT EXISTS "conversations_account_status_sort_idx" ON "conversations"
  ("account_id", "status", (coalesce("last_message_at", '-infinity'::timestamptz)) DESC, "id" DESC);
CREATE INDEX IF NOT EXISTS "conversations_account_assignee_sort_idx" ON "conversations"
  ("account_id", "assignee_id", "status", (coalesce("last_message_at", '-infinity'::timestamptz)) DESC, "id" DESC);
CREATE INDEX IF NOT EXISTS "conversations_account_waiting_idx" ON "conversations"
  ("account_id", "status", (coalesce("waiting_since", 'infinity'::timestamptz)), "id");
CREATE INDEX IF NOT EXISTS "conversations_assignee_created_idx" ON "conversations" ("assignee_id", "created_at" DESC, "id" DESC);
CREATE INDEX IF NOT EXISTS "conversations_account_first_visitor_idx" ON "conversations"
  ("account_id", "first_visitor_message_at") INCLUDE ("first_reply_at");
CREATE INDEX IF NOT EXISTS "visitors_account_created_id_idx" ON "visitors" ("account_id", "created_at" DESC, "id" DESC);
-- The dashboard's AI answers per bucket count bot messages only.
CREATE INDEX IF NOT EXISTS "messages_account_bot_created_idx" ON "messages" ("account_id", "created_at") WHERE "sender_type" = 'bot';

-- 5. Server search: full text with the 'simple' configuration (no stemming, any language;
-- the last word matches as a prefix), built in on PostgreSQL and PGlite alike.
CREATE INDEX IF NOT EXISTS "messages_search_idx" ON "messages" USING gin (to_tsvector('simple'::regconfig, "message"));
CREATE INDEX IF NOT EXISTS "visitors_search_idx" ON "visitors" USING gin (to_tsvector('simple'::regconfig, "name" || ' ' || "email"));
