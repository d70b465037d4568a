-- Dashboard figures (GET /api/vms/stats) read messages and visitors by account and time.
CREATE INDEX IF NOT EXISTS "messages_account_created_idx" ON "messages" ("account_id", "created_at");
CREATE INDEX IF NOT EXISTS "visitors_account_seen_idx" ON "visitors" ("account_id", "last_seen_at");
CREATE INDEX IF NOT EXISTS "conversations_account_created_idx" ON "conversations" ("account_id", "created_at");
