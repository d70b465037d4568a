import type { ConversationDto, MessageDto } from './types.js';

/**
 * Real-time vocabulary, `<resource>.<action>`, used by the server's emitters, the console and
 * the widget. Sockets connect to the server's Socket.IO endpoint (`/socket.io`):
 * - console: `io(BASE, { auth: { token } })` with the console bearer token;
 * - widget:  `io(BASE, { auth: { widget_key, visitor_token } })`.
 * Images are sent over REST (multipart); everything the REST calls store is pushed here too.
 */
export const EVENTS = {
  /** server -> console and widget: a stored message. Payload MessageCreatedPayload. */
  messageCreated: 'message.created',
  /** both ways: someone read up to last_id. Payload SeenPayload. */
  messageSeen: 'message.seen',
  /**
   * server -> console: a conversation appeared / changed (assignee, read). A new message's
   * change to its conversation comes inside message.created (MessageCreatedPayload.conversation).
   */
  conversationCreated: 'conversation.created',
  conversationUpdated: 'conversation.updated',
  /** server -> console: widget presence. Payload VisitorPresencePayload. */
  visitorOnline: 'visitor.online',
  visitorOffline: 'visitor.offline',
  /** widget -> server (page_url) and server -> console (visitor_id, page_url). */
  visitorPage: 'visitor.page',
  /** both ways. Payload TypingPayload. */
  typing: 'typing',
  /** client -> server with an ack: send a text message. Payload SendPayload, ack SendAck. */
  messageSend: 'message.send',
  /**
   * server -> console and widget: live events may have been missed (the node lost Redis for a
   * while, or another node died before publishing); reload what is shown from the REST calls
   * (all of it, not only since the last id) and merge by id.
   */
  syncRequired: 'sync.required',
  /** server -> widget: agent presence changed ({ online }). */
  agentPresence: 'agent.presence',
  /**
   * server -> console and widget: this node is draining (rolling restart); it closes the
   * connection next. Reconnect after `in_ms` (jittered by the server per socket) instead of the
   * usual backoff, and catch up as after any reconnect. Payload ReconnectHintPayload.
   */
  serverReconnect: 'server.reconnect',
  /**
   * console and widget -> server, no ack: a pushed message.created reached this client (sent on
   * receipt, before any rendering). The server observes the time from the message's receipt
   * (its created_at) to this ack (`parley_message_ack_seconds`). Payload MessageDeliveredPayload.
   */
  messageDelivered: 'message.delivered',
} as const;
export type EventName = (typeof EVENTS)[keyof typeof EVENTS];

export interface MessageCreatedPayload {
  message: MessageDto;
  /** Console only: the conversation after the message (last message, unread count, status). */
  conversation?: ConversationDto;
}
export interface ConversationPayload {
  conversation: ConversationDto;
}
export interface VisitorPresencePayload {
  visitor_id: string;
  page_url?: string;
}
export interface TypingPayload {
  /** Console -> server and server -> console: which conversation. Widget: omitted. */
  visitor_id?: string;
  typing: boolean;
  from?: 'visitor' | 'agent';
  name?: string;
}
export interface SeenPayload {
  visitor_id?: string;
  last_id: number;
  by?: 'visitor' | 'agent';
}
export interface MessageDeliveredPayload {
  /** The message's id and created_at, as message.created carried them. */
  id: number;
  created_at: string;
}
export interface SendPayload {
  /** Console only. */
  visitor_id?: string;
  message: string;
  client_id: string;
}
/** A refused event's ack carries the HTTP status and words; a 429 also `retry_after` (seconds, like Retry-After). */
export type SendAck =
  | { ok: true; data: MessageDto }
  | { ok: false; status: number; message: string; errors?: Record<string, string[]>; retry_after?: number; code?: import('./errorCodes.js').ErrorCode };

/** EVENTS.serverReconnect: wait this long before reconnecting (another node will answer). */
export interface ReconnectHintPayload {
  in_ms: number;
}

/**
 * Issue 13 "The visitor's side": server -> widget only. `rating.requested`: the stretch was
 * resolved and may be rated (payload RatingRequestedPayload).
 */
export const VISITOR_SIDE_EVENTS = {
  ratingRequested: 'rating.requested',
} as const;
export interface RatingRequestedPayload {
  /** The stretch asked about: the conversation's opened_at (ISO). */
  stretch: string;
}
