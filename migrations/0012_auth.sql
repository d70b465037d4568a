-- Sign-in safety (issue 11): known devices lift an email's sign-in lock; email changes wait for a
-- confirmation link; session expiry sweeps auth_tokens by age. Keep in step with server/db/tables/auth.ts.
CREATE TABLE IF NOT EXISTS "known_devices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "known_devices_user_token_unique" UNIQUE("user_id", "token_hash")
);
CREATE TABLE IF NOT EXISTS "email_changes" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"new_email" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "email_changes_user_idx" ON "email_changes" ("user_id");
CREATE INDEX IF NOT EXISTS "auth_tokens_last_used_idx" ON "auth_tokens" ("last_used_at");
CREATE INDEX IF NOT EXISTS "auth_tokens_created_idx" ON "auth_tokens" ("created_at");
