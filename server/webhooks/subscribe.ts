import type { FastifyInstance } from 'fastify';
import type { WebhookEvent } from '@parley/shared';
import { presentConversation } from '../presenters/conversation.js';
import { presentMessage } from '../presenters/message.js';
import { presentVisitor } from '../presenters/visitor.js';
import { lines } from '../commands/systemLine.js';
import { enqueueWebhookEvent } from './enqueue.js';

/** The texts a resolve writes (commands/systemLine.ts), whoever or whatever resolved. */
function isResolveLine(text: string, author: string | null): boolean {
  if (author !== null && text === lines.resolved(author)) return true;
  const n = /\d+/.exec(text)?.[0];
  return n !== undefined && text === lines.autoResolved(Number(n));
}

/**
 * Turns domain events into webhook deliveries, with the same presenters as the API and the
 * sockets. Quick handlers (not background): one conversation's events are recorded in the order
 * they were emitted, which is the order they are delivered in.
 */
export function subscribeWebhooks(app: FastifyInstance): void {
  const send = (accountId: string, type: WebhookEvent, orderingKey: string, data: Record<string, unknown>) =>
    enqueueWebhookEvent({ db: app.db, jobs: app.jobs }, accountId, type, orderingKey, data);

  app.events.on('message.stored', async ({ accountId, message, conversation, visitor, authorName, conversationCreated }) => {
    const key = `conversation:${conversation.id}`;
    const conv = presentConversation(conversation, visitor);
    if (conversationCreated) await send(accountId, 'conversation.created', key, { conversation: conv, visitor: presentVisitor(visitor) });
    await send(accountId, 'message.created', key, { message: presentMessage(message, visitor.id, authorName), conversation: conv });
  });

  app.events.on('conversation.changed', async ({ accountId, conversation, visitor, previousAssigneeId, assigneeName, line, lineAuthorName }) => {
    const key = `conversation:${conversation.id}`;
    const conv = presentConversation(conversation, { ...visitor, assigneeName });
    if (conversation.assigneeId !== previousAssigneeId) {
      await send(accountId, 'conversation.assigned', key, { conversation: conv, previous_assignee_id: previousAssigneeId });
      return;
    }
    // A resolve is told by its system line (a member's or the auto-resolve's): other changes of a
    // resolved conversation (a rating's line) are not a second resolve.
    if (conversation.status === 'resolved' && line && isResolveLine(line.message, lineAuthorName)) await send(accountId, 'conversation.resolved', key, { conversation: conv });
  });

  app.events.on('rating.given', async ({ accountId, conversation, visitor, rating }) => {
    await send(accountId, 'rating.given', `conversation:${conversation.id}`, { rating, conversation: presentConversation(conversation, visitor) });
  });

  app.events.on('visitor.updated', async ({ accountId, visitor, detailsChanged }) => {
    if (!detailsChanged || (!visitor.email && !visitor.name)) return;
    await send(accountId, 'visitor.identified', `visitor:${visitor.id}`, { visitor: presentVisitor(visitor) });
  });
}
