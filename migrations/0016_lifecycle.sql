-- Issue 16, conversation lifecycle and assignment (server/commands/conversationLifecycle.ts).
-- Additive, so the previous release keeps working during a rolling restart: it never writes
-- 'closed' and reads the new status words as plain text.

-- Status words: open | pending (snoozed until snoozed_until, or until the visitor writes) | resolved.
UPDATE "conversations" SET "status" = 'resolved' WHERE "status" = 'closed';
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "snoozed_until" timestamp with time zone;
-- A "stretch" (PRODUCT.md section 11) runs from (re)open to resolve: its start and its end.
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "opened_at" timestamp with time zone;
UPDATE "conversations" SET "opened_at" = "created_at" WHERE "opened_at" IS NULL;
ALTER TABLE "conversations" ALTER COLUMN "opened_at" SET DEFAULT now();
ALTER TABLE "conversations" ALTER COLUMN "opened_at" SET NOT NULL;
ALTER TABLE "conversations" ADD COLUMN IF NOT EXISTS "resolved_at" timestamp with time zone;

-- Account settings: the time zone ("tomorrow", business hours, stats days), auto-resolve after
-- N hours of silence (null: off), round-robin routing of new conversations (off by default)
-- and the member last routed to (the round-robin pointer).
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "time_zone" text DEFAULT 'UTC' NOT NULL;
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "auto_resolve_hours" integer;
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "round_robin" boolean DEFAULT false NOT NULL;
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "routed_user_id" integer;

-- An agent's availability (online | away) and optional cap of open chats (null: none).
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "availability" text DEFAULT 'online' NOT NULL;
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "max_open_chats" integer;
