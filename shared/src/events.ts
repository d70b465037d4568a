/** Real-time event names, `<resource>.<action>`, used by the server, the console and the widget. */
export const EVENTS = {
  messageCreated: 'message.created',
  messageSeen: 'message.seen',
  conversationCreated: 'conversation.created',
  conversationUpdated: 'conversation.updated',
  visitorOnline: 'visitor.online',
  visitorOffline: 'visitor.offline',
  visitorPage: 'visitor.page',
  typing: 'typing',
} as const;
export type EventName = (typeof EVENTS)[keyof typeof EVENTS];
