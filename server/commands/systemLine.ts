import { DateTime } from 'luxon';
import type { Tx } from '../db/client.js';
import { messages } from '../db/schema.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { MessageRow } from '../presenters/message.js';

/**
 * A system line in the thread ("Ada resolved the conversation"): a message with sender_type
 * 'system', the acting member as author (null when the product acted). It does not change the
 * conversation's last message or unread count, and never reaches the visitor (policies/messages.ts).
 */
export async function insertSystemLine(tx: Tx, conversation: Pick<ConversationRow, 'id' | 'accountId'>, text: string, authorId: number | null): Promise<MessageRow> {
  const [line] = await tx
    .insert(messages)
    .values({ accountId: conversation.accountId, conversationId: conversation.id, senderType: 'system', authorId, message: text })
    .returning();
  return line!;
}

/** The texts of the lines, in one place. `who` is the acting member's name. */
export const lines = {
  resolved: (who: string) => `${who} resolved the conversation`,
  reopened: (who: string) => `${who} reopened the conversation`,
  /** The visitor wrote, or a snooze ended. */
  reopenedByItself: () => 'The conversation reopened',
  snoozedUntilReply: (who: string) => `${who} snoozed the conversation until the visitor replies`,
  snoozedUntil: (who: string, until: Date, timeZone: string) => `${who} snoozed the conversation until ${formatInZone(until, timeZone)}`,
  autoResolved: (hours: number) => `The conversation was resolved after ${hours} ${hours === 1 ? 'hour' : 'hours'} without messages`,
  assigned: (who: string, to: string) => (who === to ? `${who} took the conversation` : `${who} assigned the conversation to ${to}`),
  unassigned: (who: string, from: string | null) => (from && from !== who ? `${who} unassigned ${from}` : `${who} unassigned the conversation`),
  routed: (to: string) => `The conversation was assigned to ${to} (round robin)`,
};

/** "Tue 24 Nov 2026, 09:00 Europe/Paris": the account's clock, since every reader of the thread shares it. */
export function formatInZone(at: Date, timeZone: string): string {
  return `${DateTime.fromJSDate(at).setZone(timeZone).toFormat('ccc d LLL yyyy, HH:mm')} ${timeZone}`;
}
