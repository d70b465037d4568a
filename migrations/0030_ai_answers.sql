-- Issue 17 "In the widget": the assistant's answers to visitors, one row per bot message that
-- answered from knowledge (a learned pattern or a source's passage), with its confidence and the
-- visitor's "Was this helpful?" vote. The vote is recorded and shown to the owner; it never
-- re-weights anything (PRODUCT.md section 11: anonymous visitors' votes never re-weight answers).
-- A new table only, so the previous release keeps working during a rolling restart.
-- Keep in step with server/db/tables/ai.ts.
CREATE TABLE IF NOT EXISTS "ai_answers" (
	"message_id" bigint PRIMARY KEY NOT NULL REFERENCES "messages"("id") ON DELETE cascade,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"conversation_id" integer NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"pattern_id" bigint REFERENCES "ai_patterns"("id") ON DELETE set null,
	"passage_id" bigint REFERENCES "ai_passages"("id") ON DELETE set null,
	"confidence" real NOT NULL,
	"vote" text,
	"voted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_answers_account_idx" ON "ai_answers" ("account_id", "created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_answers_passage_idx" ON "ai_answers" ("passage_id") WHERE "passage_id" IS NOT NULL;
