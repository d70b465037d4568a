import type { AddMemberInput, AssignableUserPage, TeamMemberDto, TeamMemberListDto } from '@parley/shared';
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

const USERS_PAGE = 50;
const ASSIGNMENTS_PAGE = 100;

async function fetchUsers(path: string, q: string, cursor: string | null, limit = USERS_PAGE): Promise<AssignableUserPage> {
  const params = new URLSearchParams({ limit: String(limit) });
  if (q.trim()) params.set('q', q.trim());
  if (cursor) params.set('cursor', cursor);
  const body = await api.get<AssignableUserPage>(`${path}?${params}`);
  unwrap(body);
  return { ...body, data: Array.isArray(body.data) ? body.data : [] };
}

/** Team management (SPEC.md sections 4 "Team" and 7). Actions throw ApiError to the screen. */
interface TeamState {
  /** `assigned_users` is a preview (the newest few); `assigned_count` counts them all (issue 16). */
  members: (TeamMemberDto & Partial<Pick<TeamMemberListDto, 'assigned_count'>>)[];
  roles: Role[];
  /** The website users loaded so far (pages of USERS_PAGE, newest conversation first), for `usersQuery`. */
  users: AssignableUser[];
  usersQuery: string;
  usersNext: string | null;
  usersTotal: number;
  usersLoading: boolean;
  loading: boolean;
  error: string;
  load: () => Promise<void>;
  /** First page of website users matching `q` (name/email words). */
  loadUsers: (q?: string) => Promise<void>;
  loadMoreUsers: () => Promise<void>;
  /** Every website user assigned to the member (all pages): the dialog edits the whole set. */
  loadAssignments: (memberId: number) => Promise<AssignableUser[]>;
  add: (input: AddMemberInput) => Promise<TeamMemberDto>;
  assign: (memberId: number, userIds: string[]) => Promise<TeamMemberDto>;
  remove: (memberId: number) => Promise<void>;
}

export const useTeam = create<TeamState>((set, get) => ({
  members: [],
  roles: [],
  users: [],
  usersQuery: '',
  usersNext: null,
  usersTotal: 0,
  usersLoading: false,
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

  loadUsers: async (q = '') => {
    set({ usersQuery: q, usersLoading: true });
    try {
      const page = await fetchUsers('/api/vms/users', q, null);
      if (get().usersQuery !== q) return; // a newer search replaced this one
      set({ users: page.data, usersNext: page.next_cursor, usersTotal: page.total });
    } catch (e) {
      console.error('Failed to load users', e);
    } finally {
      if (get().usersQuery === q) set({ usersLoading: false });
    }
  },

  loadMoreUsers: async () => {
    const { usersNext, usersQuery, usersLoading } = get();
    if (!usersNext || usersLoading) return;
    set({ usersLoading: true });
    try {
      const page = await fetchUsers('/api/vms/users', usersQuery, usersNext);
      if (get().usersQuery !== usersQuery) return;
      const known = new Set(get().users.map((u) => u.id));
      set({ users: [...get().users, ...page.data.filter((u) => !known.has(u.id))], usersNext: page.next_cursor, usersTotal: page.total });
    } catch (e) {
      console.error('Failed to load users', e);
    } finally {
      set({ usersLoading: false });
    }
  },

  loadAssignments: async (memberId) => {
    const all: AssignableUser[] = [];
    let cursor: string | null = null;
    do {
      const page: AssignableUserPage = await fetchUsers(`/api/vms/team/${memberId}/assignments`, '', cursor, ASSIGNMENTS_PAGE);
      all.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return all;
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
