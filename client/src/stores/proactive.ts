import type { TriggerDto, TriggerInput } from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';

/** Issue 13: the account's proactive messages. Actions throw ApiError. */
interface ProactiveState {
  triggers: TriggerDto[];
  load: () => Promise<void>;
  save: (input: TriggerInput, id?: number) => Promise<void>;
  remove: (id: number) => Promise<void>;
}

export const useProactive = create<ProactiveState>((set, get) => ({
  triggers: [],
  load: async () => set({ triggers: unwrap<TriggerDto[]>(await api.get('/api/vms/triggers')) }),
  save: async (input, id) => {
    const saved = unwrap<TriggerDto>(id === undefined ? await api.post('/api/vms/triggers', input) : await api.put(`/api/vms/triggers/${id}`, input));
    const rest = get().triggers.filter((t) => t.id !== saved.id);
    set({ triggers: [...rest, saved].sort((a, b) => a.id - b.id) });
  },
  remove: async (id) => {
    await api.delete(`/api/vms/triggers/${id}`);
    set({ triggers: get().triggers.filter((t) => t.id !== id) });
  },
}));
