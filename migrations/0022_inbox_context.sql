-- Issue 16 "Visitor context beside the chat" and seen ticks. Additions only (compatible with the
-- previous release during a rolling restart); everything is kept by triggers, so every writer
-- (widget calls, widget socket, the console, jobs, the previous release) keeps it true.

-- 1. Visits. A visit starts with the visitor and again whenever they come back after 30 minutes
-- without being seen (the usual web-analytics session); the side panel shows the number of
-- visits and the pages of the current one. time_zone: the browser's IANA zone when known.
ALTER TABLE "visitors" ADD COLUMN IF NOT EXISTS "visit_count" integer NOT NULL DEFAULT 1;
ALTER TABLE "visitors" ADD COLUMN IF NOT EXISTS "visit_started_at" timestamp with time zone NOT NULL DEFAULT now();
ALTER TABLE "visitors" ADD COLUMN IF NOT EXISTS "time_zone" text NOT NULL DEFAULT '';

CREATE OR REPLACE FUNCTION parley_visitor_visit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.last_seen_at > OLD.last_seen_at + interval '30 minutes' THEN
    NEW.visit_count := OLD.visit_count + 1;
    NEW.visit_started_at := NEW.last_seen_at;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS visitors_visit ON "visitors";
CREATE TRIGGER visitors_visit BEFORE UPDATE OF "last_seen_at" ON "visitors"
  FOR EACH ROW EXECUTE FUNCTION parley_visitor_visit();

-- 2. Pages a visitor opened, newest first per visitor (the panel reads the current visit's).
CREATE TABLE IF NOT EXISTS "visitor_pages" (
  "id" bigserial PRIMARY KEY,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "visitor_id" uuid NOT NULL REFERENCES "visitors"("id") ON DELETE CASCADE,
  "url" text NOT NULL,
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS "visitor_pages_visitor_idx" ON "visitor_pages" ("visitor_id", "id" DESC);

CREATE OR REPLACE FUNCTION parley_visitor_page() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.current_page <> '' AND (TG_OP = 'INSERT' OR NEW.current_page IS DISTINCT FROM OLD.current_page
                                 OR NEW.visit_count <> OLD.visit_count) THEN
    INSERT INTO "visitor_pages" ("account_id", "visitor_id", "url", "created_at")
    VALUES (NEW.account_id, NEW.id, NEW.current_page, now());
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS visitors_page ON "visitors";
CREATE TRIGGER visitors_page AFTER INSERT OR UPDATE ON "visitors"
  FOR EACH ROW EXECUTE FUNCTION parley_visitor_page();

-- 3. Past stretches of a conversation (PRODUCT.md section 11): one row each time it is resolved.
CREATE TABLE IF NOT EXISTS "conversation_stretches" (
  "id" bigserial PRIMARY KEY,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "conversation_id" integer NOT NULL REFERENCES "conversations"("id") ON DELETE CASCADE,
  "opened_at" timestamp with time zone NOT NULL,
  "resolved_at" timestamp with time zone NOT NULL,
  "message_count" integer NOT NULL DEFAULT 0,
  "first_message" text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS "conversation_stretches_conversation_idx" ON "conversation_stretches" ("conversation_id", "resolved_at" DESC);

CREATE OR REPLACE FUNCTION parley_conversation_stretch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'resolved' AND OLD.status <> 'resolved' THEN
    INSERT INTO "conversation_stretches" ("account_id", "conversation_id", "opened_at", "resolved_at", "message_count", "first_message")
    SELECT NEW.account_id, NEW.id, OLD.opened_at, coalesce(NEW.resolved_at, now()),
           count(*) FILTER (WHERE m.sender_type IN ('visitor', 'user', 'bot')),
           coalesce(left((array_agg(m.message ORDER BY m.id) FILTER (WHERE m.sender_type = 'visitor' AND m.message <> ''))[1], 200), '')
    FROM "messages" m
    WHERE m.conversation_id = NEW.id AND m.created_at >= OLD.opened_at;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS conversations_stretch ON "conversations";
CREATE TRIGGER conversations_stretch AFTER UPDATE OF "status" ON "conversations"
  FOR EACH ROW EXECUTE FUNCTION parley_conversation_stretch();

-- Conversations resolved before this migration: their last stretch.
INSERT INTO "conversation_stretches" ("account_id", "conversation_id", "opened_at", "resolved_at")
SELECT c."account_id", c."id", c."opened_at", c."resolved_at" FROM "conversations" c
WHERE c."status" = 'resolved' AND c."resolved_at" IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM "conversation_stretches" s WHERE s."conversation_id" = c."id");

-- 4. Seen ticks: the newest message id the visitor's widget reported as seen (never goes back).
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "visitor_seen_id" bigint;
