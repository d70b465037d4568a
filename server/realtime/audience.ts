import type { ConversationRow } from '../presenters/conversation.js';
import { type Actor, can } from '../policies/index.js';

/**
 * Room names, and who hears about a conversation. The rule mirrors visibleConversations():
 * owners and Admin-role members see all of the account; Agents see theirs and unassigned ones.
 */
export const rooms = {
  /** Every console socket of an account (presence, account-wide closes). */
  console: (accountId: string) => `console:${accountId}`,
  /** Console users who see every conversation of the account. */
  admins: (accountId: string) => `admins:${accountId}`,
  /** Agent-role members: they hear about unassigned conversations. */
  agents: (accountId: string) => `agents:${accountId}`,
  user: (userId: number) => `user:${userId}`,
  token: (tokenHash: string) => `token:${tokenHash}`,
  visitor: (visitorId: string) => `visitor:${visitorId}`,
  /** Every widget socket of an account. */
  widgets: (accountId: string) => `widgets:${accountId}`,
};

/** The console rooms of a socket, from its actor. */
export function consoleRooms(actor: Actor): string[] {
  const list = [rooms.console(actor.accountId), rooms.user(actor.id), rooms.token(actor.tokenHash)];
  list.push(can(actor, 'conversations.readAll') ? rooms.admins(actor.accountId) : rooms.agents(actor.accountId));
  return list;
}

/** The console rooms that may see this conversation. */
export function conversationAudience(c: Pick<ConversationRow, 'accountId' | 'assigneeId'>): string[] {
  const list = [rooms.admins(c.accountId)];
  list.push(c.assigneeId === null ? rooms.agents(c.accountId) : rooms.user(c.assigneeId));
  return list;
}

/** Console rooms that may see a visitor: those of its conversation, or everyone's when it has none yet. */
export function visitorAudience(accountId: string, conversation: Pick<ConversationRow, 'accountId' | 'assigneeId'> | undefined): string[] {
  return conversation ? conversationAudience(conversation) : [rooms.admins(accountId), rooms.agents(accountId)];
}
