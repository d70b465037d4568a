import { type ConversationDto, EVENTS, type VisitorDto, type VisitorPresencePayload } from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';
import { acquireSocket, releaseSocket } from '../lib/socket';
import type { DashboardFigures, Range } from './dashboardLogic';

export type { DashboardFigures, Range } from './dashboardLogic';

/**
 * Dashboard figures from GET /api/vms/stats?range= (computed on the server, in the browser's
 * time zone); the visitor history and activity from the two lists.
 */
interface DashboardState {
  range: Range;
  figures: DashboardFigures | null;
  visitors: VisitorDto[];
  conversations: ConversationDto[];
  loading: boolean;
  error: string;
  /** Visitors online now, from the socket's presence events. */
  onlineNow: Set<string>;
  setRange: (r: Range) => void;
  load: () => Promise<void>;
  connect: () => () => void;
}

export const useDashboard = create<DashboardState>((set, get) => ({
  range: '24h',
  figures: null,
  visitors: [],
  conversations: [],
  loading: false,
  error: '',
  onlineNow: new Set(),

  setRange: (range) => {
    set({ range });
    void get().load();
  },

  load: async () => {
    const range = get().range;
    set({ loading: get().figures === null, error: '' });
    try {
      // History and activity always come from the lists.
      const [visitors, conversations, figures] = await Promise.all([
        api.get('/api/vms/visitor').then((b) => unwrap<VisitorDto[]>(b)),
        api.get('/api/vms/conversations').then((b) => unwrap<ConversationDto[]>(b)),
        api
          .get('/api/vms/stats', { query: { range, tz_offset: new Date().getTimezoneOffset() } })
          .then((b) => unwrap<DashboardFigures>(b)),
      ]);
      if (get().range === range) set({ figures, visitors: visitors ?? [], conversations: conversations ?? [] });
    } catch (e) {
      console.error('Failed to load dashboard', e);
      set({ error: 'Failed to load dashboard data. Please try again.' });
    } finally {
      set({ loading: false });
    }
  },

  connect: () => {
    const socket = acquireSocket();
    if (!socket) return () => undefined;
    const online = (p: VisitorPresencePayload) => {
      if (!p?.visitor_id) return;
      const next = new Set(get().onlineNow);
      next.add(p.visitor_id);
      set({ onlineNow: next });
    };
    const offline = (p: VisitorPresencePayload) => {
      if (!p?.visitor_id) return;
      const next = new Set(get().onlineNow);
      next.delete(p.visitor_id);
      set({ onlineNow: next });
    };
    const refresh = () => void get().load();
    socket.on(EVENTS.visitorOnline, online);
    socket.on(EVENTS.visitorOffline, offline);
    socket.on(EVENTS.conversationCreated, refresh);
    return () => {
      socket.off(EVENTS.visitorOnline, online);
      socket.off(EVENTS.visitorOffline, offline);
      socket.off(EVENTS.conversationCreated, refresh);
      releaseSocket();
    };
  },
}));
