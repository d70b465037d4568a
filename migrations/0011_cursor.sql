-- Issue 11: a commit-safe cursor for message polls, and an atomic Starter chat limit.

-- Finding 9. Ids are taken before commit, so "id > since_id" can skip a message whose
-- transaction commits after a higher id's. Every message records the id of the transaction
-- that wrote it (a column DEFAULT: every writer, old release or new, fills it without naming
-- it). A poll remembers the snapshot it read under; the next poll returns the rows whose
-- transaction that snapshot could not see (server/db/commitCursor.ts). Rows written before
-- this migration stay null: every snapshot taken after it already sees them.
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "xact_id" xid8;
ALTER TABLE "messages" ALTER COLUMN "xact_id" SET DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS "messages_conversation_xact_idx" ON "messages" ("conversation_id", "xact_id");

-- Item 11: the Starter limit's check and the new chat it lets through are one step. The check
-- runs under a per-account lock and records a claim for the visitor; the claim counts until
-- the visitor's conversation exists (then the conversation counts) or it expires (a send that
-- never finished). See server/billing/limits.ts.
CREATE TABLE IF NOT EXISTS "chat_claims" (
  "visitor_id" uuid PRIMARY KEY REFERENCES "visitors"("id") ON DELETE CASCADE,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS "chat_claims_account_idx" ON "chat_claims" ("account_id", "created_at");
