import type { ConversationDto, LabelDto } from '@parley/shared';
import type { conversations } from '../db/schema.js';

export type ConversationRow = typeof conversations.$inferSelect;

/**
 * A conversation as the message center lists it; the visitor's name and email come from the
 * visitor. `assigneeName` is given by the list (a join); pushes leave the field out. `labels`
 * likewise: the list and label changes give them, other pushes leave them out.
 */
export function presentConversation(
  c: ConversationRow,
  visitor: { name: string; email: string; assigneeName?: string | null },
  labels?: LabelDto[],
): ConversationDto {
  return {
    id: c.id,
    visitor_id: c.visitorId,
    visitor_name: visitor.name,
    visitor_email: visitor.email,
    last_message: c.lastMessage,
    last_message_at: c.lastMessageAt ? c.lastMessageAt.toISOString() : null,
    status: c.status,
    snoozed_until: c.snoozedUntil ? c.snoozedUntil.toISOString() : null,
    opened_at: c.openedAt.toISOString(),
    resolved_at: c.resolvedAt ? c.resolvedAt.toISOString() : null,
    assignee_id: c.assigneeId,
    ...(visitor.assigneeName !== undefined ? { assignee_name: c.assigneeId === null ? null : visitor.assigneeName } : {}),
    unread_count: c.unreadCount,
    created_at: c.createdAt.toISOString(),
    waiting_since: c.waitingSince ? c.waitingSince.toISOString() : null,
    visitor_seen_id: c.visitorSeenId ?? null,
    ...(labels ? { labels } : {}),
  };
}
