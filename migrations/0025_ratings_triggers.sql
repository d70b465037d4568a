-- Issue 13 "The visitor's side": ratings (CSAT), transcripts by email, proactive messages
-- (server/db/tables/visitorSide.ts). Additive only: the previous release ignores all of it
-- during a rolling restart.

-- The owner/Admin can turn the satisfaction survey off (on by default).
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "csat_enabled" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
-- One rating per stretch of a conversation (PRODUCT.md section 11): the stretch is named by the
-- conversation's opened_at when it was rated. agent_id: who answered it (for per-agent averages).
CREATE TABLE IF NOT EXISTS "ratings" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"conversation_id" integer NOT NULL,
	"stretch_opened_at" timestamp with time zone NOT NULL,
	"agent_id" integer,
	"score" smallint NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ratings_score_check" CHECK ("score" BETWEEN 1 AND 5)
);
--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_agent_id_users_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "ratings_stretch_idx" ON "ratings" USING btree ("conversation_id","stretch_opened_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ratings_account_created_idx" ON "ratings" USING btree ("account_id","created_at");--> statement-breakpoint
-- A visitor asked for the transcript: it is emailed when the conversation is resolved (at once
-- when it already is). One pending request per conversation.
CREATE TABLE IF NOT EXISTS "transcript_requests" (
	"conversation_id" integer PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"email" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "transcript_requests" ADD CONSTRAINT "transcript_requests_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_requests" ADD CONSTRAINT "transcript_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Proactive messages: the owner's triggers, and which fired for which visitor on which day
-- (at most once per visitor per day, checked by the server).
CREATE TABLE IF NOT EXISTS "proactive_triggers" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"url_pattern" text DEFAULT '' NOT NULL,
	"seconds_on_page" integer DEFAULT 0 NOT NULL,
	"nth_page" integer DEFAULT 0 NOT NULL,
	"returning_only" boolean DEFAULT false NOT NULL,
	"message" text NOT NULL,
	"sender_name" text DEFAULT '' NOT NULL,
	"sender_avatar" text DEFAULT '' NOT NULL,
	"open_panel" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "proactive_triggers" ADD CONSTRAINT "proactive_triggers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "proactive_triggers_account_idx" ON "proactive_triggers" USING btree ("account_id");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "proactive_fires" (
	"trigger_id" integer NOT NULL,
	"visitor_id" uuid NOT NULL,
	"day" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "proactive_fires_pk" PRIMARY KEY("trigger_id","visitor_id","day")
);
--> statement-breakpoint
ALTER TABLE "proactive_fires" ADD CONSTRAINT "proactive_fires_trigger_id_proactive_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."proactive_triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proactive_fires" ADD CONSTRAINT "proactive_fires_visitor_id_visitors_id_fk" FOREIGN KEY ("visitor_id") REFERENCES "public"."visitors"("id") ON DELETE cascade ON UPDATE no action;
