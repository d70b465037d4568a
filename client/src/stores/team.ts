import type { AddMemberInput, TeamMemberDto } from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';

export interface Role {
  id: number;
  name: string;
}
export interface AssignableUser {
  id: string;
  name: string;
}

/** Team management (SPEC.md sections 4 "Team" and 7). Actions throw ApiError to the screen. */
interface TeamState {
  members: TeamMemberDto[];
  roles: Role[];
  users: AssignableUser[];
  loading: boolean;
  error: string;
  load: () => Promise<void>;
  loadUsers: () => Promise<void>;
  add: (input: AddMemberInput) => Promise<TeamMemberDto>;
  assign: (memberId: number, userIds: string[]) => Promise<TeamMemberDto>;
  remove: (memberId: number) => Promise<void>;
}

export const useTeam = create<TeamState>((set, get) => ({
  members: [],
  roles: [],
  users: [],
  loading: false,
  error: '',

  load: async () => {
    set({ loading: true, error: '' });
    try {
      const body = await api.get<{ message: string; data: TeamMemberDto[]; roles?: Role[] }>('/api/vms/team');
      const members = unwrap<TeamMemberDto[]>(body);
      set({ members: Array.isArray(members) ? members : [], roles: Array.isArray(body.roles) ? body.roles : [] });
    } catch (e) {
      console.error('Failed to load team', e);
      set({ error: 'Failed to load team. Please try again.' });
    } finally {
      set({ loading: false });
    }
  },

  loadUsers: async () => {
    try {
      const users = unwrap<AssignableUser[]>(await api.get('/api/vms/users'));
      set({ users: Array.isArray(users) ? users : [] });
    } catch (e) {
      console.error('Failed to load users', e);
    }
  },

  add: async (input) => {
    const member = unwrap<TeamMemberDto>(await api.post('/api/vms/team', input));
    set({ members: [...get().members, member] });
    return member;
  },

  assign: async (memberId, userIds) => {
    const member = unwrap<TeamMemberDto>(await api.post(`/api/vms/team/${memberId}/assign`, { user_ids: userIds }));
    set({ members: get().members.map((m) => (m.id === memberId ? member : m)) });
    return member;
  },

  remove: async (memberId) => {
    unwrap(await api.delete(`/api/vms/team/${memberId}`));
    set({ members: get().members.filter((m) => m.id !== memberId) });
  },
}));
