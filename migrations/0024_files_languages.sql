-- Issue 13 "The visitor's side": attachments beyond images, and the widget's languages.
-- Added with defaults, so the previous release keeps working during a rolling restart.

-- A message's attachment (file_path stays its URL under /storage/): the name the sender gave it
-- (cleaned), its type as sniffed from the bytes, and its size in bytes ('' / '' / 0: no file, or
-- an image stored before these columns).
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "file_name" text NOT NULL DEFAULT '';
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "file_type" text NOT NULL DEFAULT '';
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "file_size" integer NOT NULL DEFAULT 0;
--> statement-breakpoint

-- The widget's language: '' follows the visitor's browser, otherwise one of the languages the
-- widget ships (e.g. 'ru'). Greetings per language: {"ru": {"initial_greeting": "...",
-- "follow_up_greeting": "..."}}; the browser's (or forced) language picks, the default otherwise.
ALTER TABLE "widget_settings" ADD COLUMN IF NOT EXISTS "language" text NOT NULL DEFAULT '';
--> statement-breakpoint
ALTER TABLE "widget_settings" ADD COLUMN IF NOT EXISTS "greetings_by_language" jsonb NOT NULL DEFAULT '{}'::jsonb;
