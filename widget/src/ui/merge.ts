import type { MessageDto } from '@parley/shared';

/** A message in the widget: stored (has an id) or still on its way (pending/failed, by client_id). */
export interface ChatMessage extends Omit<MessageDto, 'id'> {
  id?: number;
  state?: 'pending' | 'failed';
  /** Local preview of an image being sent. */
  local_url?: string;
  /** Why a failed send cannot be retried (validation), shown under it. */
  error?: string;
}

/**
 * Merges stored messages into the list: the same id is never shown twice (socket push, ack and
 * catch-up may all deliver it), a stored message replaces its pending copy (same client_id), and
 * stored messages keep the database order (ascending id) with pending ones after them.
 * Returns the new list and the stored messages that were not there before (own ones included).
 */
export function mergeMessages(list: readonly ChatMessage[], incoming: readonly MessageDto[]): { list: ChatMessage[]; added: MessageDto[] } {
  const byId = new Map<number, ChatMessage>();
  const pending: ChatMessage[] = [];
  for (const m of list) {
    if (m.id !== undefined) byId.set(m.id, m);
    else pending.push(m);
  }
  const added: MessageDto[] = [];
  for (const m of incoming) {
    const known = byId.has(m.id);
    const mine = m.client_id ? pending.findIndex((p) => p.client_id === m.client_id) : -1;
    if (mine >= 0) pending.splice(mine, 1);
    if (!known) added.push(m);
    byId.set(m.id, m);
  }
  const stored = [...byId.values()].sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  return { list: [...stored, ...pending], added };
}

/** The highest stored id, for `since_id` catch-up. */
export function lastStoredId(list: readonly ChatMessage[]): number {
  let max = 0;
  for (const m of list) if (m.id !== undefined && m.id > max) max = m.id;
  return max;
}
