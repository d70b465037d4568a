import { type SQL, and, eq, isNull, or } from 'drizzle-orm';
import { conversations } from '../db/schema.js';
import { can, type Actor } from './index.js';

/**
 * The conversations an actor may see: always their account's; an Agent only those assigned to
 * them or to nobody. Every conversation, message and visitor query goes through this.
 */
export function visibleConversations(actor: Actor): SQL {
  const inAccount = eq(conversations.accountId, actor.accountId);
  if (can(actor, 'conversations.readAll')) return inAccount;
  return and(inAccount, or(eq(conversations.assigneeId, actor.id), isNull(conversations.assigneeId))) as SQL;
}
