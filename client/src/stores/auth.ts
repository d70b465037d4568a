import type { AuthResponse, LoginInput, RegisterInput, TwoFactorChallengeDto, UserDto } from '@parley/shared';
import { create } from 'zustand';
import { api, clearToken, getToken, setToken } from '../lib/api';

/**
 * Session state (SPEC.md section 4 "Auth"). `loading` stays true until the first user check
 * ends; signed-in screens wait on it. Errors of login/register are thrown to the caller
 * (ApiError with the server's message and field errors).
 */
interface AuthState {
  user: UserDto | null;
  loading: boolean;
  /** True once init() has run at least once. */
  initialized: boolean;
  /**
   * True from the moment logout starts: the server revokes the token (and closes the socket)
   * before the token leaves local storage, and nothing may call with it in between.
   */
  signingOut: boolean;
  init: () => Promise<void>;
  /** The user, or the second step a user with two-factor must answer (issue 14). */
  login: (input: LoginInput) => Promise<UserDto | TwoFactorChallengeDto>;
  register: (input: RegisterInput) => Promise<UserDto>;
  logout: () => Promise<void>;
  /** A sign-in finished elsewhere (the two-factor step): keep its token and user. */
  signedIn: (res: AuthResponse) => void;
  /** Merge fresh user fields (after a profile update). */
  setUser: (patch: Partial<UserDto>) => void;
  /** Re-fetch the current user. */
  refresh: () => Promise<void>;
}

let initPromise: Promise<void> | null = null;

async function fetchUser(): Promise<UserDto> {
  return api.get<UserDto>('/api/vms/user');
}

export const useAuth = create<AuthState>((set, get) => ({
  user: null,
  loading: true,
  initialized: false,
  signingOut: false,

  init: () => {
    if (initPromise) return initPromise;
    initPromise = (async () => {
      if (!getToken()) {
        set({ user: null, loading: false, initialized: true });
        return;
      }
      set({ loading: true });
      try {
        const user = await fetchUser();
        set({ user, loading: false, initialized: true });
      } catch (e) {
        // SPEC.md section 8: logged only, and the token is removed.
        console.error('Failed to fetch current user', e);
        clearToken();
        set({ user: null, loading: false, initialized: true });
      }
    })();
    return initPromise;
  },

  login: async (input) => {
    const res = await api.post<AuthResponse | TwoFactorChallengeDto>('/api/vms/login', input, { auth: false });
    if ('two_factor_required' in res) return res;
    setToken(res.token);
    set({ user: res.user, loading: false, initialized: true, signingOut: false });
    initPromise = Promise.resolve();
    return res.user;
  },

  register: async (input) => {
    const res = await api.post<AuthResponse>('/api/vms/register', input, { auth: false });
    setToken(res.token);
    set({ user: res.user, loading: false, initialized: true });
    initPromise = Promise.resolve();
    return res.user;
  },

  logout: async () => {
    set({ signingOut: true });
    try {
      if (getToken()) await api.post('/api/vms/logout', {});
    } catch (e) {
      console.error('Logout failed', e);
    } finally {
      clearToken();
      set({ user: null, loading: false, initialized: true, signingOut: false });
      initPromise = Promise.resolve();
    }
  },

  signedIn: (res) => {
    setToken(res.token);
    set({ user: res.user, loading: false, initialized: true, signingOut: false });
    initPromise = Promise.resolve();
  },

  setUser: (patch) => {
    const user = get().user;
    if (user) set({ user: { ...user, ...patch } });
  },

  refresh: async () => {
    try {
      set({ user: await fetchUser() });
    } catch (e) {
      console.error('Failed to refresh current user', e);
    }
  },
}));

/** Admin checks follow SPEC.md: is_admin exactly true. */
export const isAdmin = (user: UserDto | null | undefined): boolean => user?.is_admin === true;

/**
 * Whether the signed-in user may do `rule` (a server policy rule such as 'settings.write',
 * 'team.manage', 'billing.manage', 'account.delete'), as the server's user says: the console
 * follows the user the server returns and keeps no role rules of its own.
 */
export const can = (user: UserDto | null | undefined, rule: string): boolean => user?.permissions?.includes(rule) === true;

/** The same, as a hook for screens. */
export const useCan = (rule: string): boolean => useAuth((s) => can(s.user, rule));
