import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { conversations } from '../db/schema.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';

/** An agent opened or read a conversation: unread goes to 0, and the visitor is told it was seen. */
export async function markConversationRead(
  deps: { db: Db; events: DomainEvents },
  conversation: ConversationRow,
  visitor: VisitorRow,
  lastId: number,
): Promise<void> {
  const [updated] = await deps.db
    .update(conversations)
    .set({ unreadCount: 0 })
    .where(eq(conversations.id, conversation.id))
    .returning();
  await deps.events.emit('conversation.read', { accountId: conversation.accountId, conversation: updated ?? conversation, visitor, lastId });
}
