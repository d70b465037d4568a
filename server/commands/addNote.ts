import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { messages } from '../db/schema.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { MessageRow } from '../presenters/message.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';

export interface AddNoteInput {
  visitor: VisitorRow;
  conversation: ConversationRow;
  author: { id: number; name: string };
  text: string;
  clientId?: string | undefined;
}

/**
 * Stores a private note (a message with sender_type 'note') in a conversation. Unlike
 * sendMessage it changes nothing of the conversation: not its last message (the widget and the
 * list preview never show a note), not its unread count or status (a note is no reply and
 * reopens nothing), and it causes no notification job. Pushed to the team only ('note.stored').
 * A repeated client_id returns the stored note (created: false).
 */
export async function addNote(deps: { db: Db; events: DomainEvents }, input: AddNoteInput): Promise<{ message: MessageRow; created: boolean }> {
  const { conversation, visitor, author } = input;
  const [inserted] = await deps.db
    .insert(messages)
    .values({
      accountId: conversation.accountId,
      conversationId: conversation.id,
      clientId: input.clientId ?? null,
      senderType: 'note',
      authorId: author.id,
      message: input.text,
    })
    .onConflictDoNothing({ target: [messages.conversationId, messages.clientId] })
    .returning();
  if (!inserted) {
    const [existing] = await deps.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, conversation.id), eq(messages.clientId, input.clientId ?? '')));
    if (!existing) throw new Error('note conflict without a stored message');
    return { message: existing, created: false };
  }
  await deps.events.emit('note.stored', { accountId: conversation.accountId, message: inserted, conversation, visitor, authorName: author.name });
  return { message: inserted, created: true };
}
