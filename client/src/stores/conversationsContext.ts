import { create } from 'zustand';
import { type ConversationPayload, EVENTS, type MessageCreatedPayload, type MessageDto, type VisitorContextDto, type VisitorDto, type VisitorPresencePayload } from '@parley/shared';
import { ApiError, type FieldErrors, api, errorText, request, unwrap } from '../lib/api';
import { acquireSocket, releaseSocket } from '../lib/socket';

/** Pages of the current visit the panel keeps (the server sends at most as many). */
const MAX_PAGES = 50;

/**
 * The message center's visitor side panel (issue 16, "Visitor context beside the chat"): the
 * open visitor's context from GET /conversations/:visitorId/context, kept live by the socket
 * (current page, pages of this visit, name and email), and the team's edit of name/email.
 */
interface ContextState {
  visitorId: string | null;
  data: VisitorContextDto | null;
  loading: boolean;
  error: string;
  saving: boolean;
  saveErrors: FieldErrors;
  saveError: string;
  load: (visitorId: string | null) => Promise<void>;
  saveVisitor: (changes: { name?: string; email?: string }) => Promise<boolean>;
  clearSaveError: () => void;
  /** A note written here or pushed: newest first, once. */
  addNote: (note: MessageDto) => void;
  connect: () => () => void;
}

let loadSeq = 0;

export const useVisitorContext = create<ContextState>((set, get) => ({
  visitorId: null,
  data: null,
  loading: false,
  error: '',
  saving: false,
  saveErrors: {},
  saveError: '',

  load: async (visitorId) => {
    const seq = ++loadSeq;
    const same = visitorId !== null && visitorId === get().visitorId;
    set({ visitorId, ...(same ? {} : { data: null, saveErrors: {}, saveError: '' }), loading: visitorId !== null, error: '' });
    if (!visitorId) return;
    try {
      const data = await api.getData<VisitorContextDto>(`/api/vms/conversations/${encodeURIComponent(visitorId)}/context`);
      if (seq === loadSeq) set({ data });
    } catch (e) {
      if (seq !== loadSeq) return;
      // A visitor with nothing to show yet, or a server without the call: the panel says so.
      set({ error: e instanceof ApiError && e.status === 404 ? 'No details for this visitor' : errorText(e, 'Failed to load visitor details') });
    } finally {
      if (seq === loadSeq) set({ loading: false });
    }
  },

  saveVisitor: async (changes) => {
    const { visitorId, data } = get();
    if (!visitorId) return false;
    set({ saving: true, saveErrors: {}, saveError: '' });
    try {
      const visitor = unwrap<VisitorDto>(await request('PATCH', `/api/vms/conversations/${encodeURIComponent(visitorId)}/visitor`, changes));
      if (get().visitorId === visitorId && data) set((s) => (s.data ? { data: { ...s.data, visitor } } : {}));
      return true;
    } catch (e) {
      set({ saveErrors: e instanceof ApiError ? (e.errors ?? {}) : {}, saveError: errorText(e, 'Failed to save. Please try again.') });
      return false;
    } finally {
      set({ saving: false });
    }
  },

  clearSaveError: () => set({ saveErrors: {}, saveError: '' }),

  addNote: (note) =>
    set((s) =>
      s.data && s.visitorId === note.visitor_id && !s.data.notes.some((n) => n.id === note.id) ? { data: { ...s.data, notes: [note, ...s.data.notes] } } : {},
    ),

  connect: () => {
    const socket = acquireSocket();
    if (!socket) return () => undefined;
    const patchVisitor = (visitorId: string, patch: (d: VisitorContextDto) => VisitorContextDto) =>
      set((s) => (s.data && s.visitorId === visitorId ? { data: patch(s.data) } : {}));
    const onPage = (p: VisitorPresencePayload) => {
      if (!p?.visitor_id || !p.page_url) return;
      const url = p.page_url;
      patchVisitor(p.visitor_id, (d) => ({
        ...d,
        visitor: { ...d.visitor, current_page: url },
        // visitor.online repeats the current page: only a new one is a page view.
        pages: d.pages[0]?.url === url ? d.pages : [{ url, at: new Date().toISOString() }, ...d.pages].slice(0, MAX_PAGES),
      }));
    };
    const onConversation = (p: ConversationPayload) => {
      const c = p?.conversation;
      if (!c) return;
      // Just resolved: a new past stretch exists on the server.
      const held = get().data;
      if (c.visitor_id === get().visitorId && held && c.status === 'resolved' && c.resolved_at && held.past_conversations[0]?.resolved_at !== c.resolved_at) {
        void get().load(c.visitor_id);
        return;
      }
      patchVisitor(c.visitor_id, (d) =>
        d.visitor.name === c.visitor_name && d.visitor.email === c.visitor_email ? d : { ...d, visitor: { ...d.visitor, name: c.visitor_name, email: c.visitor_email } },
      );
    };
    const onMessage = (p: MessageCreatedPayload) => {
      if (p?.message?.sender_type === 'note') get().addNote(p.message);
    };
    // A reconnect may have missed page changes: read the panel again.
    const onConnect = () => {
      const id = get().visitorId;
      if (id && get().data) void get().load(id);
    };
    const handlers: [string, Parameters<typeof socket.on>[1]][] = [
      [EVENTS.visitorPage, onPage],
      [EVENTS.visitorOnline, onPage],
      [EVENTS.conversationUpdated, onConversation],
      [EVENTS.messageCreated, onMessage],
      ['connect', onConnect],
    ];
    for (const [event, fn] of handlers) socket.on(event, fn);
    return () => {
      for (const [event, fn] of handlers) socket.off(event, fn);
      releaseSocket();
    };
  },
}));
