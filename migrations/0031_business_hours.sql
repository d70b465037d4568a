-- Issue 17, business hours: when the team answers, in the account's time zone (accounts.time_zone).
-- null is "always open" (every account before this release). Shape (shared/src/schemas/businessHours.ts):
-- {"mon": {"open": "09:00", "close": "17:30"}, "sat": null, ...}; a day missing or null is closed.
-- Outside them the assistant's hand-over tells the visitor when the team is back.
-- Additive only (a new nullable column and a new table), so the previous release keeps working
-- during a rolling restart. Keep in step with server/db/tables/core.ts and server/db/tables/ai.ts.
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "business_hours" jsonb;
--> statement-breakpoint
-- The assistant's hand-over message to a visitor, with what the widget needs to word it in the
-- visitor's language and time zone: the next opening (outside business hours) or the typical
-- reply time in seconds (inside them; null: none to go by).
CREATE TABLE IF NOT EXISTS "ai_handovers" (
	"message_id" bigint PRIMARY KEY NOT NULL REFERENCES "messages"("id") ON DELETE cascade,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"conversation_id" integer NOT NULL REFERENCES "conversations"("id") ON DELETE cascade,
	"back_at" timestamp with time zone,
	"reply_seconds" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ai_handovers_conversation_idx" ON "ai_handovers" ("conversation_id");
