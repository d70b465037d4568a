import { z } from 'zod';
import { AVAILABILITIES, CONVERSATION_STATUSES } from '../types.js';

/** Snooze choices the server turns into a time (the account's time zone for "tomorrow" and "next week", 09:00). */
export const SNOOZE_PRESETS = ['1h', 'tomorrow', 'next_week'] as const;
export type SnoozePreset = (typeof SNOOZE_PRESETS)[number];

export const SNOOZE_NEEDS_PENDING = 'Only a pending conversation can be snoozed until a time';
export const SNOOZE_IN_PAST = 'The snooze must end in the future';
export const SNOOZE_TOO_FAR = 'The snooze must end within a year';
export const SNOOZE_ONE_WAY = 'Send either snoozed_until or snooze, not both';
export const ASSIGNEE_NOT_FOUND = 'User not found';
export const TIME_ZONE_INVALID = 'Please choose a valid time zone';

/** POST /api/vms/conversations/{visitorId}/status. Pending without a time: until the visitor writes. */
export const conversationStatusSchema = z
  .object({
    status: z.enum(CONVERSATION_STATUSES, { error: 'Status must be open, pending or resolved' }),
    snoozed_until: z.iso.datetime({ offset: true, error: 'snoozed_until must be an ISO date and time' }).nullable().optional(),
    snooze: z.enum(SNOOZE_PRESETS, { error: 'Snooze must be 1h, tomorrow or next_week' }).optional(),
  })
  .superRefine((v, ctx) => {
    const timed = (v.snoozed_until ?? undefined) !== undefined || v.snooze !== undefined;
    if (timed && v.status !== 'pending') ctx.addIssue({ code: 'custom', path: ['snoozed_until'], message: SNOOZE_NEEDS_PENDING });
    if (v.snoozed_until && v.snooze) ctx.addIssue({ code: 'custom', path: ['snoozed_until'], message: SNOOZE_ONE_WAY });
  });
export type ConversationStatusInput = z.input<typeof conversationStatusSchema>;

/** POST /api/vms/conversations/{visitorId}/assign: a member's id, or null to unassign. */
export const conversationAssignSchema = z.object({
  user_id: z
    .number({ error: 'user_id must be a member id or null' })
    .int({ error: 'user_id must be a member id or null' })
    .positive({ error: 'user_id must be a member id or null' })
    .nullable(),
});
export type ConversationAssignInput = z.input<typeof conversationAssignSchema>;

/** PATCH /api/vms/me/availability (each member for themselves). */
export const availabilitySchema = z.object({
  availability: z.enum(AVAILABILITIES, { error: 'Availability must be online or away' }).optional(),
  /** null: no cap. */
  max_open_chats: z
    .number({ error: 'The cap must be a number of chats' })
    .int({ error: 'The cap must be a whole number' })
    .min(1, { error: 'The cap must be at least 1' })
    .max(1000, { error: 'The cap must be at most 1000' })
    .nullable()
    .optional(),
});
export type AvailabilityInput = z.input<typeof availabilitySchema>;

/** Whether the runtime knows this IANA time zone. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** GET/POST /api/vms/conversation-settings (owner/Admin write): the account's inbox settings. */
export const conversationSettingsSchema = z.object({
  time_zone: z.string({ error: TIME_ZONE_INVALID }).max(64, { error: TIME_ZONE_INVALID }).refine(isTimeZone, { error: TIME_ZONE_INVALID }).optional(),
  /** null: auto-resolve off. */
  auto_resolve_hours: z
    .number({ error: 'Auto-resolve must be a number of hours' })
    .int({ error: 'Auto-resolve must be a whole number of hours' })
    .min(1, { error: 'Auto-resolve must be at least 1 hour' })
    .max(24 * 90, { error: 'Auto-resolve must be at most 2160 hours (90 days)' })
    .nullable()
    .optional(),
  round_robin: z.boolean({ error: 'Must be true or false' }).optional(),
});
export type ConversationSettingsInput = z.input<typeof conversationSettingsSchema>;
