import { create } from 'zustand';
import type { CannedReplyDto, ConversationDto, LabelDto, MessageDto } from '@parley/shared';
import { api, request, unwrap } from '../lib/api';
import { mergeMessages, newClientId } from './conversationLogic';
import { useConversations } from './conversations';

/**
 * Issue 16 "Working faster": the account's canned replies and labels, the list's label filter,
 * and the calls that label a conversation or add a private note. What a call changes in the
 * message center is written into the conversations store, so the screen has one source.
 */
interface InboxState {
  cannedReplies: CannedReplyDto[];
  labels: LabelDto[];
  loaded: boolean;
  loadError: string;
  /** The message center shows only conversations with this label (null: all). */
  labelFilter: number | null;

  load: (force?: boolean) => Promise<void>;
  setLabelFilter: (id: number | null) => void;
  saveCannedReply: (input: { title: string; text: string; shortcut: string }, id?: number) => Promise<CannedReplyDto>;
  deleteCannedReply: (id: number) => Promise<void>;
  saveLabel: (input: { name: string; color: string }, id?: number) => Promise<LabelDto>;
  deleteLabel: (id: number) => Promise<void>;
  setConversationLabels: (visitorId: string, labelIds: number[]) => Promise<ConversationDto>;
  sendNote: (visitorId: string, text: string) => Promise<MessageDto>;
}

const byShortcut = (a: CannedReplyDto, b: CannedReplyDto) => a.shortcut.localeCompare(b.shortcut);
const byName = (a: LabelDto, b: LabelDto) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;
const upsert = <T extends { id: number }>(list: T[], item: T) => [...list.filter((x) => x.id !== item.id), item];

/** Puts a conversation's new labels into the message center's list. */
function showLabels(visitorId: string, labels: LabelDto[]) {
  useConversations.setState((s) => ({
    conversations: s.conversations.map((c) => (c.visitor_id === visitorId ? { ...c, labels } : c)),
    current: s.current?.visitor_id === visitorId ? { ...s.current, labels } : s.current,
  }));
}

export const useInbox = create<InboxState>((set, get) => ({
  cannedReplies: [],
  labels: [],
  loaded: false,
  loadError: '',
  labelFilter: null,

  load: async (force = false) => {
    if (get().loaded && !force) return;
    try {
      const [canned, labels] = await Promise.all([api.getData<CannedReplyDto[]>('/api/vms/canned-replies'), api.getData<LabelDto[]>('/api/vms/labels')]);
      set({ cannedReplies: [...canned].sort(byShortcut), labels: [...labels].sort(byName), loaded: true, loadError: '' });
    } catch (e) {
      console.error('Failed to load canned replies and labels', e);
      set({ loadError: 'Failed to load canned replies and labels. Please try again.' });
    }
  },

  setLabelFilter: (id) => {
    set({ labelFilter: id });
    void useConversations.getState().loadConversations('reset');
  },

  saveCannedReply: async (input, id) => {
    const saved = unwrap<CannedReplyDto>(id === undefined ? await api.post('/api/vms/canned-replies', input) : await request('PATCH', `/api/vms/canned-replies/${id}`, input));
    set((s) => ({ cannedReplies: upsert(s.cannedReplies, saved).sort(byShortcut) }));
    return saved;
  },

  deleteCannedReply: async (id) => {
    await api.delete(`/api/vms/canned-replies/${id}`);
    set((s) => ({ cannedReplies: s.cannedReplies.filter((r) => r.id !== id) }));
  },

  saveLabel: async (input, id) => {
    const saved = unwrap<LabelDto>(id === undefined ? await api.post('/api/vms/labels', input) : await request('PATCH', `/api/vms/labels/${id}`, input));
    set((s) => ({ labels: upsert(s.labels, saved).sort(byName) }));
    return saved;
  },

  deleteLabel: async (id) => {
    await api.delete(`/api/vms/labels/${id}`);
    set((s) => ({ labels: s.labels.filter((l) => l.id !== id), labelFilter: s.labelFilter === id ? null : s.labelFilter }));
    // Conversations lose the label on the server: drop it from what is shown.
    useConversations.setState((s) => ({ conversations: s.conversations.map((c) => (c.labels?.some((l) => l.id === id) ? { ...c, labels: c.labels.filter((l) => l.id !== id) } : c)) }));
  },

  setConversationLabels: async (visitorId, labelIds) => {
    const conversation = unwrap<ConversationDto>(await api.put(`/api/vms/conversations/${encodeURIComponent(visitorId)}/labels`, { label_ids: labelIds }));
    showLabels(visitorId, conversation.labels ?? []);
    return conversation;
  },

  sendNote: async (visitorId, text) => {
    const body = { message: text, client_id: newClientId() };
    const note = unwrap<MessageDto>(await api.post(`/api/vms/conversations/${encodeURIComponent(visitorId)}/notes`, body));
    useConversations.setState((s) => {
      const held = s.messagesByVisitor[visitorId];
      return held ? { messagesByVisitor: { ...s.messagesByVisitor, [visitorId]: mergeMessages(held, [note]) } } : {};
    });
    return note;
  },
}));
