import { type SQL, and, eq, isNull, or } from 'drizzle-orm';
import { conversations, visitors } from '../db/schema.js';
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

/**
 * The visitors an actor may see: those with no conversation yet, or whose conversation is
 * visible to them. Use with `visitors LEFT JOIN conversations ON conversations.visitor_id = visitors.id`.
 */
export function visibleVisitors(actor: Actor): SQL {
  return and(eq(visitors.accountId, actor.accountId), or(isNull(conversations.id), visibleConversations(actor))) as SQL;
}
