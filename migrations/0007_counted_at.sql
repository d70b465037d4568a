-- A conversation opened by the offline form in one month and turned into a live chat in the
-- next counts in the month it became a chat, not the month it was opened (PRODUCT.md section 7).
-- counted_at replaces the counts_toward_limit flag: null while not a chat of the plan's limit.
ALTER TABLE "conversations" ADD COLUMN "counted_at" timestamp with time zone DEFAULT now();
UPDATE "conversations" SET "counted_at" = CASE WHEN "counts_toward_limit" THEN "created_at" ELSE NULL END;
ALTER TABLE "conversations" DROP COLUMN "counts_toward_limit";
CREATE INDEX IF NOT EXISTS "conversations_account_counted_idx" ON "conversations" ("account_id", "counted_at");
