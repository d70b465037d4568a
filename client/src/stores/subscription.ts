import type { PlanDto, SubscriptionDto, SubscriptionStatusDto, UserDto } from '@parley/shared';
import { create } from 'zustand';
import { ApiError, api } from '../lib/api';
import { toast } from './toasts';

/**
 * Plans, payment and subscription history (SPEC.md sections 2 "Subscription", 4 "Payment",
 * 8 "Subscription and payment"). These calls answer `{ status: 'success', ... }`.
 */
export type Verification = 'none' | 'verifying' | 'success' | 'failed';

interface StatusEnvelope {
  status?: string;
  message?: string;
  error?: string;
}

interface SubscriptionState {
  plans: PlanDto[];
  plansLoading: boolean;
  plansError: string;
  subscriptions: SubscriptionDto[];
  subsLoading: boolean;
  subsError: string;
  /** The next page's cursor of the history (null: all shown), its total, and a "Load more" in flight. */
  subsNext: string | null;
  subsTotal: number;
  subsMoreLoading: boolean;
  selected: PlanDto | null;
  paying: boolean;
  paymentError: string;
  verification: Verification;
  /** The owner's periods and scheduled change (GET /api/user/subscription). */
  status: SubscriptionStatusDto | null;
  statusError: string;
  /** A downgrade, cancel or "keep my plan" is being sent. */
  changing: boolean;
  loadPlans: () => Promise<void>;
  loadStatus: () => Promise<void>;
  /** Starter from the end of the period in force; true when done. */
  downgrade: (plan: PlanDto) => Promise<boolean>;
  cancel: () => Promise<boolean>;
  keepPlan: () => Promise<boolean>;
  loadSubscriptions: () => Promise<void>;
  /** The history's next page (issue 16: every list pages), appended. */
  loadMoreSubscriptions: () => Promise<void>;
  select: (plan: PlanDto | null) => void;
  initializePayment: (plan: PlanDto, user: Pick<UserDto, 'id' | 'email'>) => Promise<void>;
  /** Returns the activated subscription on success, null otherwise. */
  verify: (reference: string) => Promise<SubscriptionDto | null>;
}

/** The server's message, else its error field (SPEC.md: "server message preferred"). */
function serverText(e: unknown): string {
  return e instanceof ApiError ? e.message || e.error || '' : '';
}

type Setter = (patch: Partial<SubscriptionState>) => void;

/** Sends a plan change; the answer carries the new status, and its message is the toast. */
async function change(set: Setter, send: () => Promise<unknown>): Promise<boolean> {
  set({ changing: true });
  try {
    const body = (await send()) as StatusEnvelope & { data?: SubscriptionStatusDto };
    set({ changing: false, ...(body?.data ? { status: body.data } : {}) });
    if (body?.message) toast.success(body.message);
    return true;
  } catch (e) {
    toast.error(serverText(e) || 'The plan could not be changed. Please try again.');
    set({ changing: false });
    return false;
  }
}

/** Rows per page of the subscription history (one a paid month). */
export const HISTORY_PAGE = 12;

interface HistoryPage extends StatusEnvelope {
  data?: SubscriptionDto[];
  next_cursor?: string | null;
  total?: number;
}

export const useSubscription = create<SubscriptionState>((set, get) => ({
  plans: [],
  plansLoading: true,
  plansError: '',
  subscriptions: [],
  subsLoading: true,
  subsError: '',
  subsNext: null,
  subsTotal: 0,
  subsMoreLoading: false,
  selected: null,
  paying: false,
  paymentError: '',
  verification: 'none',
  status: null,
  statusError: '',
  changing: false,

  loadStatus: async () => {
    set({ statusError: '' });
    try {
      const body = await api.get<StatusEnvelope & { data?: SubscriptionStatusDto }>('/api/user/subscription');
      if (body?.status !== 'success' || !body.data) {
        set({ statusError: 'Failed to load your current plan' });
        return;
      }
      set({ status: body.data });
    } catch (e) {
      set({ statusError: serverText(e) || 'Failed to load your current plan' });
    }
  },

  downgrade: (plan) => change(set, () => api.post('/api/user/subscription/downgrade', { plan_id: plan.id })),
  cancel: () => change(set, () => api.post('/api/user/subscription/cancel', {})),
  keepPlan: () => change(set, () => api.delete('/api/user/subscription/scheduled-change')),

  loadPlans: async () => {
    set({ plansLoading: true, plansError: '' });
    try {
      const body = await api.get<StatusEnvelope & { data?: PlanDto[] }>('/api/plans');
      if (body?.status !== 'success' || !Array.isArray(body.data)) {
        set({ plansLoading: false, plansError: 'Failed to fetch plans' });
        return;
      }
      set({ plans: body.data, plansLoading: false });
    } catch (e) {
      const text = serverText(e) || 'Failed to fetch subscription plans';
      toast.error(text);
      set({ plansLoading: false, plansError: 'Failed to fetch subscription plans' });
    }
  },

  loadSubscriptions: async () => {
    set({ subsLoading: true, subsError: '' });
    try {
      const body = await api.get<HistoryPage>(`/api/user/subscriptions?limit=${HISTORY_PAGE}`);
      if (body?.status !== 'success' || !Array.isArray(body.data)) {
        set({ subsLoading: false, subsError: 'Failed to load subscriptions' });
        return;
      }
      set({ subscriptions: body.data, subsNext: body.next_cursor ?? null, subsTotal: body.total ?? body.data.length, subsLoading: false });
    } catch (e) {
      toast.error(serverText(e) || 'Failed to load subscription history');
      set({ subsLoading: false, subsError: 'Failed to load subscription history' });
    }
  },

  loadMoreSubscriptions: async () => {
    const { subsNext: cursor, subsMoreLoading } = get();
    if (!cursor || subsMoreLoading) return;
    set({ subsMoreLoading: true });
    try {
      const body = await api.get<HistoryPage>(`/api/user/subscriptions?limit=${HISTORY_PAGE}&cursor=${encodeURIComponent(cursor)}`);
      if (body?.status !== 'success' || !Array.isArray(body.data)) throw new Error('Failed to load more subscriptions');
      const known = new Set(get().subscriptions.map((s) => s.id));
      set({
        subscriptions: [...get().subscriptions, ...body.data.filter((s) => !known.has(s.id))],
        subsNext: body.next_cursor ?? null,
        subsTotal: body.total ?? get().subsTotal,
        subsMoreLoading: false,
      });
    } catch (e) {
      toast.error(serverText(e) || 'Failed to load more subscription history');
      set({ subsMoreLoading: false });
    }
  },

  select: (plan) => set({ selected: plan, paymentError: '' }),

  initializePayment: async (plan, user) => {
    set({ paying: true, paymentError: '' });
    try {
      const body = await api.post<StatusEnvelope & { authorization_url?: string }>('/api/initialize-payment', {
        plan_id: plan.id,
        email: user.email,
        user_id: user.id,
      });
      if (body?.status !== 'success' || typeof body.authorization_url !== 'string' || !body.authorization_url) {
        toast.error('Payment initialization failed');
        set({ paying: false, paymentError: 'Payment initialization failed' });
        return;
      }
      // Stay 'paying' while the browser leaves for the provider's page.
      window.location.assign(body.authorization_url);
    } catch (e) {
      const text =
        (e instanceof ApiError && (e.message || e.error)) ||
        (e instanceof Error && e.message) ||
        'An error occurred during payment initialization.';
      toast.error(text);
      set({ paying: false, paymentError: text });
    }
  },

  verify: async (reference) => {
    set({ verification: 'verifying' });
    try {
      const body = await api.get<StatusEnvelope & { subscription?: SubscriptionDto }>(`/api/verify-payment/${encodeURIComponent(reference)}`);
      if (body?.status !== 'success') {
        toast.error('Payment verification failed');
        set({ verification: 'failed' });
        return null;
      }
      toast.success('Payment successful! Your subscription is now active.');
      set({ verification: 'success' });
      return body.subscription ?? null;
    } catch (e) {
      toast.error(serverText(e) || 'Payment verification error');
      set({ verification: 'failed' });
      return null;
    }
  },
}));
