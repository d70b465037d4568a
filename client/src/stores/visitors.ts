import type { VisitorDto } from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';

/** Visitors list (GET /api/vms/visitor), shared by the visitors page and the dashboard. */
interface VisitorsState {
  visitors: VisitorDto[];
  loading: boolean;
  loaded: boolean;
  error: string;
  load: () => Promise<void>;
}

export const useVisitors = create<VisitorsState>((set, get) => ({
  visitors: [],
  loading: false,
  loaded: false,
  error: '',
  load: async () => {
    set({ loading: !get().loaded, error: '' });
    try {
      const list = unwrap<VisitorDto[]>(await api.get('/api/vms/visitor'));
      set({ visitors: Array.isArray(list) ? list : [], loaded: true });
    } catch (e) {
      console.error('Failed to load visitors', e);
      set({ error: 'Failed to load visitors. Please try again.' });
    } finally {
      set({ loading: false });
    }
  },
}));

/** Number of distinct non-empty countries. */
export function countCountries(list: VisitorDto[]): number {
  return new Set(list.map((v) => v.country?.trim()).filter(Boolean)).size;
}
