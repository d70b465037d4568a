-- Issue 16 "Never miss a chat": each user's console alerts (desktop notification, sound) for a
-- new chat or message while the console tab is hidden. Added with defaults (on), so the
-- previous release keeps working during a rolling restart.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "alert_desktop" boolean NOT NULL DEFAULT true;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "alert_sound" boolean NOT NULL DEFAULT true;
