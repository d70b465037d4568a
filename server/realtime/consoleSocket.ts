import type { FastifyInstance } from 'fastify';
import type { Socket } from 'socket.io';
import { z } from 'zod';
import { EVENTS, MESSAGE_REQUIRED, consoleMessageSchema } from '@parley/shared';
import { markConversationRead } from '../commands/markConversationRead.js';
import { sendMessage } from '../commands/sendMessage.js';
import { HttpError, parseOrThrow } from '../errors.js';
import { findVisibleVisitor } from '../policies/conversations.js';
import { presentMessage } from '../presenters/message.js';
import { forgetPresence, isAgentOnline } from '../services/presence.js';
import { rooms } from './audience.js';
import type { SocketData } from './auth.js';
import { guardSocket } from './guard.js';
import { forgetPresenceOnConnect } from './widgetSocket.js';

const typingSchema = z.object({ visitor_id: z.string().max(64), typing: z.boolean() });
const seenSchema = z.object({ visitor_id: z.string().max(64), last_id: z.number().int().min(0) });
const socketSendSchema = consoleMessageSchema.extend({
  client_id: z.string({ error: 'client_id is required' }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'client_id is invalid' }),
});

/** A console (agent) socket: sends, typing and read receipts, each checked like its HTTP twin. */
export function onConsoleSocket(app: FastifyInstance, socket: Socket): void {
  const { actor } = socket.data as Extract<SocketData, { kind: 'console' }>;
  const on = guardSocket(socket, app.log);

  // Widgets of the account learn that an agent is here (and, on the last disconnect, gone).
  forgetPresence(app.db, actor.accountId);
  forgetPresenceOnConnect(app, actor.accountId);
  // Only a member who is available makes the team online (an 'away' member changes nothing).
  void isAgentOnline(app.db, actor.accountId).then(
    (online) => {
      if (online) app.io.to(rooms.widgets(actor.accountId)).emit(EVENTS.agentPresence, { online: true });
    },
    (err: unknown) => app.log.warn({ err }, 'agent presence push failed'),
  );
  socket.on('disconnect', () => {
    forgetPresence(app.db, actor.accountId);
    forgetPresenceOnConnect(app, actor.accountId);
    if (app.realtimeClosing()) return;
    void isAgentOnline(app.db, actor.accountId).then(
      (online) => {
        if (!online) app.io.to(rooms.widgets(actor.accountId)).emit(EVENTS.agentPresence, { online: false });
      },
      (err: unknown) => app.log.warn({ err }, 'agent presence push failed'),
    );
  });

  on(EVENTS.messageSend, async (payload, ack) => {
    const input = parseOrThrow(socketSendSchema, payload);
    if (!input.message) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
    const { visitor } = await findVisibleVisitor(app.db, actor, input.visitor_id);
    const result = await sendMessage(app, {
      visitor,
      senderType: 'user',
      author: actor,
      text: input.message,
      clientId: input.client_id,
    });
    ack({ ok: true, data: presentMessage(result.message, visitor.id, result.authorName) });
  });

  on(EVENTS.typing, async (payload) => {
    const input = parseOrThrow(typingSchema, payload);
    const { visitor } = await findVisibleVisitor(app.db, actor, input.visitor_id);
    socket.to(rooms.visitor(visitor.id)).emit(EVENTS.typing, { typing: input.typing, from: 'agent', name: actor.name });
  });

  on(EVENTS.messageSeen, async (payload, ack) => {
    const input = parseOrThrow(seenSchema, payload);
    const { conversation, visitor } = await findVisibleVisitor(app.db, actor, input.visitor_id);
    if (conversation) await markConversationRead(app, conversation, visitor, input.last_id);
    ack({ ok: true });
  });
}
