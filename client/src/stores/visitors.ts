import { EVENTS, type VisitorDto, type VisitorListAnswer, type VisitorListItemDto, type VisitorPresencePayload } from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';
import { acquireSocket, releaseSocket } from '../lib/socket';

/** A page of the list; the "online now" section holds up to ONLINE_PAGE visitors (the count says how many in all). */
export const VISITORS_PAGE = 50;
export const ONLINE_PAGE = 50;

export interface VisitorFilters {
  q: string;
  online: '' | 'true' | 'false';
  country: string;
  has_conversation: '' | 'true' | 'false';
}
export const NO_FILTERS: VisitorFilters = { q: '', online: '', country: '', has_conversation: '' };
const filtered = (f: VisitorFilters) => Boolean(f.q.trim() || f.online || f.country || f.has_conversation);

export type VisitorRow = VisitorDto & Partial<Pick<VisitorListItemDto, 'online' | 'has_conversation'>>;

/**
 * Visitors (GET /api/vms/visitor, issue 16): the list pages as it scrolls, with the filters; the
 * "online now" section stays live from the console socket's presence and page events.
 */
interface VisitorsState {
  visitors: VisitorRow[];
  loading: boolean;
  loaded: boolean;
  loadingMore: boolean;
  error: string;
  filters: VisitorFilters;
  nextCursor: string | null;
  /** Matching the filters, over every page. */
  total: number;
  /** The account's visitors the user may see and their distinct countries (the cards). */
  accountTotal: number;
  countries: number;
  countryChoices: { country: string; count: number }[];
  online: VisitorRow[];
  onlineTotal: number;
  /** First page of the list for the filters (and the online section). */
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
  setFilters: (patch: Partial<VisitorFilters>) => void;
  loadOnline: () => Promise<void>;
  loadCountries: () => Promise<void>;
  /** Keeps a visitor the user picked (Start Chat) where the message center looks for it. */
  remember: (v: VisitorRow) => void;
  /** Live presence and pages; returns the cleanup. */
  connect: () => () => void;
}

async function fetchPage(filters: VisitorFilters, cursor: string | null, limit: number): Promise<VisitorListAnswer> {
  const params = new URLSearchParams({ limit: String(limit) });
  if (filters.q.trim()) params.set('q', filters.q.trim());
  if (filters.online) params.set('online', filters.online);
  if (filters.country) params.set('country', filters.country);
  if (filters.has_conversation) params.set('has_conversation', filters.has_conversation);
  if (cursor) params.set('cursor', cursor);
  const body = await api.get<VisitorListAnswer>(`/api/vms/visitor?${params}`);
  unwrap(body);
  return { ...body, data: Array.isArray(body.data) ? body.data : [] };
}

const merge = (list: VisitorRow[], more: VisitorRow[]) => {
  const known = new Set(list.map((v) => v.id));
  return [...list, ...more.filter((v) => !known.has(v.id))];
};
const patch = (list: VisitorRow[], id: string, change: Partial<VisitorRow>) => (list.some((v) => v.id === id) ? list.map((v) => (v.id === id ? { ...v, ...change } : v)) : list);

let generation = 0;
let onlineTimer: ReturnType<typeof setTimeout> | null = null;

export const useVisitors = create<VisitorsState>((set, get) => ({
  visitors: [],
  loading: false,
  loaded: false,
  loadingMore: false,
  error: '',
  filters: NO_FILTERS,
  nextCursor: null,
  total: 0,
  accountTotal: 0,
  countries: 0,
  countryChoices: [],
  online: [],
  onlineTotal: 0,

  load: async () => {
    const run = ++generation;
    const { filters } = get();
    set({ loading: !get().loaded, error: '' });
    try {
      const page = await fetchPage(filters, null, VISITORS_PAGE);
      if (run !== generation) return; // newer filters won
      set({
        visitors: page.data,
        nextCursor: page.next_cursor,
        total: page.total,
        countries: page.countries,
        loaded: true,
        ...(filtered(filters) ? {} : { accountTotal: page.total }),
      });
    } catch (e) {
      if (run !== generation) return;
      console.error('Failed to load visitors', e);
      set({ error: 'Failed to load visitors. Please try again.' });
    } finally {
      if (run === generation) set({ loading: false });
    }
  },

  loadMore: async () => {
    const { nextCursor, loadingMore, filters } = get();
    if (!nextCursor || loadingMore) return;
    const run = generation;
    set({ loadingMore: true });
    try {
      const page = await fetchPage(filters, nextCursor, VISITORS_PAGE);
      if (run !== generation) return;
      set({ visitors: merge(get().visitors, page.data), nextCursor: page.next_cursor, total: page.total });
    } catch (e) {
      console.error('Failed to load visitors', e);
      set({ error: 'Failed to load visitors. Please try again.' });
    } finally {
      set({ loadingMore: false });
    }
  },

  setFilters: (change) => {
    set({ filters: { ...get().filters, ...change }, nextCursor: null });
    void get().load();
  },

  loadOnline: async () => {
    try {
      const page = await fetchPage({ ...NO_FILTERS, online: 'true' }, null, ONLINE_PAGE);
      set({ online: page.data, onlineTotal: page.total });
    } catch (e) {
      console.error('Failed to load online visitors', e);
    }
  },

  loadCountries: async () => {
    try {
      const list = unwrap<{ country: string; count: number }[]>(await api.get('/api/vms/visitor/countries'));
      set({ countryChoices: Array.isArray(list) ? list : [] });
    } catch (e) {
      console.error('Failed to load countries', e);
    }
  },

  remember: (v) => {
    if (!get().visitors.some((x) => x.id === v.id)) set({ visitors: [...get().visitors, v] });
  },

  connect: () => {
    const socket = acquireSocket();
    if (!socket) return () => undefined;
    // A visitor we do not hold yet came online: fetch the section again (once for a burst). The
    // server reads presence at most every 2 s per node, so one not listed yet is asked for again.
    const waiting = new Set<string>();
    const refreshOnline = (id: string, attempt = 0) => {
      waiting.add(id);
      if (onlineTimer) return;
      onlineTimer = setTimeout(
        () => {
          onlineTimer = null;
          void get()
            .loadOnline()
            .then(() => {
              const listed = new Set(get().online.map((v) => v.id));
              const missing = [...waiting].filter((w) => !listed.has(w));
              waiting.clear();
              if (attempt < 2) for (const m of missing) refreshOnline(m, attempt + 1);
            });
        },
        attempt === 0 ? 300 : 2_100,
      );
    };
    const online = (p: VisitorPresencePayload) => {
      if (!p?.visitor_id) return;
      const page = p.page_url ? { current_page: p.page_url } : {};
      const known = get().online.find((v) => v.id === p.visitor_id) ?? get().visitors.find((v) => v.id === p.visitor_id);
      set({ visitors: patch(get().visitors, p.visitor_id, { online: true, ...page }) });
      if (get().online.some((v) => v.id === p.visitor_id)) set({ online: patch(get().online, p.visitor_id, { online: true, ...page }) });
      else if (known) set({ online: [{ ...known, online: true, ...page }, ...get().online], onlineTotal: get().onlineTotal + 1 });
      else refreshOnline(p.visitor_id);
    };
    const offline = (p: VisitorPresencePayload) => {
      if (!p?.visitor_id) return;
      const had = get().online.some((v) => v.id === p.visitor_id);
      set({
        visitors: patch(get().visitors, p.visitor_id, { online: false }),
        online: get().online.filter((v) => v.id !== p.visitor_id),
        onlineTotal: had ? Math.max(0, get().onlineTotal - 1) : get().onlineTotal,
      });
    };
    const page = (p: VisitorPresencePayload) => {
      if (!p?.visitor_id || !p.page_url) return;
      set({ visitors: patch(get().visitors, p.visitor_id, { current_page: p.page_url }), online: patch(get().online, p.visitor_id, { current_page: p.page_url }) });
    };
    // After a reconnect, presence may have changed while nobody told us.
    const resync = () => void get().loadOnline();
    socket.on(EVENTS.visitorOnline, online);
    socket.on(EVENTS.visitorOffline, offline);
    socket.on(EVENTS.visitorPage, page);
    socket.on('connect', resync);
    return () => {
      socket.off(EVENTS.visitorOnline, online);
      socket.off(EVENTS.visitorOffline, offline);
      socket.off(EVENTS.visitorPage, page);
      socket.off('connect', resync);
      if (onlineTimer) clearTimeout(onlineTimer);
      onlineTimer = null;
      releaseSocket();
    };
  },
}));

/** Number of distinct non-empty countries. */
export function countCountries(list: VisitorDto[]): number {
  return new Set(list.map((v) => v.country?.trim()).filter(Boolean)).size;
}
