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

// ---- The inbox: filters, sort, paging, changes (issue 16, INBOX_CONTRACT.md) ----

export type InboxStatus = 'open' | 'pending' | 'resolved';
export type AssigneeFilter = 'mine' | 'unassigned' | 'all';
export type InboxSort = 'newest' | 'oldest' | 'waiting';
export interface InboxFilter {
  assignee: AssigneeFilter;
  status: InboxStatus;
  sort: InboxSort;
}
export type StatusCounts = Record<InboxStatus, number>;
export type InboxCounts = Record<AssigneeFilter, StatusCounts>;

export const INBOX_STATUSES: InboxStatus[] = ['open', 'pending', 'resolved'];
export const ASSIGNEE_FILTERS: AssigneeFilter[] = ['mine', 'unassigned', 'all'];

/** A conversation with the inbox's additions (optional until every server answers with them). */
export type InboxConversation = ConversationDto & {
  snoozed_until?: string | null;
  waiting_since?: string | null;
};

/** The conversation's inbox status; the old 'closed' reads as resolved. */
export function statusOf(c: { status: string }): InboxStatus {
  if (c.status === 'pending') return 'pending';
  if (c.status === 'resolved' || c.status === 'closed') return 'resolved';
  return 'open';
}

export function matchesFilter(c: InboxConversation, f: Pick<InboxFilter, 'assignee' | 'status'>, userId: number | null): boolean {
  if (statusOf(c) !== f.status) return false;
  if (f.assignee === 'mine') return userId !== null && c.assignee_id === userId;
  if (f.assignee === 'unassigned') return c.assignee_id === null;
  return true;
}

/**
 * The server's order for each sort (server/routes/conversations/inboxList.ts): newest =
 * last_message_at desc (none last), id desc; oldest = last_message_at asc (none first), id asc;
 * waiting = waiting_since asc (not waiting last), id asc.
 */
export function compareFor(sort: InboxSort): (a: InboxConversation, b: InboxConversation) => number {
  if (sort === 'oldest') return (a, b) => nullsFirst(time(a.last_message_at), time(b.last_message_at)) || a.id - b.id;
  if (sort === 'waiting') return (a, b) => nullsLast(time(a.waiting_since), time(b.waiting_since), 1) || a.id - b.id;
  return (a, b) => nullsLast(time(a.last_message_at), time(b.last_message_at), -1) || b.id - a.id;
}

/** Ascending, a missing time (NEGATIVE_INFINITY) first. */
function nullsFirst(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Compares two times (NEGATIVE_INFINITY = none) in `dir` (1 asc, -1 desc), a missing one last. */
function nullsLast(a: number, b: number, dir: 1 | -1): number {
  const an = a === Number.NEGATIVE_INFINITY;
  const bn = b === Number.NEGATIVE_INFINITY;
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return (a - b) * dir;
}

/** Adds a page (or any arrivals) to the held list: one entry per visitor, the incoming one wins, in the sort's order. */
export function mergePage(held: InboxConversation[], page: InboxConversation[], sort: InboxSort): InboxConversation[] {
  const byVisitor = new Map<string, InboxConversation>();
  for (const c of held) byVisitor.set(c.visitor_id, c);
  for (const c of page) byVisitor.set(c.visitor_id, c);
  return [...byVisitor.values()].sort(compareFor(sort));
}

/**
 * Changed conversations (a push, or a changes poll) applied to the view of one filter: one that
 * still matches is updated or added, one that no longer matches leaves. While more pages wait on
 * the server, an arrival that sorts after the last held row is left for its page, so paging never
 * skips nor repeats a row.
 */
export function applyChanges(
  held: InboxConversation[],
  changed: InboxConversation[],
  filter: InboxFilter,
  userId: number | null,
  hasMore: boolean,
): InboxConversation[] {
  const cmp = compareFor(filter.sort);
  let list = held;
  for (const c of changed) {
    const wasHeld = list.some((x) => x.visitor_id === c.visitor_id);
    if (wasHeld) list = list.filter((x) => x.visitor_id !== c.visitor_id);
    if (!matchesFilter(c, filter, userId)) continue;
    const last = list.at(-1);
    if (!wasHeld && hasMore && last && cmp(c, last) > 0) continue;
    list = [...list, c];
  }
  return list === held ? held : [...list].sort(cmp);
}

export function emptyCounts(): InboxCounts {
  const zero = (): StatusCounts => ({ open: 0, pending: 0, resolved: 0 });
  return { mine: zero(), unassigned: zero(), all: zero() };
}

/** Counts of a complete list (a server without paging answers everything at once). */
export function countConversations(list: InboxConversation[], userId: number | null): InboxCounts {
  const counts = emptyCounts();
  for (const c of list) {
    const st = statusOf(c);
    counts.all[st]++;
    if (c.assignee_id === null) counts.unassigned[st]++;
    else if (userId !== null && c.assignee_id === userId) counts.mine[st]++;
  }
  return counts;
}

/** Reads a server's `counts` object, or null when it has none (or a malformed one). */
export function readCounts(v: unknown): InboxCounts | null {
  if (!v || typeof v !== 'object') return null;
  const out = emptyCounts();
  for (const a of ASSIGNEE_FILTERS) {
    const row = (v as Record<string, unknown>)[a];
    if (!row || typeof row !== 'object') return null;
    for (const s of INBOX_STATUSES) {
      const n = (row as Record<string, unknown>)[s];
      out[a][s] = typeof n === 'number' && Number.isFinite(n) ? n : 0;
    }
  }
  return out;
}

/** The smallest confirmed message id held: the `before` of the next older page. */
export function oldestConfirmedId(list: ChatMessage[]): number | undefined {
  let min: number | undefined;
  for (const m of list) if (!m.pending && m.id > 0 && (min === undefined || m.id < min)) min = m.id;
  return min;
}
