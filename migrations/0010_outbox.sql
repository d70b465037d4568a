-- Outbox (see server/outbox/): work recorded in the same transaction as the write that causes
-- it, then relayed (to BullMQ, or to the in-process runner's jobs table) by any live node.
-- A relayed row stays until its job has finished, so a queue that lost it is noticed and the
-- row is relayed again. Additive only: the previous release ignores the table.
CREATE TABLE IF NOT EXISTS "outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"topic" text NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"relayed_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "outbox_status_idx" ON "outbox" ("status", "id");
-- At most one unfinished row per key: a later trigger joins the pending job (like BullMQ's deduplication).
CREATE UNIQUE INDEX IF NOT EXISTS "outbox_dedupe_idx" ON "outbox" ("dedupe_key") WHERE status in ('pending', 'relayed');
-- The owner's email budget counts an account's recent notification emails.
CREATE INDEX IF NOT EXISTS "sent_emails_account_created_idx" ON "sent_emails" ("account_id", "created_at");
