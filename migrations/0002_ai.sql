-- The AI assistant (server/db/tables/ai.ts).
CREATE TABLE "ai_settings" (
	"account_id" uuid PRIMARY KEY NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
	"auto_answer_enabled" boolean DEFAULT false NOT NULL,
	"threshold" real DEFAULT 0.8 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE "ai_patterns_rev_seq";

CREATE TABLE "ai_patterns" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
	"source" text NOT NULL,
	"question" text NOT NULL,
	"answer" text NOT NULL,
	"weight" real DEFAULT 1 NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"helpful" integer DEFAULT 0 NOT NULL,
	"not_helpful" integer DEFAULT 0 NOT NULL,
	"retired" boolean DEFAULT false NOT NULL,
	"source_message_id" bigint,
	"rev" bigint DEFAULT nextval('ai_patterns_rev_seq') NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX "ai_patterns_account_idx" ON "ai_patterns" ("account_id", "rev");
CREATE UNIQUE INDEX "ai_patterns_source_message_idx" ON "ai_patterns" ("source_message_id");

CREATE TABLE "ai_chat_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"sender_type" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"file_path" text DEFAULT '' NOT NULL,
	"confidence_score" real,
	"intent_detected" text,
	"pattern_id" bigint REFERENCES "ai_patterns"("id") ON DELETE SET NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX "ai_chat_messages_user_idx" ON "ai_chat_messages" ("user_id", "id");

CREATE TABLE "ai_feedback" (
	"message_id" bigint PRIMARY KEY NOT NULL REFERENCES "ai_chat_messages"("id") ON DELETE CASCADE,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "ai_conversations" (
	"conversation_id" integer PRIMARY KEY NOT NULL REFERENCES "conversations"("id") ON DELETE CASCADE,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
	"bot_replies" integer DEFAULT 0 NOT NULL,
	"handover" boolean DEFAULT false NOT NULL,
	"first_bot_reply_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX "ai_conversations_account_idx" ON "ai_conversations" ("account_id", "first_bot_reply_at");
