import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'socket.io';
import { z } from 'zod';
import { EVENTS, MAX_URL, MESSAGE_REQUIRED, widgetMessageSchema } from '@parley/shared';
import { assertVisitorCanChat } from '../billing/limits.js';
import { sendMessage } from '../commands/sendMessage.js';
import { updateVisitor } from '../commands/updateVisitor.js';
import { conversations, messages, visitors } from '../db/schema.js';
import { HttpError, parseOrThrow, unauthenticated } from '../errors.js';
import { presentMessage } from '../presenters/message.js';
import type { VisitorRow } from '../presenters/visitor.js';
import { isAgentOnline } from '../services/presence.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { widgetWrite } from '../services/widgetWrites.js';
import { rooms, visitorAudience } from './audience.js';
import { type SocketData, widgetSlot } from './auth.js';
import { type Ack, type SocketListener, guardedListener } from './guard.js';
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

type WidgetData = Extract<SocketData, { kind: 'widget' }>;
const dataOf = (socket: Socket) => socket.data as WidgetData;

/** The console rooms that hear about the socket's visitor: kept by the node's registry, read once more when it does not know. */
async function audienceOf(app: FastifyInstance, data: WidgetData): Promise<string[]> {
  const registry = visitorSockets(app.io);
  const kept = registry.audience(data.visitorId);
  if (kept) return kept;
  // Not known here (Redis came back after an outage): read it once more.
  const [conversation] = await app.db
    .select({ accountId: conversations.accountId, assigneeId: conversations.assigneeId })
    .from(conversations)
    .where(eq(conversations.visitorId, data.visitorId));
  registry.setConversation(data.visitorId, conversation ?? null);
  return visitorAudience(data.accountId, conversation);
}

/**
 * The visitor's row for an event that needs it: an idle socket does not keep it (issue 15), so
 * its first such event reads it (by primary key), and the socket keeps it from then on.
 */
async function visitorOf(app: FastifyInstance, data: WidgetData): Promise<VisitorRow> {
  if (data.visitor) return data.visitor;
  const [row] = await app.db.select().from(visitors).where(eq(visitors.id, data.visitorId));
  if (!row) throw unauthenticated(); // erased since it connected
  data.visitor ??= row;
  return data.visitor;
}

/**
 * A widget socket's listeners, one set per app shared by all its widget sockets: each reads its
 * socket (Socket.IO's `this`) and the socket's data, so an idle socket keeps no closure, context
 * or promise of its own (issue 15: memory per idle socket).
 */
interface WidgetListeners {
  disconnect: (this: Socket) => void;
  events: [string, SocketListener][];
}
const listenersOf = new WeakMap<FastifyInstance, WidgetListeners>();

function widgetListeners(app: FastifyInstance): WidgetListeners {
  let made = listenersOf.get(app);
  if (made) return made;
  // Events count against the visitor (its token's hash, as its REST calls) and its IP over all
  // their sockets and nodes: both at once, mostly from this node's leases (no Redis round trip).
  const limit = (socket: Socket) => {
    const data = dataOf(socket);
    return app.widgetLimits.visitorCall(data.ip, data.visitorKey);
  };
  const on = (event: string, handler: (data: WidgetData, payload: unknown, ack: Ack, socket: Socket) => Promise<void>): [string, SocketListener] => [
    event,
    guardedListener(event, (socket, payload, ack) => handler(dataOf(socket), payload, ack, socket), limit, app.log),
  ];

  const events: [string, SocketListener][] = [
    on(EVENTS.messageSend, async (data, payload, ack, socket) => {
      const input = parseOrThrow(socketSendSchema, payload);
      if (!input.message) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
      const visitor = await visitorOf(app, data);
      // In the account's turn on this node (services/widgetWrites.ts); a socket whose chat is under way is not held.
      const result = await widgetWrite(app, { accountId: data.accountId, visitorId: data.visitorId, startsChat: true, ...(data.chatting ? { chatting: true } : {}) }, async () => {
        // Once this socket's chat is under way, the plan's new-chat limit no longer applies to it.
        const seen = data.chatting ? undefined : await assertVisitorCanChat(app, visitor, new Date());
        return sendMessage(app, {
          visitor,
          senderType: 'visitor',
          author: null,
          text: input.message,
          clientId: input.client_id,
          newConversation: seen ? !seen.hasConversation : undefined,
          // Its ack below carries the message: the visitor's push leaves this socket out.
          originSocketId: socket.id,
        });
      });
      data.chatting = true;
      data.visitor = result.visitor;
      ack({ ok: true, data: presentMessage(result.message, data.visitorId, result.authorName) });
    }),

    on(EVENTS.typing, async (data, payload) => {
      const input = parseOrThrow(typingSchema, payload);
      app.io.to(await audienceOf(app, data)).emit(EVENTS.typing, { visitor_id: data.visitorId, typing: input.typing, from: 'visitor' });
    }),

    on(EVENTS.messageSeen, async (data, payload, ack) => {
      const input = parseOrThrow(seenSchema, payload);
      // Kept for the console's seen ticks (0022): only forward, never past the conversation's last message.
      await app.db
        .update(conversations)
        .set({ visitorSeenId: sql`least(${input.last_id}, (select max(${messages.id}) from ${messages} where ${messages.conversationId} = ${conversations.id}))` })
        .where(and(eq(conversations.visitorId, data.visitorId), sql`coalesce(${conversations.visitorSeenId}, 0) < ${input.last_id}`));
      app.io.to(await audienceOf(app, data)).emit(EVENTS.messageSeen, { visitor_id: data.visitorId, last_id: input.last_id, by: 'visitor' });
      ack({ ok: true });
    }),

    on(EVENTS.visitorPage, async (data, payload, ack) => {
      const input = parseOrThrow(pageSchema, payload);
      const updated = await updateVisitor(app, await visitorOf(app, data), { pageUrl: input.page_url });
      if (updated) data.visitor = updated;
      ack({ ok: true });
    }),
  ];

  function disconnect(this: Socket): void {
    const data = dataOf(this);
    // Its slot of the socket caps is given back first, even while the node closes.
    app.widgetLimits.sockets.release(widgetSlot(this)).catch(() => {}); // never rejects; a lost release expires with the slot
    if (app.realtimeClosing()) return;
    const registry = visitorSockets(app.io);
    void (async () => {
      const rooms = registry.audience(data.visitorId);
      if (await registry.disconnected(data.visitorId)) return;
      app.io.to(rooms ?? (await audienceOf(app, data))).emit(EVENTS.visitorOffline, { visitor_id: data.visitorId });
    })().catch((err: unknown) => app.log.warn({ err }, 'visitor offline push failed'));
  }

  made = { disconnect, events };
  listenersOf.set(app, made);
  return made;
}

/**
 * A widget (visitor) socket: it only ever reaches its own conversation. Presence: the visitor is
 * online while any of its sockets is connected, on any node (a counter per visitor:
 * visitorPresence.ts). The conversation's audience is kept beside the visitor's sockets on this
 * node (read with the visitor on connect, updated by the pushes that change it): typing, seen,
 * page and presence events read nothing.
 *
 * What an idle widget socket keeps beyond Socket.IO's own (issue 15): its data (ids, its IP and
 * token hash, two flags), its two rooms, and the shared listeners; not the visitor's row, which
 * its first event that needs it reads.
 */
export function onWidgetSocket(app: FastifyInstance, socket: Socket): void {
  const data = dataOf(socket);
  const { visitorId } = data;
  const page = data.visitor?.currentPage ?? null;
  const registry = visitorSockets(app.io);
  // Its account's strings as this node keeps them: one copy per account, not one per socket.
  const account = registry.connected(visitorId, data.accountId, data.conversation ?? null);
  data.accountId = account.id;
  data.conversation = undefined;
  data.visitor = undefined;
  // Joined here, after the registry, so that the widgets room is the account's one string.
  void socket.join([rooms.visitor(visitorId), account.widgets]);
  const { disconnect, events } = widgetListeners(app);
  socket.on('disconnect', disconnect);
  for (const [event, listener] of events) socket.on(event, listener);

  void (async () => {
    app.io.to(await audienceOf(app, data)).emit(EVENTS.visitorOnline, { visitor_id: visitorId, page_url: page });
    socket.emit(EVENTS.agentPresence, { online: await agentOnlineForConnect(app, data.accountId) });
  })().catch((err: unknown) => app.log.warn({ err }, 'visitor online push failed'));
}
