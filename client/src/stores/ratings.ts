import type { RatingSummaryDto, StatsRange } from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';

/** Issue 13: the satisfaction survey switch and the ratings' averages. Actions throw ApiError. */
interface RatingsState {
  summary: RatingSummaryDto | null;
  loadSummary: (range: StatsRange) => Promise<void>;
  setEnabled: (enabled: boolean) => Promise<void>;
}

export const useRatings = create<RatingsState>((set, get) => ({
  summary: null,
  loadSummary: async (range) => {
    set({ summary: unwrap<RatingSummaryDto>(await api.get('/api/vms/ratings/summary', { query: { range } })) });
  },
  setEnabled: async (enabled) => {
    const data = unwrap<{ enabled: boolean }>(await api.put('/api/vms/ratings/settings', { enabled }));
    const summary = get().summary;
    if (summary) set({ summary: { ...summary, enabled: data.enabled } });
  },
}));
