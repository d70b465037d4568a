-- Issue 11 finding 4: upload quotas, usage per account and the cleanup of abandoned files.

-- The storage quota of each plan, in megabytes (null: no quota). Plans are data: an operator
-- may change these rows; the server reads them on every upload.
ALTER TABLE "plans" ADD COLUMN IF NOT EXISTS "storage_quota_mb" integer;
--> statement-breakpoint
UPDATE "plans" SET "storage_quota_mb" = CASE "code"
  WHEN 'starter' THEN 500
  WHEN 'professional' THEN 10240
  WHEN 'enterprise' THEN 102400
  ELSE "storage_quota_mb" END;
--> statement-breakpoint

-- One row per stored upload (its thumbnail included in bytes). Written with the usage counter
-- in one transaction, before the file itself; removed with the counter in one transaction.
CREATE TABLE IF NOT EXISTS "stored_files" (
  "id" bigserial PRIMARY KEY,
  "account_id" uuid NOT NULL REFERENCES "accounts"("id") ON DELETE CASCADE,
  "path" text NOT NULL UNIQUE,
  "bytes" bigint NOT NULL,
  -- What holds the file once checked: 'message', 'avatar' or 'assistant'; null while unchecked.
  "held_by" text,
  -- The message holding it: set null when the message (or its conversation, visitor, account)
  -- is deleted, which makes the file garbage for the next sweep.
  "message_id" bigint REFERENCES "messages"("id") ON DELETE SET NULL,
  "checked_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "stored_files_unchecked_idx" ON "stored_files" ("account_id", "created_at") WHERE "checked_at" IS NULL;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "stored_files_message_idx" ON "stored_files" ("message_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "stored_files_released_idx" ON "stored_files" ("account_id") WHERE "held_by" = 'message' AND "message_id" IS NULL;
--> statement-breakpoint

-- The bytes each account stores: one row per account, updated in the same transaction as
-- stored_files, so reading the usage never sums a tenant's files.
CREATE TABLE IF NOT EXISTS "account_storage" (
  "account_id" uuid PRIMARY KEY REFERENCES "accounts"("id") ON DELETE CASCADE,
  "bytes" bigint DEFAULT 0 NOT NULL,
  "files" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint

-- The sweep asks whether an assistant message holds a file: only the few rows with a file.
CREATE INDEX IF NOT EXISTS "ai_chat_messages_file_idx" ON "ai_chat_messages" ("account_id", "file_path") WHERE "file_path" <> '';
