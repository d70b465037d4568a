-- Issue 12 (billing and reply emails); keep in step with server/db/tables/billing.ts and visitorLinks.ts.
-- A plan change the owner scheduled for the end of the period in force (Starter downgrade or
-- cancel): one per account; paying again or "keep my plan" removes it.
CREATE TABLE "plan_changes" (
	"account_id" uuid PRIMARY KEY NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"kind" text NOT NULL,
	"plan_id" integer NOT NULL REFERENCES "plans"("id"),
	"effective_at" timestamp with time zone NOT NULL,
	"requested_by" integer REFERENCES "users"("id") ON DELETE set null,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plan_changes_kind_check" CHECK ("kind" IN ('downgrade', 'cancel'))
);
-- Extra widget tokens of a visitor, issued when the visitor opens the signed link of a reply
-- email on another browser: the visitor's own token (visitors.token_hash) keeps working.
CREATE TABLE "visitor_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"visitor_id" uuid NOT NULL REFERENCES "visitors"("id") ON DELETE cascade,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX "visitor_tokens_visitor_idx" ON "visitor_tokens" ("visitor_id");
-- Keys the server generates once and every node shares (the reply-email link's HMAC key).
CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
