-- Jobs area: the in-process job queue and the notification emails sent (see server/db/tables/jobs.ts).
CREATE TABLE "jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"backoff_ms" integer NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"dedupe_key" text,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("status", "run_at");
CREATE UNIQUE INDEX "jobs_dedupe_idx" ON "jobs" USING btree ("dedupe_key") WHERE status in ('pending', 'running');

CREATE TABLE "sent_emails" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"conversation_id" integer NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"status" text DEFAULT 'sending' NOT NULL,
	"recipient" text NOT NULL,
	"locked_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sent_emails_key_unique" UNIQUE("key")
);
CREATE INDEX "sent_emails_conversation_kind_idx" ON "sent_emails" USING btree ("conversation_id", "kind", "sent_at");
