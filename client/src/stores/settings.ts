import type { PasswordChangeInput, ProfileInput, UserDto, WidgetSettingsDto } from '@parley/shared';
import { create } from 'zustand';
import { api, formData, unwrap } from '../lib/api';

/** Console view of the widget settings (the server adds the avatar's URL). */
export type WidgetSettings = WidgetSettingsDto & { avatar_url?: string };

/** Settings calls (SPEC.md section 7). Each action throws ApiError; the screen picks the text. */
interface SettingsState {
  loadWidget: () => Promise<WidgetSettings>;
  /** `hide_branding` is sent only when given ('true' / 'false' in the form). */
  saveWidget: (input: {
    name: string;
    title?: string;
    color: string;
    email_notifications: WidgetSettingsDto['email_notifications'];
    hide_branding?: boolean;
    avatar?: File | null;
  }) => Promise<WidgetSettings>;
  /** The user as saved, and the server's notice when a new email waits for its confirmation link. */
  updateProfile: (input: ProfileInput) => Promise<{ user: UserDto | null; notice?: string }>;
  updatePassword: (input: PasswordChangeInput) => Promise<void>;
  deleteAccount: () => Promise<void>;
}

export const useSettings = create<SettingsState>(() => ({
  loadWidget: async () => unwrap<WidgetSettings>(await api.get('/api/vms/widget-settings')),

  saveWidget: async ({ name, title, color, email_notifications, hide_branding, avatar }) => {
    const body = formData({ name, title, color, email_notifications: JSON.stringify(email_notifications), hide_branding, avatar: avatar ?? undefined });
    return unwrap<WidgetSettings>(await api.post('/api/vms/widget-settings', body));
  },

  updateProfile: async (input) => {
    const body = await api.put('/api/vms/user/update', input);
    const user = unwrap<UserDto | null>(body) ?? null;
    const notice = (body as { notice?: unknown }).notice;
    return typeof notice === 'string' ? { user, notice } : { user };
  },

  updatePassword: async (input) => {
    unwrap(await api.put('/api/vms/password/update', input));
  },

  deleteAccount: async () => {
    unwrap(await api.delete('/api/vms/user/delete'));
  },
}));
