-- Issue 15, the real-time path's cost: what PostgreSQL does per chat message beyond writing it.
--
-- 1. The conversation counts (0017, parley_conversation_counts) change only when a conversation
-- is created, deleted, or its account, assignee or status changes. The trigger fired on every
-- UPDATE of the table, a chat message's included (last message, unread count: one PL/pgSQL call
-- per message that found nothing to count). Now an UPDATE fires it only when the statement sets
-- one of those columns (the function still returns at once when their values did not change).
DROP TRIGGER IF EXISTS conversations_counts ON "conversations";
DROP TRIGGER IF EXISTS conversations_counts_rows ON "conversations";
DROP TRIGGER IF EXISTS conversations_counts_moves ON "conversations";
CREATE TRIGGER conversations_counts_rows AFTER INSERT OR DELETE ON "conversations"
  FOR EACH ROW EXECUTE FUNCTION parley_conversation_counts();
CREATE TRIGGER conversations_counts_moves AFTER UPDATE OF "account_id", "assignee_id", "status" ON "conversations"
  FOR EACH ROW EXECUTE FUNCTION parley_conversation_counts();

-- 2. messages.account_id repeats its conversation's account (written from it, never changed).
-- Its foreign key checked the account on every message insert (a lookup and a row lock on the
-- account's one row, shared by all its chats). The message's conversation_id foreign key
-- already holds the message to an existing conversation, and so to its account; deleting an
-- account deletes its conversations, and they their messages (ON DELETE CASCADE both), so no
-- message outlives its account. Removals only (the previous release works unchanged).
ALTER TABLE "messages" DROP CONSTRAINT IF EXISTS "messages_account_id_accounts_id_fk";
