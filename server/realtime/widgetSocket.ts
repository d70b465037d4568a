import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'socket.io';
import { z } from 'zod';
import { EVENTS, MAX_URL, MESSAGE_REQUIRED, widgetMessageSchema } from '@parley/shared';
import { assertVisitorCanChat } from '../billing/limits.js';
import { sendMessage } from '../commands/sendMessage.js';
import { updateVisitor } from '../commands/updateVisitor.js';
import { conversations, messages } from '../db/schema.js';
import { HttpError, parseOrThrow } from '../errors.js';
import { presentMessage } from '../presenters/message.js';
import { isAgentOnline } from '../services/presence.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { visitorAudience } from './audience.js';
import type { SocketData } from './auth.js';
import { guardSocket } from './guard.js';
import { visitorSockets } from './visitorPresence.js';

const typingSchema = z.object({ typing: z.boolean() });
const seenSchema = z.object({ last_id: z.number().int().min(0) });
const pageSchema = z.object({ page_url: z.string().trim().min(1).max(MAX_URL) });
const socketSendSchema = widgetMessageSchema.extend({
  client_id: z.string({ error: 'client_id is required' }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'client_id is invalid' }),
});

/** The agent presence a connecting widget is told, per node and account: kept 2 s, yes or no (issue 15: a reconnect storm asks once per account). */
const PRESENCE_ON_CONNECT_MS = 2000;
const presenceOnConnect = new WeakMap<FastifyInstance, TtlCache<string, boolean>>();

/** A console socket came or went on this node, or availability changed: connecting widgets ask again. */
export function forgetPresenceOnConnect(app: FastifyInstance, accountId: string): void {
  presenceOnConnect.get(app)?.forget(accountId);
}

function agentOnlineForConnect(app: FastifyInstance, accountId: string): Promise<boolean> {
  let cache = presenceOnConnect.get(app);
  if (!cache) presenceOnConnect.set(app, (cache = ttlCache(PRESENCE_ON_CONNECT_MS)));
  // A stale "no" costs nothing: the widget decides "offline" from its settings call and only acts on a yes.
  return cache.get(accountId, (id) => isAgentOnline(app.db, id));
}

/**
 * A widget (visitor) socket: it only ever reaches its own conversation. Presence: the visitor is
 * online while any of its sockets is connected, on any node (a counter per visitor:
 * visitorPresence.ts). The conversation's audience is kept beside the visitor's sockets on this
 * node (read with the visitor on connect, updated by the pushes that change it): typing, seen,
 * page and presence events read nothing.
 */
export function onWidgetSocket(app: FastifyInstance, socket: Socket): void {
  const data = socket.data as Extract<SocketData, { kind: 'widget' }>;
  const visitorId = data.visitor.id;
  const { ip, visitorKey } = data.slot;
  // Events count against the visitor (its token's hash, as its REST calls) and its IP over all
  // their sockets and nodes: both at once, mostly from this node's leases (no Redis round trip).
  const on = guardSocket(socket, app.log, () => app.widgetLimits.visitorCall(ip, visitorKey));
  let chatting = false;
  const registry = visitorSockets(app.io);

  const audience = async () => {
    const kept = registry.audience(visitorId);
    if (kept) return kept;
    // Not known here (Redis came back after an outage): read it once more.
    const [conversation] = await app.db
      .select({ accountId: conversations.accountId, assigneeId: conversations.assigneeId })
      .from(conversations)
      .where(eq(conversations.visitorId, visitorId));
    registry.setConversation(visitorId, conversation ?? null);
    return visitorAudience(data.accountId, conversation);
  };

  const joined = registry.connected(visitorId, data.accountId, data.conversation);
  void (async () => {
    app.io.to(await audience()).emit(EVENTS.visitorOnline, { visitor_id: visitorId, page_url: data.visitor.currentPage });
    socket.emit(EVENTS.agentPresence, { online: await agentOnlineForConnect(app, data.accountId) });
  })().catch((err: unknown) => app.log.warn({ err }, 'visitor online push failed'));

  socket.on('disconnect', () => {
    if (app.realtimeClosing()) return;
    void (async () => {
      const rooms = registry.audience(visitorId);
      await joined; // its presence was written before it is removed
      if (await registry.disconnected(visitorId)) return;
      app.io.to(rooms ?? (await audience())).emit(EVENTS.visitorOffline, { visitor_id: visitorId });
    })().catch((err: unknown) => app.log.warn({ err }, 'visitor offline push failed'));
  });

  on(EVENTS.messageSend, async (payload, ack) => {
    const input = parseOrThrow(socketSendSchema, payload);
    if (!input.message) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
    // Once this socket's chat is under way, the plan's new-chat limit no longer applies to it.
    if (!chatting) await assertVisitorCanChat(app, data.visitor, new Date());
    const result = await sendMessage(app, {
      visitor: data.visitor,
      senderType: 'visitor',
      author: null,
      text: input.message,
      clientId: input.client_id,
    });
    chatting = true;
    data.visitor = result.visitor;
    ack({ ok: true, data: presentMessage(result.message, visitorId, result.authorName) });
  });

  on(EVENTS.typing, async (payload) => {
    const input = parseOrThrow(typingSchema, payload);
    app.io.to(await audience()).emit(EVENTS.typing, { visitor_id: visitorId, typing: input.typing, from: 'visitor' });
  });

  on(EVENTS.messageSeen, async (payload, ack) => {
    const input = parseOrThrow(seenSchema, payload);
    // Kept for the console's seen ticks (0022): only forward, never past the conversation's last message.
    await app.db
      .update(conversations)
      .set({ visitorSeenId: sql`least(${input.last_id}, (select max(${messages.id}) from ${messages} where ${messages.conversationId} = ${conversations.id}))` })
      .where(and(eq(conversations.visitorId, visitorId), sql`coalesce(${conversations.visitorSeenId}, 0) < ${input.last_id}`));
    app.io.to(await audience()).emit(EVENTS.messageSeen, { visitor_id: visitorId, last_id: input.last_id, by: 'visitor' });
    ack({ ok: true });
  });

  on(EVENTS.visitorPage, async (payload, ack) => {
    const input = parseOrThrow(pageSchema, payload);
    const updated = await updateVisitor(app, data.visitor, { pageUrl: input.page_url });
    if (updated) data.visitor = updated;
    ack({ ok: true });
  });
}
