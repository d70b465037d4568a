import { create } from 'zustand';
import {
  type ConversationDto,
  type ConversationPayload,
  EVENTS,
  type MessageCreatedPayload,
  type MessageDto,
  type TypingPayload,
  type VisitorPresencePayload,
} from '@parley/shared';
import { api, formData, unwrap } from '../lib/api';
import { acquireSocket, releaseSocket } from '../lib/socket';
import { useAuth } from './auth';
import { type ChatMessage, lastConfirmedId, mergeConversations, mergeMessages, newClientId, upsertConversation } from './conversationLogic';

export type { ChatMessage } from './conversationLogic';

/**
 * Message center state (SPEC.md sections 4, 7, 8; PRODUCT.md section 5): conversations,
 * the selected visitor's messages, live socket events, with the 10 s REST poll as fallback.
 * Both paths merge by id, so a message is never shown twice.
 */
interface ConversationsState {
  conversations: ConversationDto[];
  convLoading: boolean;
  convLoaded: boolean;
  convError: string;
  selectedId: string | null;
  messagesByVisitor: Record<string, ChatMessage[]>;
  messagesLoading: boolean;
  messagesError: string;
  sendError: string;
  typing: Record<string, boolean>;
  online: Record<string, boolean>;
  search: string;
  live: boolean;
  /** The user whose data this is; another sign-in resets the store. */
  ownerId: number | null;

  loadConversations: () => Promise<void>;
  select: (visitorId: string | null) => void;
  loadMessages: (visitorId: string, mode: 'initial' | 'poll' | 'reload') => Promise<void>;
  send: (text: string, image: File | null) => Promise<boolean>;
  setSearch: (q: string) => void;
  clearSendError: () => void;
  sendTyping: (typing: boolean) => void;
  /** Connect live events; returns the disconnect function. */
  connect: () => () => void;
  reset: (ownerId: number | null) => void;
}

let tempSeq = -1;
/** Per visitor, the server's next_cursor: polls and catch-ups ask only for what committed since (commit-safe). */
const cursors = new Map<string, string>();
const typingTimers = new Map<string, ReturnType<typeof setTimeout>>();

export const useConversations = create<ConversationsState>((set, get) => {
  const setMessages = (visitorId: string, update: (held: ChatMessage[]) => ChatMessage[]) =>
    set((s) => ({ messagesByVisitor: { ...s.messagesByVisitor, [visitorId]: update(s.messagesByVisitor[visitorId] ?? []) } }));

  const markSeen = (visitorId: string, lastId: number | undefined) => {
    if (lastId === undefined || document.visibilityState !== 'visible') return;
    const s = acquireSocketIfLive();
    s?.emit(EVENTS.messageSeen, { visitor_id: visitorId, last_id: lastId }, () => undefined);
  };

  let liveSocket: ReturnType<typeof acquireSocket> = null;
  const acquireSocketIfLive = () => (liveSocket?.connected ? liveSocket : null);

  return {
    conversations: [],
    convLoading: false,
    convLoaded: false,
    convError: '',
    selectedId: null,
    messagesByVisitor: {},
    messagesLoading: false,
    messagesError: '',
    sendError: '',
    typing: {},
    online: {},
    search: '',
    live: false,
    ownerId: null,

    loadConversations: async () => {
      const first = !get().convLoaded;
      if (first) set({ convLoading: true });
      try {
        const list = unwrap<ConversationDto[]>(await api.get('/api/vms/conversations'));
        set({ conversations: mergeConversations(Array.isArray(list) ? list : []), convError: '', convLoaded: true });
      } catch (e) {
        console.error('Failed to load conversations', e);
        set({ convError: 'Failed to load conversations. Please try again.' });
      } finally {
        if (first) set({ convLoading: false });
      }
    },

    select: (visitorId) => {
      if (visitorId === get().selectedId) return;
      set({ selectedId: visitorId, messagesError: '', sendError: '' });
      if (!visitorId) return;
      // Opening a conversation clears its unread badge (the first load marks it read server-side).
      set((s) => ({ conversations: s.conversations.map((c) => (c.visitor_id === visitorId ? { ...c, unread_count: 0 } : c)) }));
      void get().loadMessages(visitorId, 'initial');
    },

    loadMessages: async (visitorId, mode) => {
      const held = get().messagesByVisitor[visitorId];
      if (mode === 'initial') set({ messagesLoading: !held, messagesError: '' });
      // A poll or a catch-up asks for what committed since the last answer; without a cursor
      // yet, a poll falls back to since_id and a reload to the full list.
      const cursor = mode === 'initial' ? undefined : cursors.get(visitorId);
      const sinceId = mode === 'poll' && !cursor ? lastConfirmedId(held ?? []) : undefined;
      try {
        const body = await api.get(`/api/vms/messages/${encodeURIComponent(visitorId)}`, { query: { cursor, since_id: sinceId } });
        const list = unwrap<MessageDto[]>(body);
        const incoming: ChatMessage[] = Array.isArray(list) ? list : [];
        const next = (body as { next_cursor?: unknown } | null)?.next_cursor;
        if (typeof next === 'string') cursors.set(visitorId, next);
        if (cursor || (mode === 'poll' && sinceId !== undefined)) setMessages(visitorId, (h) => mergeMessages(h, incoming));
        else {
          // First load / reload replaces the list, keeping sends still in flight.
          setMessages(visitorId, (h) => mergeMessages(h.filter((m) => m.pending), incoming));
        }
        if (get().selectedId === visitorId) set({ messagesError: '' });
      } catch (e) {
        console.error('Failed to load messages', e);
        if (get().selectedId === visitorId && mode !== 'poll') set({ messagesError: 'Failed to load messages. Please try again.' });
      } finally {
        if (mode === 'initial') set({ messagesLoading: false });
      }
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
        const body = await api.post('/api/vms/messages', formData({ message: text || undefined, image: image ?? undefined, visitor_id: visitorId, client_id: clientId }));
        const stored = unwrap<MessageDto>(body);
        if (stored && typeof stored === 'object' && 'id' in stored) setMessages(visitorId, (h) => mergeMessages(h, [stored]));
        void get().loadMessages(visitorId, 'reload');
        void get().loadConversations();
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

    setSearch: (q) => set({ search: q }),
    clearSendError: () => set({ sendError: '' }),

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
      // died, Redis came back): reload what is on screen and merge by id (PRODUCT.md section 5).
      // Since the commit-safe cursor, not since the last id: a lost push may be older than the
      // newest one seen.
      const catchUp = () => {
        void get().loadConversations();
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
        if (p.conversation) {
          const isOpen = get().selectedId === m.visitor_id;
          const conv = isOpen ? { ...p.conversation, unread_count: 0 } : p.conversation;
          set((s) => ({ conversations: upsertConversation(s.conversations, conv) }));
        }
        if (get().messagesByVisitor[m.visitor_id]) setMessages(m.visitor_id, (h) => mergeMessages(h, [m]));
        if (m.sender_type === 'visitor') set((s) => ({ typing: { ...s.typing, [m.visitor_id]: false } }));
        if (get().selectedId === m.visitor_id && m.sender_type !== 'user') markSeen(m.visitor_id, m.id);
      };
      const onConversation = (p: ConversationPayload) => {
        if (!p?.conversation) return;
        const c = p.conversation;
        const conv = get().selectedId === c.visitor_id ? { ...c, unread_count: 0 } : c;
        set((s) => ({ conversations: upsertConversation(s.conversations, conv) }));
      };
      const onTyping = (p: TypingPayload) => {
        if (!p?.visitor_id || p.from === 'agent') return;
        const id = p.visitor_id;
        set((s) => ({ typing: { ...s.typing, [id]: Boolean(p.typing) } }));
        clearTimeout(typingTimers.get(id));
        // A lost "stopped typing" must not leave the indicator on forever.
        if (p.typing) typingTimers.set(id, setTimeout(() => set((s) => ({ typing: { ...s.typing, [id]: false } })), 6000));
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
      ];
      for (const [event, fn] of handlers) socket.on(event, fn);
      if (socket.connected) set({ live: true });

      return () => {
        for (const [event, fn] of handlers) socket.off(event, fn);
        liveSocket = null;
        set({ live: false });
        releaseSocket();
      };
    },

    reset: (ownerId) => {
      cursors.clear();
      set({ ownerId, conversations: [], convLoaded: false, convError: '', selectedId: null, messagesByVisitor: {}, messagesError: '', sendError: '', typing: {}, online: {}, search: '' });
    },
  };
});
