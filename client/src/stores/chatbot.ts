import type { ChatbotSourceDto } from '@parley/shared';
import { create } from 'zustand';
import { api, errorText, formData } from '../lib/api';

/**
 * The Neural AI Chatbot screen's data (SPEC.md sections 3, 4 "Chatbot", 7 and 8).
 * States: loading, error, then empty or populated; `sending` disables the composer.
 */
export type FeedbackValue = 'helpful' | 'partially_helpful' | 'not_helpful';

const FEEDBACK_VALUES: FeedbackValue[] = ['helpful', 'partially_helpful', 'not_helpful'];

export interface ChatbotMessage {
  id: number | string;
  sender_type: 'user' | 'bot';
  content: string;
  file_path: string;
  confidence_score: number | null;
  intent_detected: string | null;
  created_at: string;
  /** The rating already given to a bot message, if the server sends it. */
  feedback: FeedbackValue | null;
  /** Issue 17: where the answer came from (page title + link, or document name); [] when not from a source. */
  sources: ChatbotSourceDto[];
}

export interface LearningProgress {
  total_interactions: number;
  learned_patterns: number;
  /** 0 to 1. */
  average_confidence: number;
  /** Percentage. */
  learning_efficiency: number;
}

interface ChatbotEnvelope {
  message?: string;
  data?: unknown;
  suggestions?: unknown;
  ai_learning_progress?: unknown;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);

function toSources(v: unknown): ChatbotSourceDto[] {
  if (!Array.isArray(v)) return [];
  return v.filter((s): s is ChatbotSourceDto => !!s && typeof s === 'object' && typeof (s as ChatbotSourceDto).title === 'string');
}

function toMessage(raw: unknown): ChatbotMessage | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (r.id === undefined || r.id === null) return null;
  return {
    id: r.id as number | string,
    sender_type: r.sender_type === 'user' ? 'user' : 'bot',
    content: typeof r.content === 'string' ? r.content : '',
    file_path: typeof r.file_path === 'string' ? r.file_path : '',
    confidence_score: typeof r.confidence_score === 'number' ? r.confidence_score : r.confidence_score == null ? null : num(r.confidence_score),
    intent_detected: typeof r.intent_detected === 'string' ? r.intent_detected : null,
    created_at: typeof r.created_at === 'string' ? r.created_at : '',
    feedback: FEEDBACK_VALUES.includes(r.feedback as FeedbackValue) ? (r.feedback as FeedbackValue) : null,
    sources: toSources(r.sources),
  };
}

const toMessages = (v: unknown): ChatbotMessage[] => (Array.isArray(v) ? v.map(toMessage).filter((m): m is ChatbotMessage => m !== null) : []);
const toSuggestions = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : []);

export function toProgress(v: unknown): LearningProgress | null {
  if (!v || typeof v !== 'object') return null;
  const r = v as Record<string, unknown>;
  return {
    total_interactions: num(r.total_interactions),
    learned_patterns: num(r.learned_patterns),
    average_confidence: num(r.average_confidence),
    learning_efficiency: num(r.learning_efficiency),
  };
}

interface ChatbotState {
  status: 'loading' | 'error' | 'ready';
  error: string;
  messages: ChatbotMessage[];
  suggestions: string[];
  progress: LearningProgress | null;
  sending: boolean;
  sendError: string;
  feedback: Record<string, FeedbackValue>;
  insights: LearningProgress | null;
  insightsLoading: boolean;
  loadHistory: () => Promise<void>;
  /** True when the message was stored (the caller then clears its input). */
  send: (text: string, image: File | null) => Promise<boolean>;
  sendFeedback: (messageId: ChatbotMessage['id'], value: FeedbackValue) => Promise<void>;
  loadInsights: () => Promise<void>;
  clearSendError: () => void;
}

const HISTORY_ERROR = 'Failed to load chat history. Please try again.';
const SEND_ERROR = 'Failed to send message. Please try again.';

export const useChatbot = create<ChatbotState>((set, get) => ({
  status: 'loading',
  error: '',
  messages: [],
  suggestions: [],
  progress: null,
  sending: false,
  sendError: '',
  feedback: {},
  insights: null,
  insightsLoading: false,

  loadHistory: async () => {
    set({ status: 'loading', error: '' });
    try {
      const body = await api.get<ChatbotEnvelope>('/api/chatbot/history');
      if (body?.message !== 'success' || !Array.isArray(body.data)) throw new Error('Unexpected response format');
      const messages = toMessages(body.data);
      const feedback: Record<string, FeedbackValue> = {};
      for (const m of messages) if (m.feedback) feedback[String(m.id)] = m.feedback;
      set({
        status: 'ready',
        feedback,
        messages,
        suggestions: toSuggestions(body.suggestions),
        progress: toProgress(body.ai_learning_progress) ?? get().progress,
      });
    } catch (e) {
      console.error(e);
      set({ status: 'error', error: HISTORY_ERROR });
    }
  },

  send: async (text, image) => {
    const message = text.trim();
    if ((!message && !image) || get().sending) return false;
    set({ sending: true, sendError: '' });
    try {
      const body = await api.post<ChatbotEnvelope>('/api/chatbot/message', formData({ message: message || undefined, image: image ?? undefined }));
      if (body?.message !== 'success') throw new Error('Unexpected response format');
      const added = toMessages(Array.isArray(body.data) ? body.data : [body.data]);
      const known = new Set(get().messages.map((m) => String(m.id)));
      set({
        sending: false,
        status: 'ready',
        messages: [...get().messages, ...added.filter((m) => !known.has(String(m.id)))],
        suggestions: toSuggestions(body.suggestions),
        progress: toProgress(body.ai_learning_progress) ?? get().progress,
      });
      return true;
    } catch (e) {
      console.error(e);
      // The server's own words (e.g. the plan's gate, or who may teach), else the generic text.
      set({ sending: false, sendError: errorText(e, SEND_ERROR) });
      return false;
    }
  },

  sendFeedback: async (messageId, value) => {
    // One of three per bot message, shown at once; a failure is only logged (SPEC.md section 8).
    set({ feedback: { ...get().feedback, [String(messageId)]: value } });
    try {
      await api.post('/api/chatbot/message', formData({ feedback: value, message_id: String(messageId) }));
    } catch (e) {
      console.error('Feedback failed', e);
    }
  },

  loadInsights: async () => {
    set({ insightsLoading: true });
    try {
      const body = await api.get<{ message?: string; insights?: { learning_progress?: unknown } }>('/api/chatbot/insights');
      if (body?.message !== 'success') throw new Error('Unexpected response format');
      set({ insights: toProgress(body.insights?.learning_progress), insightsLoading: false });
    } catch (e) {
      console.error('Insights failed', e);
      set({ insightsLoading: false });
    }
  },

  clearSendError: () => set({ sendError: '' }),
}));
