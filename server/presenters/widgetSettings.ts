import type { PublicWidgetSettingsDto, WidgetSettingsDto } from '@parley/shared';
import type { widgetSettings } from '../db/schema.js';

type WidgetSettingsRow = typeof widgetSettings.$inferSelect;

/** Console view: the stored avatar path plus the URL the console shows it from. */
export interface ConsoleWidgetSettingsDto extends WidgetSettingsDto {
  avatar_url: string;
}


export const POWERED_BY = 'Powered by Parley';

/** '/storage/<path>', absolute when the public URL is known; '' when there is no file. */
export function storageUrl(relPath: string, publicUrl?: string): string {
  if (!relPath) return '';
  return `${publicUrl ?? ''}/storage/${relPath}`;
}

export function presentWidgetSettings(row: WidgetSettingsRow): ConsoleWidgetSettingsDto {
  // Older rows may miss a key: SPEC.md says each toggle is true when absent.
  const n = row.emailNotifications as Partial<WidgetSettingsRow['emailNotifications']> | null;
  return {
    name: row.name,
    title: row.title,
    color: row.color,
    avatar: row.avatar,
    avatar_url: storageUrl(row.avatar),
    email_notifications: {
      newChats: n?.newChats ?? true,
      offlineMessages: n?.offlineMessages ?? true,
      missedChats: n?.missedChats ?? true,
    },
    hide_branding: row.hideBranding,
  };
}

/**
 * `brandingRemovable`: the plan in force allows removing the credit. The owner's choice is
 * honoured only then, so an expired plan brings the credit back without touching the setting.
 */
export function presentPublicWidgetSettings(
  row: WidgetSettingsRow,
  opts: { agentOnline: boolean; backAt?: Date | null; publicUrl: string | undefined; brandingRemovable: boolean },
): PublicWidgetSettingsDto {
  return {
    name: row.name,
    title: row.title,
    color: row.color,
    avatar_url: storageUrl(row.avatar, opts.publicUrl),
    initial_greeting: row.initialGreeting,
    follow_up_greeting: row.followUpGreeting,
    agent_online: opts.agentOnline,
    back_at: opts.backAt?.toISOString() ?? null,
    // '' tells the widget to show no credit at all.
    powered_by: row.hideBranding && opts.brandingRemovable ? '' : POWERED_BY,
    language: row.language,
    greetings_by_language: row.greetingsByLanguage,
  };
}
