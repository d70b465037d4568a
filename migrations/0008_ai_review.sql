-- The assistant's knowledge review (server/db/tables/ai.ts): provenance, review status,
-- auto-approve, and Agent feedback that waits for an owner/Admin. Additive: the previous
-- release ignores the new columns during a rolling restart.
ALTER TABLE "ai_patterns" ADD COLUMN "status" text DEFAULT 'approved' NOT NULL;
ALTER TABLE "ai_patterns" ADD COLUMN "conversation_id" integer REFERENCES "conversations"("id") ON DELETE CASCADE;
ALTER TABLE "ai_patterns" ADD COLUMN "author_id" integer REFERENCES "users"("id") ON DELETE SET NULL;
ALTER TABLE "ai_patterns" ADD COLUMN "redactions" integer DEFAULT 0 NOT NULL;
ALTER TABLE "ai_patterns" ADD COLUMN "reviewed_by" integer REFERENCES "users"("id") ON DELETE SET NULL;
ALTER TABLE "ai_patterns" ADD COLUMN "reviewed_at" timestamp with time zone;

-- Provenance of what was learned before: the conversation of the reply it came from.
UPDATE "ai_patterns" p SET "conversation_id" = m."conversation_id", "author_id" = m."author_id"
  FROM "messages" m WHERE m."id" = p."source_message_id";
-- Learned from replies before any privacy filter existed: nothing reaches visitors until reviewed.
UPDATE "ai_patterns" SET "status" = 'pending', "rev" = nextval('ai_patterns_rev_seq') WHERE "source" = 'conversation';
CREATE INDEX "ai_patterns_review_idx" ON "ai_patterns" ("account_id", "status", "id");

ALTER TABLE "ai_settings" ADD COLUMN "auto_approve" boolean DEFAULT false NOT NULL;

-- applied_value: the rating counted in the pattern's weight; pending: an Agent's rating waiting
-- for an owner/Admin to confirm (or dismiss) it.
ALTER TABLE "ai_feedback" ADD COLUMN "applied_value" text;
ALTER TABLE "ai_feedback" ADD COLUMN "pending" boolean DEFAULT false NOT NULL;
UPDATE "ai_feedback" SET "applied_value" = "value";
CREATE INDEX "ai_feedback_pending_idx" ON "ai_feedback" ("account_id", "message_id") WHERE "pending";
