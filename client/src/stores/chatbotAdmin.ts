import {
  AI_NEEDS_PROFESSIONAL,
  type AiSettingsInput,
  type KnowledgeChangeInput,
  type KnowledgeDto,
  type KnowledgeStatus,
  type PendingFeedbackDto,
} from '@parley/shared';

export type { KnowledgeStatus };
import { create } from 'zustand';
import { api, errorText, request } from '../lib/api';

/**
 * The owner's side of the AI Chatbot screen: auto-answer settings with their figures, the plan's
 * gate, the review queue of learned knowledge and Agents' feedback waiting for confirmation.
 * Whether the user may change anything comes from the server (`can_manage`).
 */
export interface AiSettings {
  auto_answer_enabled: boolean;
  threshold: number;
  auto_approve: boolean;
}

export interface AiFigures {
  answers_given: number;
  handovers: number;
  /** Percentage, null when nothing was rated. */
  accuracy: number | null;
  rated_answers: number;
  /** Issue 17: widget visitors' "Was this helpful?" votes (shown only; they re-weight nothing). */
  visitor_helpful?: number;
  visitor_not_helpful?: number;
}

export interface PlanGate {
  ai_available: boolean;
  message: string | null;
}

export type KnowledgeItem = KnowledgeDto;

export type PendingFeedback = PendingFeedbackDto;

export interface ReviewCounts {
  pending: number;
  approved: number;
  rejected: number;
  pending_feedback: number;
}

interface Page<T> {
  message?: string;
  data?: T[];
  next_cursor?: string | null;
  total?: number;
  counts?: ReviewCounts;
}

interface AiAdminState {
  status: 'loading' | 'error' | 'ready';
  error: string;
  settings: AiSettings | null;
  figures: AiFigures | null;
  plan: PlanGate | null;
  canManage: boolean;
  counts: ReviewCounts | null;
  loadSettings: () => Promise<void>;
  /** The error text, or '' when saved. */
  saveSettings: (patch: AiSettingsInput) => Promise<string>;

  queueStatus: KnowledgeStatus;
  items: KnowledgeItem[];
  nextCursor: string | null;
  queueLoading: boolean;
  queueError: string;
  loadQueue: (status: KnowledgeStatus) => Promise<void>;
  loadMore: () => Promise<void>;
  /** The error text, or '' when done. */
  review: (id: number, change: KnowledgeChangeInput) => Promise<string>;

  feedback: PendingFeedback[];
  feedbackCursor: string | null;
  loadFeedback: (more?: boolean) => Promise<void>;
  decideFeedback: (messageId: number, decision: 'confirm' | 'dismiss') => Promise<string>;
}

const LOAD_ERROR = 'Failed to load the assistant settings. Please try again.';
const QUEUE_ERROR = 'Failed to load learned knowledge. Please try again.';
const SAVE_ERROR = 'Failed to save. Please try again.';
const PAGE = 20;

export const useAiAdmin = create<AiAdminState>((set, get) => ({
  status: 'loading',
  error: '',
  settings: null,
  figures: null,
  plan: null,
  canManage: false,
  counts: null,

  loadSettings: async () => {
    try {
      const body = await api.get<{ message?: string; data?: AiSettings; figures?: AiFigures; plan?: PlanGate; can_manage?: boolean; review?: ReviewCounts }>(
        '/api/chatbot/settings',
      );
      if (body?.message !== 'success' || !body.data) throw new Error('Unexpected response format');
      set({
        status: 'ready',
        error: '',
        settings: body.data,
        figures: body.figures ?? null,
        plan: body.plan ?? null,
        canManage: body.can_manage === true,
        counts: body.review ?? null,
      });
    } catch (e) {
      console.error('AI settings failed', e);
      set({ status: 'error', error: LOAD_ERROR });
    }
  },

  saveSettings: async (patch) => {
    try {
      const body = await api.post<{ data?: AiSettings }>('/api/chatbot/settings', patch);
      if (body?.data) set({ settings: body.data });
      return '';
    } catch (e) {
      return errorText(e, SAVE_ERROR);
    }
  },

  queueStatus: 'pending',
  items: [],
  nextCursor: null,
  queueLoading: false,
  queueError: '',

  loadQueue: async (status) => {
    set({ queueStatus: status, queueLoading: true, queueError: '', items: [], nextCursor: null });
    try {
      const body = await api.get<Page<KnowledgeItem>>('/api/chatbot/knowledge', { query: { status, limit: PAGE } });
      if (get().queueStatus !== status) return;
      set({ items: body.data ?? [], nextCursor: body.next_cursor ?? null, counts: body.counts ?? get().counts, queueLoading: false });
    } catch (e) {
      set({ queueLoading: false, queueError: errorText(e, QUEUE_ERROR) });
    }
  },

  loadMore: async () => {
    const { nextCursor, queueStatus, queueLoading } = get();
    if (!nextCursor || queueLoading) return;
    set({ queueLoading: true });
    try {
      const body = await api.get<Page<KnowledgeItem>>('/api/chatbot/knowledge', { query: { status: queueStatus, limit: PAGE, cursor: nextCursor } });
      const known = new Set(get().items.map((i) => i.id));
      set({ items: [...get().items, ...(body.data ?? []).filter((i) => !known.has(i.id))], nextCursor: body.next_cursor ?? null, queueLoading: false });
    } catch (e) {
      set({ queueLoading: false, queueError: errorText(e, QUEUE_ERROR) });
    }
  },

  review: async (id, change) => {
    try {
      const body = await request<{ data?: KnowledgeItem }>('PATCH', `/api/chatbot/knowledge/${id}`, change);
      const updated = body?.data;
      const { queueStatus, items, counts } = get();
      const before = items.find((i) => i.id === id);
      // An item that leaves the list being shown (approved from Pending...) disappears from it.
      const next = updated && updated.status === queueStatus ? items.map((i) => (i.id === id ? updated : i)) : items.filter((i) => i.id !== id);
      let nextCounts = counts;
      if (counts && before && updated && before.status !== updated.status) {
        nextCounts = { ...counts, [before.status]: Math.max(0, counts[before.status] - 1), [updated.status]: counts[updated.status] + 1 };
      }
      set({ items: next, counts: nextCounts });
      return '';
    } catch (e) {
      return errorText(e, SAVE_ERROR);
    }
  },

  feedback: [],
  feedbackCursor: null,
  loadFeedback: async (more = false) => {
    try {
      const cursor = more ? get().feedbackCursor : null;
      const body = await api.get<Page<PendingFeedback>>('/api/chatbot/feedback', { query: { limit: PAGE, cursor } });
      set({ feedback: more ? [...get().feedback, ...(body.data ?? [])] : (body.data ?? []), feedbackCursor: body.next_cursor ?? null });
    } catch (e) {
      console.error('Pending feedback failed', e);
    }
  },

  decideFeedback: async (messageId, decision) => {
    try {
      await api.post(`/api/chatbot/feedback/${messageId}`, { decision });
      const counts = get().counts;
      set({
        feedback: get().feedback.filter((f) => f.message_id !== messageId),
        counts: counts ? { ...counts, pending_feedback: Math.max(0, counts.pending_feedback - 1) } : counts,
      });
      return '';
    } catch (e) {
      return errorText(e, SAVE_ERROR);
    }
  },
}));

/** Whether an error text is the plan's gate (the server's 403 for Starter). */
export const isPlanGate = (text: string) => text === AI_NEEDS_PROFESSIONAL;
