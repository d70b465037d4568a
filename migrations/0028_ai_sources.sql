-- Issue 17 "An assistant that answers half the questions": the business's own knowledge sources
-- (a website crawled within its host, documents, an FAQ file) and the passages extracted from
-- them, which the assistant retrieves and cites. Removing a source removes its passages
-- (cascade). The console assistant's answers record the passage they came from. New tables and
-- a nullable column only, so the previous release keeps working during a rolling restart.
-- Keep in step with server/db/tables/ai.ts.
CREATE TABLE IF NOT EXISTS "ai_sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"url" text,
	"file_path" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"page_count" integer DEFAULT 0 NOT NULL,
	"passage_count" integer DEFAULT 0 NOT NULL,
	"error" text,
	"last_refreshed_at" timestamp with time zone,
	"next_refresh_at" timestamp with time zone,
	"created_by" integer REFERENCES "users"("id") ON DELETE set null,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_sources_account_idx" ON "ai_sources" ("account_id", "created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_sources_refresh_idx" ON "ai_sources" ("next_refresh_at") WHERE "next_refresh_at" IS NOT NULL;
--> statement-breakpoint
CREATE SEQUENCE IF NOT EXISTS "ai_passages_rev_seq";
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "ai_passages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"source_id" uuid NOT NULL REFERENCES "ai_sources"("id") ON DELETE cascade,
	"url" text,
	"title" text NOT NULL,
	"heading" text DEFAULT '' NOT NULL,
	"question" text,
	"text" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"weight" real DEFAULT 1 NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"helpful" integer DEFAULT 0 NOT NULL,
	"not_helpful" integer DEFAULT 0 NOT NULL,
	"embedding" real[],
	"rev" bigint DEFAULT nextval('ai_passages_rev_seq') NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_passages_account_idx" ON "ai_passages" ("account_id", "rev");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_passages_source_idx" ON "ai_passages" ("source_id", "position");
--> statement-breakpoint
ALTER TABLE "ai_chat_messages" ADD COLUMN IF NOT EXISTS "passage_id" bigint REFERENCES "ai_passages"("id") ON DELETE set null;
