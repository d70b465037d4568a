import { asc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { EVENTS } from '@parley/shared';
import type { Tx } from '../db/client.js';
import { aiAnswers, aiHandovers, aiPassages, conversations, messages, users, visitors } from '../db/schema.js';
import { NODE_ID, PushRelay } from '../outbox/pushRelay.js';
import { presentConversation } from '../presenters/conversation.js';
import { aiColumns, aiOf, presentMessage } from '../presenters/message.js';
import { isVisibleToVisitor } from '../policies/messages.js';
import { forgetPresence, isAgentOnline } from '../services/presence.js';
import type { DomainEventMap } from '../services/domainEvents.js';
import { conversationAudience, rooms, visitorAudience } from './audience.js';
import { type Delivery, fanout } from './fanout.js';
import { visitorSockets } from './visitorPresence.js';
import { forgetPresenceOnConnect } from './widgetSocket.js';

type StoredMessage = Omit<DomainEventMap['message.stored'], 'accountId'>;

/** What decides a conversation's audience (kept beside the visitor's sockets on every node). */
const audienceOf = (c: { accountId: string; assigneeId: number | null }) => ({ accountId: c.accountId, assigneeId: c.assigneeId });

/** A stored chat message to its audience: the consoles that may see it, and the visitor's room; one publish. */
function pushStoredMessage(app: FastifyInstance, { message, conversation, visitor, authorName, conversationCreated, ai, originSocketId }: StoredMessage, clustered: boolean): void {
  const messageDto = presentMessage(message, visitor.id, authorName, ai);
  const conversationDto = presentConversation(conversation, visitor);
  const audience = conversationAudience(conversation);
  // Consoles get the conversation with the message; a new conversation is announced on its own
  // for the screens that only list conversations; the visitor gets the message alone.
  const deliveries: Delivery[] = [{ rooms: audience, event: EVENTS.messageCreated, payload: { message: messageDto, conversation: conversationDto } }];
  if (conversationCreated) deliveries.push({ rooms: audience, event: EVENTS.conversationCreated, payload: { conversation: conversationDto } });
  // The widget socket that sent it has it from its ack (one frame less per message); the visitor's other tabs get it here.
  if (isVisibleToVisitor(message)) {
    deliveries.push({ rooms: [rooms.visitor(visitor.id)], ...(originSocketId ? { except: [originSocketId] } : {}), event: EVENTS.messageCreated, payload: { message: messageDto } });
  }
  fanout(app, { deliveries, visitors: [{ id: visitor.id, conversation: audienceOf(conversation) }] }, clustered);
  app.metrics?.pushed(message.createdAt);
}

/** The push relay's side: messages another node stored and never pushed, loaded and pushed now (with the conversation as it is now). */
async function pushOwed(app: FastifyInstance, tx: Tx, messageIds: number[], clustered: boolean): Promise<number> {
  if (app.realtimeClosing()) throw new Error('closing: another node pushes them');
  const rows = await tx
    .select({ message: messages, conversation: conversations, visitor: visitors, authorName: users.name, ...aiColumns })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .innerJoin(visitors, eq(visitors.id, conversations.visitorId))
    .leftJoin(users, eq(users.id, messages.authorId))
    .leftJoin(aiAnswers, eq(aiAnswers.messageId, messages.id))
    .leftJoin(aiPassages, eq(aiPassages.id, aiAnswers.passageId))
    .leftJoin(aiHandovers, eq(aiHandovers.messageId, messages.id))
    .where(inArray(messages.id, messageIds))
    .orderBy(asc(messages.id));
  for (const row of rows) pushStoredMessage(app, { ...row, conversationCreated: false, ai: aiOf(row) }, clustered);
  return rows.length;
}

const NODE_NAME = /(?:^| )name=parley-node:(\S+)/;

/**
 * The nodes alive now: those whose named Redis connection (app.ts) is open. A killed process's
 * connections are closed by its kernel at once. Without Redis this node is alone.
 */
export async function liveNodes(app: FastifyInstance): Promise<Set<string> | undefined> {
  if (!app.redis) return new Set([NODE_ID]);
  if (!app.redis.isReady) return undefined;
  try {
    const list = String(await app.redis.sendCommand(['CLIENT', 'LIST', 'TYPE', 'normal']));
    const live = new Set<string>();
    for (const line of list.split('\n')) {
      const m = NODE_NAME.exec(line);
      if (m) live.add(m[1]!);
    }
    return live;
  } catch {
    return undefined;
  }
}

/** Test hook (failover tests only): the node dies right after storing a message with this text, before pushing it. */
const DIE_BEFORE_PUSH = process.env.PARLEY_TEST_DIE_BEFORE_PUSH;

/**
 * The one place that turns committed changes (domain events) into socket pushes and decides
 * their audience. Payloads use the same presenters as HTTP.
 */
export function subscribePush(app: FastifyInstance): void {
  const io = app.io;
  // With Redis, other nodes hear each fan-out (realtime/fanout.ts); alone, local delivery is all.
  const clustered = Boolean(app.config.redisUrl);
  // A write finishing while the node shuts down must not publish on closed Redis clients.
  const on: typeof app.events.on = (name, handler) =>
    app.events.on(name, (payload) => (app.realtimeClosing() ? undefined : handler(payload)));

  // Stored messages owe their push (push_outbox): pushed here, then the row goes; a node that
  // dies in between leaves the row, and any live node pushes it within a second.
  const relay = new PushRelay(
    app.db,
    app.log,
    (tx, ids) => pushOwed(app, tx, ids, clustered),
    () => liveNodes(app),
    undefined,
    (n) => app.metrics?.relayedPushes(n),
  );
  relay.start();
  app.addHook('preClose', () => relay.close());
  on('message.stored', (stored) => {
    if (DIE_BEFORE_PUSH && stored.message.message === DIE_BEFORE_PUSH) process.kill(process.pid, 'SIGKILL');
    pushStoredMessage(app, stored, clustered);
    relay.pushed(stored.message.id);
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
    // A page change alone (the widget's socket, the common case): the audience kept beside the visitor's sockets here.
    const kept = detailsChanged ? undefined : visitorSockets(io).audience(visitor.id);
    if (kept) {
      io.to(kept).emit(EVENTS.visitorPage, { visitor_id: visitor.id, page_url: visitor.currentPage });
      return;
    }
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
    if (rows.length === 0) return;
    // One fan-out: the consoles, and every node's widget sockets of these visitors (their audience changed).
    fanout(
      app,
      {
        deliveries: rows.map(({ conversation, visitor }) => ({
          rooms: conversationAudience(conversation),
          event: EVENTS.conversationUpdated,
          payload: { conversation: presentConversation(conversation, visitor) },
        })),
        visitors: rows.map(({ conversation, visitor }) => ({ id: visitor.id, conversation: audienceOf(conversation) })),
      },
      clustered,
    );
  });

  on('conversation.changed', ({ conversation, visitor, previousAssigneeId, assigneeName, line, lineAuthorName }) => {
    const conversationDto = presentConversation(conversation, { ...visitor, assigneeName });
    const now = conversationAudience(conversation);
    // Those who saw it before a reassignment learn it left them; those who see it now get it.
    const before = previousAssigneeId === conversation.assigneeId ? [] : conversationAudience({ accountId: conversation.accountId, assigneeId: previousAssigneeId });
    // System lines are console-only: never to the visitor's room.
    const deliveries: Delivery[] = [];
    if (line) deliveries.push({ rooms: now, event: EVENTS.messageCreated, payload: { message: presentMessage(line, visitor.id, lineAuthorName), conversation: conversationDto } });
    deliveries.push({ rooms: [...new Set([...now, ...before])], event: EVENTS.conversationUpdated, payload: { conversation: conversationDto } });
    // The visitor's sockets (any node) now tell their typing and presence to the new audience.
    fanout(app, { deliveries, visitors: [{ id: visitor.id, conversation: audienceOf(conversation) }] }, clustered);
  });

  on('agents.availabilityChanged', async ({ accountId }) => {
    forgetPresence(app.db, accountId);
    forgetPresenceOnConnect(app, accountId);
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
