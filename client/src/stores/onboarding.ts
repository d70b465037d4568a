import { DEFAULT_FOLLOW_UP_GREETING, DEFAULT_INITIAL_GREETING, DEFAULT_WIDGET_COLOR } from '@parley/shared';
import { create } from 'zustand';
import { api, formData, storageUrl } from '../lib/api';

/**
 * The onboarding wizard's data (SPEC.md section 2 "Onboarding wizard"): widget look, greetings
 * and account info. Each step reloads its own section from the server when it opens, so edits
 * left by 'Back' (which does not save) are discarded; the preview reads look and greetings.
 */
export interface Look {
  name: string;
  title: string;
  color: string;
  /** URL of the saved avatar ('' when none). */
  avatarUrl: string;
}
export interface Greetings {
  initial_greeting: string;
  follow_up_greeting: string;
}
export interface AccountInfo {
  website_url: string;
  phone_number: string;
  business_location: string;
}

interface WidgetSettingsData {
  name?: string;
  title?: string;
  color?: string;
  avatar?: string;
  avatar_url?: string;
}

interface OnboardingState {
  look: Look;
  greetings: Greetings;
  account: AccountInfo;
  loadLook: () => Promise<void>;
  loadGreetings: () => Promise<void>;
  loadAccount: () => Promise<AccountInfo>;
  setLook: (patch: Partial<Look>) => void;
  setGreetings: (patch: Partial<Greetings>) => void;
  setAccount: (patch: Partial<AccountInfo>) => void;
  saveLook: (input: { name: string; title: string; color: string }, avatar: File | null) => Promise<void>;
  saveGreetings: (input: Greetings) => Promise<void>;
  saveAccount: (input: AccountInfo) => Promise<void>;
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

export const useOnboarding = create<OnboardingState>((set) => ({
  look: { name: '', title: '', color: DEFAULT_WIDGET_COLOR, avatarUrl: '' },
  greetings: { initial_greeting: DEFAULT_INITIAL_GREETING, follow_up_greeting: DEFAULT_FOLLOW_UP_GREETING },
  account: { website_url: '', phone_number: '', business_location: '' },

  loadLook: async () => {
    const d = await api.getData<WidgetSettingsData>('/api/vms/widget-settings');
    set({
      look: {
        name: str(d?.name),
        title: str(d?.title),
        color: str(d?.color, DEFAULT_WIDGET_COLOR) || DEFAULT_WIDGET_COLOR,
        avatarUrl: str(d?.avatar_url) || storageUrl(str(d?.avatar)),
      },
    });
  },

  loadGreetings: async () => {
    const d = await api.getData<Partial<Greetings>>('/api/vms/greetings');
    set({
      greetings: { initial_greeting: str(d?.initial_greeting), follow_up_greeting: str(d?.follow_up_greeting) },
    });
  },

  loadAccount: async () => {
    const d = await api.getData<Partial<AccountInfo>>('/api/vms/account-info');
    const account = { website_url: str(d?.website_url), phone_number: str(d?.phone_number), business_location: str(d?.business_location) };
    set({ account });
    return account;
  },

  setLook: (patch) => set((s) => ({ look: { ...s.look, ...patch } })),
  setGreetings: (patch) => set((s) => ({ greetings: { ...s.greetings, ...patch } })),
  setAccount: (patch) => set((s) => ({ account: { ...s.account, ...patch } })),

  saveLook: async (input, avatar) => {
    const d = await api.postData<WidgetSettingsData>(
      '/api/vms/chatwidget-settings',
      formData({ name: input.name, title: input.title, color: input.color, avatar: avatar ?? undefined }),
    );
    set((s) => ({
      look: {
        name: str(d?.name, input.name),
        title: str(d?.title, input.title),
        color: str(d?.color, input.color),
        avatarUrl: str(d?.avatar_url) || storageUrl(str(d?.avatar)) || s.look.avatarUrl,
      },
    }));
  },

  saveGreetings: async (input) => {
    await api.postData('/api/vms/greetings', input);
    set({ greetings: input });
  },

  saveAccount: async (input) => {
    await api.postData('/api/vms/account-info', input);
    set({ account: input });
  },
}));
