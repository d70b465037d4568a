import type { ConversationDto, MessageCreatedPayload } from '@parley/shared';

/**
 * Pure rules of the console's alerts (issue 16 "Never miss a chat"): what an event says, when it
 * alerts, the tab title. Unit-tested; the store (alerts.ts) wires them to the socket and browser.
 */

export type AlertKind = 'chat' | 'message' | 'assigned';

export interface AlertEvent {
  /** One per event: the same key is never alerted twice (message id, or assignment). */
  key: string;
  kind: AlertKind;
  visitor_id: string;
  title: string;
  body: string;
  at: string;
}

const BODY_MAX = 120;
const clip = (text: string) => (text.length > BODY_MAX ? `${text.slice(0, BODY_MAX)}...` : text);
const nameOf = (c: Pick<ConversationDto, 'visitor_name'> | undefined) => c?.visitor_name?.trim() || 'Anonymous';

/**
 * A visitor's message as an alert; anything else (agent replies, bot answers, system lines,
 * notes) is null. A "new chat" is the message that opened the conversation.
 */
export function alertFromMessage(p: MessageCreatedPayload | undefined): AlertEvent | null {
  const m = p?.message;
  if (m?.sender_type !== 'visitor') return null;
  const c = p?.conversation;
  // The conversation and its first message are written in one transaction: the same instant.
  const opened = c ? Date.parse(c.created_at) === Date.parse(m.created_at) : false;
  const name = nameOf(c);
  return {
    key: `message:${m.id}`,
    kind: opened ? 'chat' : 'message',
    visitor_id: m.visitor_id,
    title: opened ? `New chat from ${name}` : `New message from ${name}`,
    body: clip(m.message.trim() || (m.file_path ? 'Sent an image' : '')),
    at: m.created_at,
  };
}

/**
 * A conversation handed to `me`: only when the assignee was known and was someone else (or
 * nobody), so a read receipt or a reload never looks like an assignment.
 */
export function alertFromAssignment(c: ConversationDto, previous: number | null | undefined, me: number, seq: number): AlertEvent | null {
  if (c.assignee_id !== me || previous === undefined || previous === me) return null;
  return {
    key: `assigned:${c.visitor_id}:${seq}`,
    kind: 'assigned',
    visitor_id: c.visitor_id,
    title: `Conversation with ${nameOf(c)} assigned to you`,
    body: clip(c.last_message ?? ''),
    at: new Date().toISOString(),
  };
}

/** The tab title with the unread count in front: "(3) Parley", or the plain title at 0. */
export function titleWithUnread(title: string, unread: number): string {
  const base = title.replace(/^\(\d+\+?\) /, '');
  return unread > 0 ? `(${unread > 99 ? '99+' : unread}) ${base}` : base;
}

export const totalUnread = (unread: Record<string, number>) => Object.values(unread).reduce((n, u) => n + (u > 0 ? u : 0), 0);

/** What one console tab tells the others. */
export interface TabInfo {
  visible: boolean;
  /** When it said so (ms): a tab silent for longer than TAB_STALE_MS is gone. */
  at: number;
}
export const TAB_HEARTBEAT_MS = 10_000;
export const TAB_STALE_MS = 25_000;

/**
 * Alert (notification and sound) only while the agent cannot see the console: no tab of it is
 * visible. A visible tab shows the bell, the badge and the title instead.
 */
export function shouldAlert(tabs: Iterable<TabInfo>, now: number): boolean {
  for (const t of tabs) if (t.visible && now - t.at < TAB_STALE_MS) return false;
  return true;
}

/** Remembers keys (bounded, oldest forgotten first); `add` is false for a key already seen. */
export class SeenKeys {
  private keys = new Set<string>();
  constructor(private max = 500) {}
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value as string);
    return true;
  }
}
