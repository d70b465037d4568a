import type { ConversationDto, MessageDto } from '@parley/shared';

/** A message in the chat view; `pending` marks a temporary item not yet confirmed by the server. */
export interface ChatMessage extends MessageDto {
  pending?: boolean;
}

const time = (v: string | null | undefined): number => {
  if (!v) return Number.NEGATIVE_INFINITY;
  const t = Date.parse(v);
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
};

/** Newest first by last_message_at; no date last; ties by id descending. */
export function sortConversations(list: ConversationDto[]): ConversationDto[] {
  return [...list].sort((a, b) => time(b.last_message_at) - time(a.last_message_at) || b.id - a.id);
}

/**
 * SPEC.md section 3: conversations merged by visitor_id (the entry with the latest
 * last_message_at wins; on a tie the later one in the input) and sorted newest first.
 */
export function mergeConversations(...lists: ConversationDto[][]): ConversationDto[] {
  const byVisitor = new Map<string, ConversationDto>();
  for (const list of lists) {
    for (const c of list) {
      const prev = byVisitor.get(c.visitor_id);
      if (!prev || time(c.last_message_at) >= time(prev.last_message_at)) byVisitor.set(c.visitor_id, c);
    }
  }
  return sortConversations([...byVisitor.values()]);
}

/** Replace or add one conversation (a live update), keeping the order. */
export function upsertConversation(list: ConversationDto[], c: ConversationDto): ConversationDto[] {
  return sortConversations([...list.filter((x) => x.visitor_id !== c.visitor_id), c]);
}

/** Ascending by created_at, ties by id (database order); temporary items stay last among equals. */
export function sortMessages<T extends ChatMessage>(list: T[]): T[] {
  return [...list].sort((a, b) => time(a.created_at) - time(b.created_at) || Number(Boolean(a.pending)) - Number(Boolean(b.pending)) || a.id - b.id);
}

/**
 * Merge arrivals into the held list by id (SPEC.md section 4): an id already held is replaced,
 * never doubled. A stored message whose client_id matches a temporary item replaces that item.
 */
export function mergeMessages<T extends ChatMessage>(held: T[], incoming: T[]): T[] {
  const byId = new Map<number, T>();
  for (const m of held) byId.set(m.id, m);
  const confirmedClientIds = new Set(incoming.filter((m) => !m.pending && m.client_id).map((m) => m.client_id));
  for (const m of incoming) byId.set(m.id, m);
  const merged = [...byId.values()].filter((m) => !(m.pending && m.client_id && confirmedClientIds.has(m.client_id)));
  return sortMessages(merged);
}

/** The id to poll from: the largest confirmed id held (temporary items have negative ids). */
export function lastConfirmedId(list: ChatMessage[]): number | undefined {
  let max: number | undefined;
  for (const m of list) if (!m.pending && m.id > 0 && (max === undefined || m.id > max)) max = m.id;
  return max;
}

/** PRODUCT.md section 10: the search box filters by visitor name, email and message text. */
export function filterConversations(list: ConversationDto[], query: string, extraText?: (c: ConversationDto) => string): ConversationDto[] {
  const q = query.trim().toLowerCase();
  if (!q) return list;
  return list.filter((c) => {
    const hay = [c.visitor_name || 'Anonymous', c.visitor_email, c.last_message, extraText?.(c) ?? ''].join('\n').toLowerCase();
    return hay.includes(q);
  });
}

/** A client-generated id for idempotent sends (server accepts [A-Za-z0-9_-]{1,64}). */
export function newClientId(): string {
  const rnd = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  return `c_${rnd.replace(/[^A-Za-z0-9_-]/g, '')}`.slice(0, 64);
}
