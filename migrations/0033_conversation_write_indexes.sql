-- Issue 15, the real-time path's cost: every chat message updates its conversation's
-- last_message_at (indexed), so the update is never HOT and writes one entry into every index of
-- the table. Two of them only repeated a prefix of another and served no query the other does not:
--   conversations_assignee_idx (assignee_id)                  = conversations_assignee_created_idx (assignee_id, created_at DESC, id DESC)
--   conversations_account_created_idx (account_id, created_at) = conversations_account_created_id_idx (account_id, created_at DESC, id DESC)
-- (a B-tree serves equality on its first columns, and ranges on the next one in either direction).
-- The foreign key's ON DELETE SET NULL, routing's open chats per agent and the dashboard's
-- conversations per period use the longer index. Removals only (the previous release works unchanged).
DROP INDEX IF EXISTS "conversations_assignee_idx";
DROP INDEX IF EXISTS "conversations_account_created_idx";
