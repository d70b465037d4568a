-- Issue 14, account trust (server/services/audit.ts, server/routes/auth, sessions, audit, gdpr).
-- Additive only, so the previous release keeps working during a rolling restart.
-- Keep in step with server/db/tables/trust.ts and the columns marked "issue 14" in tables/core.ts.

-- The audit log: who did what, when, from where. The actor's email is copied so the entry still
-- says who after the member is deleted.
CREATE TABLE IF NOT EXISTS "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE cascade,
	"actor_user_id" integer REFERENCES "users"("id") ON DELETE set null,
	"actor_email" text DEFAULT '' NOT NULL,
	"action" text NOT NULL,
	"target" text DEFAULT '' NOT NULL,
	"ip" text DEFAULT '' NOT NULL,
	"user_agent" text DEFAULT '' NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "audit_log_account_idx" ON "audit_log" ("account_id", "id");
CREATE INDEX IF NOT EXISTS "audit_log_account_action_idx" ON "audit_log" ("account_id", "action", "id");

-- Single-use links and challenges sent to one user: password reset (30 minutes), email
-- verification, the second step of a two-factor sign-in. Only the token's hash is kept.
CREATE TABLE IF NOT EXISTS "user_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"purpose" text NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "user_links_user_idx" ON "user_links" ("user_id", "purpose");
CREATE INDEX IF NOT EXISTS "user_links_expires_idx" ON "user_links" ("expires_at");

-- Email verification of owners: null until the link is opened. Users from before this release
-- are taken as verified (they could pay before; nothing changes for them).
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "email_verified_at" timestamp with time zone;
UPDATE "users" SET "email_verified_at" = "created_at" WHERE "email_verified_at" IS NULL;

-- Two-factor sign-in (TOTP): the secret (set during set-up, live once enabled_at is set), the
-- last time step accepted (a code works once), and ten single-use recovery codes (hashed).
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "totp_secret" text;
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "totp_enabled_at" timestamp with time zone;
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "totp_last_step" bigint;
CREATE TABLE IF NOT EXISTS "recovery_codes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone
);
CREATE INDEX IF NOT EXISTS "recovery_codes_user_idx" ON "recovery_codes" ("user_id");

-- The owner can require two-factor sign-in for the whole team; an account-wide retention of
-- messages (and their files) in months, null: kept.
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "require_two_factor" boolean DEFAULT false NOT NULL;
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "retention_months" integer;

-- Active sessions: where each was signed in from (device from the user agent, IP).
ALTER TABLE "auth_tokens" ADD COLUMN IF NOT EXISTS "ip" text DEFAULT '' NOT NULL;
ALTER TABLE "auth_tokens" ADD COLUMN IF NOT EXISTS "user_agent" text DEFAULT '' NOT NULL;
