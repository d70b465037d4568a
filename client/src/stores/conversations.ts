import { isImageFile, localFileFields } from '../components/files/attachments';
import { create } from 'zustand';
import {
  type ConversationPayload,
  EVENTS,
  type MessageCreatedPayload,
  type MessageDeliveredPayload,
  type MessageDto,
  type SeenPayload,
  type TypingPayload,
  type VisitorPresencePayload,
} from '@parley/shared';
import { ApiError, api, errorText, formData, unwrap } from '../lib/api';
import { acquireSocket, releaseSocket } from '../lib/socket';
import type { SnoozeChoice } from '../components/conversations/snooze';
import { keepHeldLabels } from '../lib/labels';
import { useAuth } from './auth';
import { useInbox } from './inbox';
import {
  type ChatMessage,
  type InboxConversation,
  type InboxCounts,
  type InboxFilter,
  type InboxStatus,
  applyChanges,
  compareFor,
  countConversations,
  lastConfirmedId,
  matchesFilter,
  mergeConversations,
  mergeMessages,
  mergePage,
  newClientId,
  oldestConfirmedId,
  readCounts,
} from './conversationLogic';

export type { ChatMessage } from './conversationLogic';

/** Rows per page of the list and of a thread's history. */
export const PAGE_SIZE = 50;
/** Live counts are re-read at most this often while pushes arrive. */
const COUNTS_DEBOUNCE_MS = 1500;
/** A search waits this long after the last key. */
const SEARCH_DEBOUNCE_MS = 250;
/** Jumping to a search hit loads at most this many older pages. */
const MAX_JUMP_PAGES = 200;

export interface SearchHit {
  visitor_id: string;
  conversation_id: number | null;
  message_id: number | null;
  snippet: string;
  highlights: [number, number][];
  created_at: string | null;
  visitor_name: string;
}

export interface Member {
  id: number;
  name: string;
}

interface ListAnswer {
  message?: string;
  data?: InboxConversation[];
  next_cursor?: string | null;
  has_more?: boolean;
  total?: number;
  counts?: unknown;
  changes_cursor?: string;
  /** changes_since answers: conversations the asker may no longer see (by conversation id). */
  removed_ids?: number[];
}

/**
 * Message center state (SPEC.md sections 4, 7, 8; PRODUCT.md sections 5 and 11; issue 16): the
 * list of one filter (Mine / Unassigned / All x Open / Pending / Resolved) paged with limit +
 * cursor, its live counts, the selected visitor's messages (latest page, older pages on demand),
 * live socket events, and while the socket is down a 10 s poll of what changed only. Every path
 * merges by id, so nothing is shown twice. A server without paging (no `next_cursor` in its
 * answer) is read whole and filtered here.
 */
interface ConversationsState {
  filter: InboxFilter;
  /** The rows of the current filter, in its order. */
  conversations: InboxConversation[];
  /** The selected conversation, kept while it leaves the current filter (resolved, reassigned). */
  current: InboxConversation | null;
  counts: InboxCounts | null;
  total: number | null;
  nextCursor: string | null;
  hasMore: boolean;
  moreLoading: boolean;
  /** True once the server answered with paging (next_cursor); false = a SPEC-only server. */
  paged: boolean;
  convLoading: boolean;
  convLoaded: boolean;
  convError: string;
  selectedId: string | null;
  messagesByVisitor: Record<string, ChatMessage[]>;
  /** Per visitor: whether older history waits on the server, and whether a page is loading. */
  older: Record<string, { hasMore: boolean; loading: boolean }>;
  messagesLoading: boolean;
  messagesError: string;
  sendError: string;
  actionError: string;
  actionBusy: boolean;
  typing: Record<string, boolean>;
  online: Record<string, boolean>;
  search: string;
  /** Server search results for `search`; null when no search runs (or the server has none). */
  searchResults: SearchHit[] | null;
  searchNext: string | null;
  searchLoading: boolean;
  searchError: string;
  /** False when the server has no search call: the box filters the loaded list instead. */
  serverSearch: boolean;
  /** A message to bring into view (a search hit); seq changes on every jump. */
  jump: { visitorId: string; messageId: number; seq: number } | null;
  members: Member[];
  /** Per visitor, the newest message id their widget reported seen (pushes; the list's visitor_seen_id too). */
  visitorSeen: Record<string, number>;
  live: boolean;
  /** The user whose data this is; another sign-in resets the store. */
  ownerId: number | null;

  setFilter: (f: Partial<InboxFilter>) => void;
  loadConversations: (mode?: 'reset' | 'more') => Promise<void>;
  /** What changed since the change cursor (the poll while the socket is down, a catch-up, live counts). */
  pollChanges: () => Promise<void>;
  select: (visitorId: string | null) => void;
  loadMessages: (visitorId: string, mode: 'initial' | 'poll' | 'reload') => Promise<void>;
  loadOlder: (visitorId: string) => Promise<boolean>;
  openSearchHit: (hit: SearchHit) => Promise<void>;
  send: (text: string, image: File | null) => Promise<boolean>;
  /** Resolve, reopen or snooze (`snooze` a quick choice the server times, or `snoozed_until`). */
  setStatus: (visitorId: string, status: InboxStatus, snooze?: { snoozed_until?: string; snooze?: SnoozeChoice }) => Promise<boolean>;
  assign: (visitorId: string, userId: number | null) => Promise<boolean>;
  loadMembers: () => Promise<void>;
  setSearch: (q: string) => void;
  loadMoreSearch: () => Promise<void>;
  clearSendError: () => void;
  clearActionError: () => void;
  sendTyping: (typing: boolean) => void;
  /** Connect live events; returns the disconnect function. */
  connect: () => () => void;
  reset: (ownerId: number | null) => void;
}

let tempSeq = -1;
/** Per visitor, the server's next_cursor: polls and catch-ups ask only for what committed since (commit-safe). */
const cursors = new Map<string, string>();
const typingTimers = new Map<string, ReturnType<typeof setTimeout>>();
/** The list's change cursor (`changes_since`); null until a server gives one. */
let changesCursor: string | null = null;
/** Every list request gets a number; an answer for a superseded filter is dropped. */
let listSeq = 0;
let countsTimer: ReturnType<typeof setTimeout> | undefined;
let searchTimer: ReturnType<typeof setTimeout> | undefined;
let searchSeq = 0;
let jumpSeq = 0;
/** Per visitor, the older-history page being loaded. */
const olderInFlight = new Map<string, Promise<boolean>>();
/** A SPEC-only server's whole list, filtered here. */
let wholeList: InboxConversation[] = [];

const DEFAULT_FILTER: InboxFilter = { assignee: 'all', status: 'open', sort: 'newest' };

const me = () => useAuth.getState().user?.id ?? null;

/** Whether the agent can see the console now (a hidden tab reads nothing). */
const tabVisible = () => typeof document === 'undefined' || document.visibilityState === 'visible';

/** A push leaves assignee_name out: keep the name held for the same assignee. */
function withAssigneeName(c: InboxConversation, held: InboxConversation | null | undefined, members: Member[]): InboxConversation {
  if (c.assignee_name !== undefined && c.assignee_name !== null) return c;
  if (c.assignee_id === null) return { ...c, assignee_name: null };
  if (held && held.assignee_id === c.assignee_id && held.assignee_name) return { ...c, assignee_name: held.assignee_name };
  const user = useAuth.getState().user;
  const name = members.find((m) => m.id === c.assignee_id)?.name ?? (user && user.id === c.assignee_id ? user.name : undefined);
  return name ? { ...c, assignee_name: name } : c;
}

export const useConversations = create<ConversationsState>((set, get) => {
  const setMessages = (visitorId: string, update: (held: ChatMessage[]) => ChatMessage[]) =>
    set((s) => ({ messagesByVisitor: { ...s.messagesByVisitor, [visitorId]: update(s.messagesByVisitor[visitorId] ?? []) } }));
  const setOlder = (visitorId: string, v: Partial<{ hasMore: boolean; loading: boolean }>) =>
    set((s) => ({ older: { ...s.older, [visitorId]: { hasMore: false, loading: false, ...s.older[visitorId], ...v } } }));

  const markSeen = (visitorId: string, lastId: number | undefined) => {
    if (lastId === undefined || !tabVisible()) return;
    const s = acquireSocketIfLive();
    s?.emit(EVENTS.messageSeen, { visitor_id: visitorId, last_id: lastId }, () => undefined);
  };

  /**
   * The one rule for the open conversation's unread count: it reads as 0 only while the agent
   * sees it (selected, tab visible); in a hidden tab it stays unread until the tab shows again.
   */
  const asSeen = <C extends InboxConversation>(c: C): C => (c.visitor_id === get().selectedId && tabVisible() ? { ...c, unread_count: 0 } : c);

  /** The tab shows again: what arrived meanwhile in the open conversation is now seen. */
  const onVisible = () => {
    const id = get().selectedId;
    if (!id || !tabVisible()) return;
    const held = get().current ?? get().conversations.find((c) => c.visitor_id === id);
    if (!held || held.unread_count === 0) return;
    set((s) => ({ conversations: s.conversations.map(asSeen), current: s.current ? asSeen(s.current) : null }));
    markSeen(id, lastConfirmedId(get().messagesByVisitor[id] ?? []));
  };

  /** A header action (status, assignment): apply its answer, refresh the thread's system line. */
  const conversationAction = async (visitorId: string, action: 'status' | 'assign', body: object, failure: string) => {
    set({ actionBusy: true, actionError: '' });
    try {
      const dto = await api.postData<InboxConversation>(`/api/vms/conversations/${encodeURIComponent(visitorId)}/${action}`, body);
      if (dto && typeof dto === 'object' && 'visitor_id' in dto) applyConversations([dto]);
      void get().loadMessages(visitorId, cursors.has(visitorId) ? 'poll' : 'reload');
      return true;
    } catch (e) {
      console.error(`Conversation ${action} failed`, e);
      set({ actionError: errorText(e, failure) });
      return false;
    } finally {
      set({ actionBusy: false });
    }
  };

  let liveSocket: ReturnType<typeof acquireSocket> = null;
  const acquireSocketIfLive = () => (liveSocket?.connected ? liveSocket : null);

  // The server says `me` for Mine.
  const listQuery = (f: InboxFilter, extra: Record<string, string | number | undefined> = {}) => ({
    limit: PAGE_SIZE,
    status: f.status,
    assignee: f.assignee === 'mine' ? 'me' : f.assignee,
    sort: f.sort,
    label: useInbox.getState().labelFilter ?? undefined,
    ...extra,
  });

  /** Changed conversations (pushes, a changes poll, an action's answer) applied everywhere they show. */
  const applyConversations = (changed: InboxConversation[], opts: { recount?: boolean } = {}) => {
    if (changed.length === 0) return;
    const s = get();
    const uid = me();
    const byVisitor = new Map(s.conversations.map((c) => [c.visitor_id, c]));
    const named = changed.map((c) => {
      const held = byVisitor.get(c.visitor_id) ?? (s.current?.visitor_id === c.visitor_id ? s.current : undefined);
      return asSeen(keepHeldLabels(withAssigneeName(c, held, s.members), held));
    });
    if (!s.paged) {
      wholeList = mergeConversations(wholeList.filter((c) => !named.some((n) => n.visitor_id === c.visitor_id)), named);
      set({
        conversations: wholeList.filter((c) => matchesFilter(c, s.filter, uid)).sort(compareFor(s.filter.sort)),
        counts: countConversations(wholeList, uid),
      });
    } else {
      set({ conversations: applyChanges(s.conversations, named, s.filter, uid, s.hasMore) });
      if (opts.recount !== false) scheduleCounts();
    }
    const cur = named.find((c) => c.visitor_id === get().selectedId);
    if (cur) set({ current: cur });
  };

  /** Live counts: a one-row page answers them; re-read shortly after pushes, not on each. */
  const scheduleCounts = () => {
    if (countsTimer) return;
    countsTimer = setTimeout(() => {
      countsTimer = undefined;
      // The changes answer carries the counts (and anything a lost push missed); else a one-row page.
      void (changesCursor ? get().pollChanges() : refreshCounts());
    }, COUNTS_DEBOUNCE_MS);
  };
  const refreshCounts = async () => {
    const f = get().filter;
    try {
      const body = await api.get<ListAnswer>('/api/vms/conversations', { query: { ...listQuery(f), limit: 1 } });
      unwrap(body);
      const counts = readCounts(body.counts);
      if (counts) set({ counts });
      if (typeof body.total === 'number' && get().filter === f) set({ total: body.total });
    } catch (e) {
      console.error('Failed to refresh counts', e);
    }
  };

  const runSearch = async () => {
    const q = get().search.trim();
    const seq = ++searchSeq;
    if (!q || !get().serverSearch) {
      set({ searchResults: null, searchNext: null, searchLoading: false, searchError: '' });
      return;
    }
    set({ searchLoading: true, searchError: '' });
    try {
      const body = await api.get<{ message?: string; data?: SearchHit[]; next_cursor?: string | null }>('/api/vms/search', { query: { q, limit: 20 } });
      const data = unwrap<SearchHit[]>(body);
      if (seq !== searchSeq) return;
      set({ searchResults: Array.isArray(data) ? data : [], searchNext: body.next_cursor ?? null });
    } catch (e) {
      if (seq !== searchSeq) return;
      if (e instanceof ApiError && e.status === 404) {
        // A server without the search call: the box filters what is loaded (PRODUCT.md section 10).
        set({ serverSearch: false, searchResults: null });
        return;
      }
      console.error('Search failed', e);
      set({ searchError: errorText(e, 'Search failed. Please try again.') });
    } finally {
      if (seq === searchSeq) set({ searchLoading: false });
    }
  };

  return {
    filter: DEFAULT_FILTER,
    conversations: [],
    current: null,
    counts: null,
    total: null,
    nextCursor: null,
    hasMore: false,
    moreLoading: false,
    paged: false,
    convLoading: false,
    convLoaded: false,
    convError: '',
    selectedId: null,
    messagesByVisitor: {},
    older: {},
    messagesLoading: false,
    messagesError: '',
    sendError: '',
    actionError: '',
    actionBusy: false,
    typing: {},
    online: {},
    search: '',
    searchResults: null,
    searchNext: null,
    searchLoading: false,
    searchError: '',
    serverSearch: true,
    jump: null,
    members: [],
    visitorSeen: {},
    live: false,
    ownerId: null,

    setFilter: (partial) => {
      const filter = { ...get().filter, ...partial };
      const f = get().filter;
      if (filter.assignee === f.assignee && filter.status === f.status && filter.sort === f.sort) return;
      if (!get().paged && get().convLoaded) {
        // The whole list is held: filter it here at once.
        const uid = me();
        set({ filter, conversations: wholeList.filter((c) => matchesFilter(c, filter, uid)).sort(compareFor(filter.sort)) });
        return;
      }
      set({ filter, conversations: [], nextCursor: null, hasMore: false, convLoading: true });
      void get().loadConversations('reset');
    },

    loadConversations: async (mode = 'reset') => {
      const s = get();
      if (mode === 'more' && (!s.paged || !s.hasMore || !s.nextCursor || s.moreLoading)) return;
      const f = s.filter;
      const seq = ++listSeq;
      const first = !s.convLoaded;
      if (first) set({ convLoading: true });
      if (mode === 'more') set({ moreLoading: true });
      try {
        const body = await api.get<ListAnswer>('/api/vms/conversations', { query: listQuery(f, { cursor: mode === 'more' ? (s.nextCursor ?? undefined) : undefined }) });
        const list = unwrap<InboxConversation[]>(body);
        if (seq !== listSeq && mode !== 'more') return;
        if (get().filter !== f) return;
        const rows = Array.isArray(list) ? list : [];
        const uid = me();
        if (typeof body.changes_cursor === 'string') changesCursor = body.changes_cursor;
        const paged = body !== null && typeof body === 'object' && 'next_cursor' in body;
        if (paged) {
          const page = rows.map(asSeen);
          set((st) => ({
            paged: true,
            conversations: mode === 'more' ? mergePage(st.conversations, page, f.sort) : [...page].sort(compareFor(f.sort)),
            nextCursor: body.next_cursor ?? null,
            hasMore: Boolean(body.has_more) && Boolean(body.next_cursor),
            counts: readCounts(body.counts) ?? st.counts,
            total: typeof body.total === 'number' ? body.total : st.total,
          }));
        } else {
          wholeList = mergeConversations(rows);
          set({
            paged: false,
            conversations: wholeList.filter((c) => matchesFilter(c, f, uid)).sort(compareFor(f.sort)),
            nextCursor: null,
            hasMore: false,
            counts: countConversations(wholeList, uid),
            total: wholeList.length,
          });
        }
        const sel = get().selectedId;
        const cur = sel ? get().conversations.find((c) => c.visitor_id === sel) : undefined;
        if (cur) set({ current: asSeen(cur) });
        set({ convError: '', convLoaded: true });
      } catch (e) {
        console.error('Failed to load conversations', e);
        set({ convError: 'Failed to load conversations. Please try again.' });
      } finally {
        if (first || mode === 'reset') set({ convLoading: false });
        if (mode === 'more') set({ moreLoading: false });
      }
    },

    pollChanges: async () => {
      const s = get();
      // A server without a change cursor: reload the first page (a SPEC-only server: its list).
      if (!s.paged || !changesCursor) return get().loadConversations('reset');
      try {
        const body = await api.get<ListAnswer>('/api/vms/conversations', { query: { changes_since: changesCursor } });
        const changed = unwrap<InboxConversation[]>(body);
        if (typeof body.changes_cursor === 'string') changesCursor = body.changes_cursor;
        // More changes than one answer carries: read the list again.
        if (body.has_more) return get().loadConversations('reset');
        const removed = new Set(Array.isArray(body.removed_ids) ? body.removed_ids : []);
        if (removed.size) set((st) => ({ conversations: st.conversations.filter((c) => !removed.has(c.id)) }));
        const counts = readCounts(body.counts);
        applyConversations(Array.isArray(changed) ? changed : [], { recount: !counts });
        if (counts) set({ counts });
        set({ convError: '' });
      } catch (e) {
        if (e instanceof ApiError && e.status === 422) {
          // The cursor is no longer valid (or the server does not know changes_since): start over.
          changesCursor = null;
          return get().loadConversations('reset');
        }
        console.error('Failed to poll conversation changes', e);
      }
    },

    select: (visitorId) => {
      if (visitorId === get().selectedId) return;
      const cur = visitorId ? (get().conversations.find((c) => c.visitor_id === visitorId) ?? null) : null;
      set({ selectedId: visitorId, messagesError: '', sendError: '', actionError: '' });
      set({ current: cur ? asSeen(cur) : null });
      if (!visitorId) return;
      // Opening a conversation clears its unread badge (the first load marks it read server-side).
      set((s) => ({ conversations: s.conversations.map(asSeen) }));
      void get().loadMessages(visitorId, 'initial');
    },

    loadMessages: async (visitorId, mode) => {
      const held = get().messagesByVisitor[visitorId];
      if (mode === 'initial') set({ messagesLoading: !held, messagesError: '' });
      // A poll or a catch-up asks for what committed since the last answer; without a cursor
      // yet, a poll falls back to since_id and a reload to the latest page.
      const cursor = mode === 'initial' ? undefined : cursors.get(visitorId);
      const sinceId = mode === 'poll' && !cursor ? lastConfirmedId(held ?? []) : undefined;
      const incremental = Boolean(cursor) || sinceId !== undefined;
      try {
        const body = await api.get<{ next_cursor?: unknown; has_more?: unknown }>(`/api/vms/messages/${encodeURIComponent(visitorId)}`, {
          query: incremental ? { cursor, since_id: sinceId } : { limit: PAGE_SIZE },
        });
        const list = unwrap<MessageDto[]>(body);
        const incoming: ChatMessage[] = Array.isArray(list) ? list : [];
        const next = body?.next_cursor;
        if (typeof next === 'string') cursors.set(visitorId, next);
        if (incremental) setMessages(visitorId, (h) => mergeMessages(h, incoming));
        else {
          // The latest page replaces what is held from that page on, keeping older pages already
          // loaded and sends still in flight.
          const oldestNew = oldestConfirmedId(incoming);
          setMessages(visitorId, (h) => mergeMessages(h.filter((m) => m.pending || (oldestNew !== undefined && m.id < oldestNew)), incoming));
          if (!held || mode === 'initial') setOlder(visitorId, { hasMore: body?.has_more === true });
        }
        if (get().selectedId === visitorId) set({ messagesError: '' });
      } catch (e) {
        console.error('Failed to load messages', e);
        if (get().selectedId === visitorId && mode !== 'poll') set({ messagesError: 'Failed to load messages. Please try again.' });
      } finally {
        if (mode === 'initial') set({ messagesLoading: false });
      }
    },

    loadOlder: (visitorId) => {
      // One page at a time per visitor: a second ask while one loads waits for that one.
      const inFlight = olderInFlight.get(visitorId);
      if (inFlight) return inFlight;
      const o = get().older[visitorId];
      const before = oldestConfirmedId(get().messagesByVisitor[visitorId] ?? []);
      if (!o?.hasMore || before === undefined) return Promise.resolve(false);
      setOlder(visitorId, { loading: true });
      const run = (async () => {
        try {
          const body = await api.get<{ has_more?: unknown }>(`/api/vms/messages/${encodeURIComponent(visitorId)}`, { query: { limit: PAGE_SIZE, before } });
          const list = unwrap<MessageDto[]>(body);
          const incoming = Array.isArray(list) ? list.filter((m) => m.id < before) : [];
          setMessages(visitorId, (h) => mergeMessages(h, incoming));
          setOlder(visitorId, { hasMore: body?.has_more === true && incoming.length > 0 });
          return incoming.length > 0;
        } catch (e) {
          console.error('Failed to load older messages', e);
          return false;
        } finally {
          olderInFlight.delete(visitorId);
          setOlder(visitorId, { loading: false });
        }
      })();
      olderInFlight.set(visitorId, run);
      return run;
    },

    openSearchHit: async (hit) => {
      get().select(hit.visitor_id);
      if (hit.message_id === null) return;
      const messageId = hit.message_id;
      // Wait for the latest page, then load older pages until the hit is held.
      for (let i = 0; i < 100 && !get().messagesByVisitor[hit.visitor_id] && get().selectedId === hit.visitor_id; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let page = 0; page < MAX_JUMP_PAGES; page++) {
        if (get().selectedId !== hit.visitor_id) return;
        const held = get().messagesByVisitor[hit.visitor_id] ?? [];
        if (held.some((m) => m.id === messageId)) break;
        const oldest = oldestConfirmedId(held);
        if (oldest !== undefined && oldest < messageId) break;
        if (!get().older[hit.visitor_id]?.hasMore) break;
        if (!(await get().loadOlder(hit.visitor_id))) break;
      }
      set({ jump: { visitorId: hit.visitor_id, messageId, seq: ++jumpSeq } });
    },

    send: async (rawText, image) => {
      const visitorId = get().selectedId;
      const text = rawText.trim();
      if (!visitorId || (!text && !image)) return false;
      const clientId = newClientId();
      const user = useAuth.getState().user;
      const temp: ChatMessage = {
        id: tempSeq--,
        visitor_id: visitorId,
        message: text,
        file_path: image ? URL.createObjectURL(image) : '',
        ...(image ? localFileFields(image) : {}),
        sender_type: 'user',
        author_id: user?.id ?? null,
        author_name: user?.name ?? null,
        client_id: clientId,
        created_at: new Date().toISOString(),
        pending: true,
      };
      set({ sendError: '' });
      setMessages(visitorId, (h) => [...h, temp]);
      try {
        const body = await api.post('/api/vms/messages', formData({ message: text || undefined, ...(image ? { [isImageFile(image) ? 'image' : 'file']: image } : {}), visitor_id: visitorId, client_id: clientId }));
        const stored = unwrap<MessageDto>(body);
        if (stored && typeof stored === 'object' && 'id' in stored) setMessages(visitorId, (h) => mergeMessages(h, [stored]));
        void get().loadMessages(visitorId, cursors.has(visitorId) ? 'poll' : 'reload');
        // The push carries the conversation; without a live socket ask what changed.
        if (!get().live) void get().pollChanges();
        return true;
      } catch (e) {
        console.error('Failed to send message', e);
        setMessages(visitorId, (h) => h.filter((m) => m.id !== temp.id));
        set({ sendError: 'Failed to send message. Please try again.' });
        return false;
      } finally {
        if (temp.file_path) setTimeout(() => URL.revokeObjectURL(temp.file_path), 60_000);
      }
    },

    setStatus: (visitorId, status, snooze) =>
      conversationAction(visitorId, 'status', { status, ...snooze }, 'Failed to update the conversation. Please try again.'),

    assign: (visitorId, userId) => conversationAction(visitorId, 'assign', { user_id: userId }, 'Failed to assign the conversation. Please try again.'),

    loadMembers: async () => {
      const user = useAuth.getState().user;
      if (!user) return;
      const self: Member = { id: user.id, name: user.name };
      // The owner reads the team; others can always pick themselves.
      if (!user.permissions?.includes('team.manage')) {
        set({ members: [self] });
        return;
      }
      try {
        const team = await api.getData<{ id: number; name: string; status?: string }[]>('/api/vms/team');
        const active = (Array.isArray(team) ? team : []).filter((m) => m.status !== 'disabled').map((m) => ({ id: m.id, name: m.name }));
        set({ members: [self, ...active.filter((m) => m.id !== self.id)] });
      } catch (e) {
        console.error('Failed to load members', e);
        set({ members: [self] });
      }
    },

    setSearch: (q) => {
      set({ search: q });
      clearTimeout(searchTimer);
      if (!q.trim()) {
        searchSeq++;
        set({ searchResults: null, searchNext: null, searchLoading: false, searchError: '' });
        return;
      }
      searchTimer = setTimeout(() => void runSearch(), SEARCH_DEBOUNCE_MS);
    },

    loadMoreSearch: async () => {
      const { search, searchNext, searchLoading } = get();
      if (!searchNext || searchLoading) return;
      const seq = searchSeq;
      set({ searchLoading: true });
      try {
        const body = await api.get<{ data?: SearchHit[]; next_cursor?: string | null }>('/api/vms/search', { query: { q: search.trim(), limit: 20, cursor: searchNext } });
        const data = unwrap<SearchHit[]>(body);
        if (seq !== searchSeq) return;
        set((s) => ({ searchResults: [...(s.searchResults ?? []), ...(Array.isArray(data) ? data : [])], searchNext: body.next_cursor ?? null }));
      } catch (e) {
        console.error('Search failed', e);
      } finally {
        if (seq === searchSeq) set({ searchLoading: false });
      }
    },

    clearSendError: () => set({ sendError: '' }),
    clearActionError: () => set({ actionError: '' }),

    sendTyping: (typing) => {
      const visitorId = get().selectedId;
      const s = acquireSocketIfLive();
      if (visitorId && s) s.emit(EVENTS.typing, { visitor_id: visitorId, typing });
    },

    connect: () => {
      const socket = acquireSocket();
      if (!socket) return () => undefined;
      liveSocket = socket;

      // Catch up after any disconnect, or when the server says pushes may have been lost (a node
      // died, Redis came back): ask what changed since the commit-safe cursors and merge by id
      // (PRODUCT.md sections 5 and 11); not since the last id: a lost push may be older than the
      // newest one seen.
      const catchUp = () => {
        void get().pollChanges();
        const sel = get().selectedId;
        if (sel) void get().loadMessages(sel, get().messagesByVisitor[sel] ? 'reload' : 'initial');
      };
      const onConnect = () => {
        set({ live: true });
        catchUp();
      };
      const onDisconnect = () => set({ live: false });
      const onMessage = (p: MessageCreatedPayload) => {
        if (!p?.message) return;
        const m = p.message;
        // The delivery ack, on receipt: the server's parley_message_ack_seconds.
        socket.emit(EVENTS.messageDelivered, { id: m.id, created_at: m.created_at } satisfies MessageDeliveredPayload);
        if (p.conversation) applyConversations([p.conversation as InboxConversation]);
        if (get().messagesByVisitor[m.visitor_id]) setMessages(m.visitor_id, (h) => mergeMessages(h, [m]));
        if (m.sender_type === 'visitor') set((s) => ({ typing: { ...s.typing, [m.visitor_id]: false } }));
        if (get().selectedId === m.visitor_id && (m.sender_type === 'visitor' || m.sender_type === 'bot')) markSeen(m.visitor_id, m.id);
      };
      const onConversation = (p: ConversationPayload) => {
        if (p?.conversation) applyConversations([p.conversation as InboxConversation]);
      };
      const onTyping = (p: TypingPayload) => {
        if (!p?.visitor_id || p.from === 'agent') return;
        const id = p.visitor_id;
        set((s) => ({ typing: { ...s.typing, [id]: Boolean(p.typing) } }));
        clearTimeout(typingTimers.get(id));
        // A lost "stopped typing" must not leave the indicator on forever.
        if (p.typing) typingTimers.set(id, setTimeout(() => set((s) => ({ typing: { ...s.typing, [id]: false } })), 6000));
      };
      const onSeen = (p: SeenPayload) => {
        if (p?.by !== 'visitor' || !p.visitor_id || typeof p.last_id !== 'number') return;
        const id = p.visitor_id;
        set((s) => (p.last_id > (s.visitorSeen[id] ?? 0) ? { visitorSeen: { ...s.visitorSeen, [id]: p.last_id } } : {}));
      };
      const onOnline = (p: VisitorPresencePayload) => p?.visitor_id && set((s) => ({ online: { ...s.online, [p.visitor_id]: true } }));
      const onOffline = (p: VisitorPresencePayload) => p?.visitor_id && set((s) => ({ online: { ...s.online, [p.visitor_id]: false }, typing: { ...s.typing, [p.visitor_id]: false } }));

      // One list for subscribing and unsubscribing, so the two cannot drift apart.
      const handlers: [string, Parameters<typeof socket.on>[1]][] = [
        ['connect', onConnect],
        ['disconnect', onDisconnect],
        [EVENTS.messageCreated, onMessage],
        [EVENTS.conversationCreated, onConversation],
        [EVENTS.conversationUpdated, onConversation],
        [EVENTS.syncRequired, catchUp],
        [EVENTS.typing, onTyping],
        [EVENTS.visitorOnline, onOnline],
        [EVENTS.visitorOffline, onOffline],
        [EVENTS.messageSeen, onSeen],
      ];
      for (const [event, fn] of handlers) socket.on(event, fn);
      if (socket.connected) set({ live: true });
      document.addEventListener('visibilitychange', onVisible);

      return () => {
        document.removeEventListener('visibilitychange', onVisible);
        for (const [event, fn] of handlers) socket.off(event, fn);
        liveSocket = null;
        set({ live: false });
        releaseSocket();
      };
    },

    reset: (ownerId) => {
      cursors.clear();
      olderInFlight.clear();
      changesCursor = null;
      wholeList = [];
      listSeq++;
      searchSeq++;
      clearTimeout(countsTimer);
      countsTimer = undefined;
      set({
        ownerId,
        filter: DEFAULT_FILTER,
        conversations: [],
        current: null,
        counts: null,
        total: null,
        nextCursor: null,
        hasMore: false,
        paged: false,
        convLoaded: false,
        convError: '',
        selectedId: null,
        messagesByVisitor: {},
        older: {},
        messagesError: '',
        sendError: '',
        actionError: '',
        typing: {},
        online: {},
        search: '',
        searchResults: null,
        searchNext: null,
        serverSearch: true,
        jump: null,
        members: [],
        visitorSeen: {},
      });
    },
  };
});
