import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { EVENTS } from '@parley/shared';
import { conversations, visitors } from '../db/schema.js';
import { presentConversation } from '../presenters/conversation.js';
import { presentMessage } from '../presenters/message.js';
import { isVisibleToVisitor } from '../policies/messages.js';
import { forgetPresence, isAgentOnline } from '../services/presence.js';
import { conversationAudience, rooms, visitorAudience } from './audience.js';

/**
 * The one place that turns committed changes (domain events) into socket pushes and decides
 * their audience. Payloads use the same presenters as HTTP.
 */
export function subscribePush(app: FastifyInstance): void {
  const io = app.io;
  // A write finishing while the node shuts down must not publish on closed Redis clients.
  const on: typeof app.events.on = (name, handler) =>
    app.events.on(name, (payload) => (app.realtimeClosing() ? undefined : handler(payload)));

  on('message.stored', ({ message, conversation, visitor, authorName, conversationCreated }) => {
    const messageDto = presentMessage(message, visitor.id, authorName);
    const conversationDto = presentConversation(conversation, visitor);
    const audience = conversationAudience(conversation);
    // Consoles get the conversation with the message (one publish per message); a new
    // conversation is announced on its own for the screens that only list conversations.
    io.to(audience).emit(EVENTS.messageCreated, { message: messageDto, conversation: conversationDto });
    if (conversationCreated) io.to(audience).emit(EVENTS.conversationCreated, { conversation: conversationDto });
    if (isVisibleToVisitor(message)) io.to(rooms.visitor(visitor.id)).emit(EVENTS.messageCreated, { message: messageDto });
    app.metrics?.pushed(message.createdAt);
  });

  // A private note: the consoles that may see the conversation, never the visitor's room. No
  // conversation rides along: a note changes nothing of it (last message, unread, status).
  on('note.stored', ({ message, conversation, visitor, authorName }) => {
    io.to(conversationAudience(conversation)).emit(EVENTS.messageCreated, { message: presentMessage(message, visitor.id, authorName) });
  });

  on('conversation.labeled', ({ conversation, visitor, labels }) => {
    io.to(conversationAudience(conversation)).emit(EVENTS.conversationUpdated, { conversation: presentConversation(conversation, visitor, labels) });
  });

  on('visitor.updated', async ({ accountId, visitor, pageChanged, detailsChanged }) => {
    if (!pageChanged && !detailsChanged) return;
    const [conversation] = await app.db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
    if (pageChanged) io.to(visitorAudience(accountId, conversation)).emit(EVENTS.visitorPage, { visitor_id: visitor.id, page_url: visitor.currentPage });
    // A new name or email: the list and the side panel of every console that sees it.
    if (detailsChanged && conversation) io.to(conversationAudience(conversation)).emit(EVENTS.conversationUpdated, { conversation: presentConversation(conversation, visitor) });
  });

  on('conversation.read', ({ conversation, visitor, lastId }) => {
    io.to(rooms.visitor(visitor.id)).emit(EVENTS.messageSeen, { last_id: lastId, by: 'agent' });
    io.to(conversationAudience(conversation)).emit(EVENTS.conversationUpdated, { conversation: presentConversation(conversation, visitor) });
  });

  on('conversations.assigned', async ({ conversationIds }) => {
    if (conversationIds.length === 0) return;
    const rows = await app.db
      .select({ conversation: conversations, visitor: visitors })
      .from(conversations)
      .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
      .where(inArray(conversations.id, conversationIds));
    for (const { conversation, visitor } of rows) {
      io.to(conversationAudience(conversation)).emit(EVENTS.conversationUpdated, { conversation: presentConversation(conversation, visitor) });
    }
  });

  on('conversation.changed', ({ conversation, visitor, previousAssigneeId, assigneeName, line, lineAuthorName }) => {
    const conversationDto = presentConversation(conversation, { ...visitor, assigneeName });
    const now = conversationAudience(conversation);
    // Those who saw it before a reassignment learn it left them; those who see it now get it.
    const before = previousAssigneeId === conversation.assigneeId ? [] : conversationAudience({ accountId: conversation.accountId, assigneeId: previousAssigneeId });
    // System lines are console-only: never to the visitor's room.
    if (line) io.to(now).emit(EVENTS.messageCreated, { message: presentMessage(line, visitor.id, lineAuthorName), conversation: conversationDto });
    io.to([...new Set([...now, ...before])]).emit(EVENTS.conversationUpdated, { conversation: conversationDto });
  });

  on('agents.availabilityChanged', async ({ accountId }) => {
    forgetPresence(app.db, accountId);
    io.to(rooms.widgets(accountId)).emit(EVENTS.agentPresence, { online: await isAgentOnline(app.db, accountId) });
  });

  on('user.statusChanged', ({ userId }) => {
    io.in(rooms.user(userId)).disconnectSockets(true);
  });

  on('sessions.revoked', ({ tokenHash, userId, exceptTokenHash, accountId }) => {
    let target = accountId ? io.in([rooms.console(accountId), rooms.widgets(accountId)]) : tokenHash ? io.in(rooms.token(tokenHash)) : userId !== undefined ? io.in(rooms.user(userId)) : undefined;
    if (!target) return;
    if (exceptTokenHash) target = target.except(rooms.token(exceptTokenHash));
    target.disconnectSockets(true);
  });
}
