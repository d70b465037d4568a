import { type SQL, and, eq, isNull, or } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { notFound } from '../errors.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { VisitorRow } from '../presenters/visitor.js';
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

/** Any uuid shape; PostgreSQL throws on a malformed one, so ids are checked before querying. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The visitor (and conversation, if any) when it exists in the actor's account and is visible to them; else 404. */
export async function findVisibleVisitor(
  db: Db,
  actor: Actor,
  visitorId: string,
): Promise<{ visitor: VisitorRow; conversation: ConversationRow | null }> {
  if (!UUID.test(visitorId)) throw notFound('Visitor not found');
  const [row] = await db
    .select({ visitor: visitors, conversation: conversations })
    .from(visitors)
    .leftJoin(conversations, eq(conversations.visitorId, visitors.id))
    .where(and(eq(visitors.id, visitorId), visibleVisitors(actor)))
    .limit(1);
  if (!row) throw notFound('Visitor not found');
  return row;
}

