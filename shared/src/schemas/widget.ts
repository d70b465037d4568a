import { z } from 'zod';
import { MAX_MESSAGE, MAX_URL } from '../limits.js';
import { optionalText } from './fields.js';
import { TIME_ZONE_INVALID, isTimeZone } from './lifecycle.js';

const optionalEmail = optionalText(254, 'Please enter a valid email address').refine(
  (v) => v === '' || z.regexes.email.test(v),
  { error: 'Please enter a valid email address' },
);

export const uniqueCode = z
  .string({ error: 'unique_code is required' })
  .trim()
  .min(1, { error: 'unique_code is required' })
  .max(64, { error: 'Unknown widget' });

/** The browser's IANA time zone (Intl.DateTimeFormat().resolvedOptions().timeZone), checked by the runtime's Intl. */
const timeZoneField = z.string({ error: TIME_ZONE_INVALID }).max(64, { error: TIME_ZONE_INVALID }).refine(isTimeZone, { error: TIME_ZONE_INVALID });

export const createVisitorSchema = z.object({
  unique_code: uniqueCode,
  name: optionalText(255, 'Name must be at most 255 characters'),
  email: optionalEmail,
  page_url: optionalText(MAX_URL, `Page URL must be at most ${MAX_URL} characters`),
  referrer: optionalText(MAX_URL, `Referrer must be at most ${MAX_URL} characters`),
  locale: optionalText(35, 'Locale must be at most 35 characters'),
  time_zone: timeZoneField.optional(),
});
export type CreateVisitorInput = z.input<typeof createVisitorSchema>;

const visitorFields = {
  name: optionalText(255, 'Name must be at most 255 characters').optional(),
  email: optionalEmail.optional(),
  page_url: optionalText(MAX_URL, `Page URL must be at most ${MAX_URL} characters`).optional(),
};

/** The team's edit of a visitor (side panel): name, email, page. */
export const updateVisitorSchema = z
  .object(visitorFields)
  .strict()
  .refine((v) => Object.keys(v).length > 0, { error: 'Nothing to update: send name, email or page_url' });
export type UpdateVisitorInput = z.input<typeof updateVisitorSchema>;

/** PATCH /api/widget/visitor: the same, plus the visitor's own time zone (issue 16: their local time in the side panel). */
export const updateWidgetVisitorSchema = z
  .object({ ...visitorFields, time_zone: timeZoneField.optional() })
  .strict()
  .refine((v) => Object.keys(v).length > 0, { error: 'Nothing to update: send name, email or page_url' });
export type UpdateWidgetVisitorInput = z.input<typeof updateWidgetVisitorSchema>;

export const WIDGET_EVENT_KINDS = ['load', 'connect', 'error'] as const;
export const widgetEventSchema = z.object({
  unique_code: uniqueCode,
  load_id: z.string({ error: 'load_id is required' }).regex(/^[A-Za-z0-9_-]{8,64}$/, { error: 'load_id is invalid' }),
  kind: z.enum(WIDGET_EVENT_KINDS, { error: 'kind must be load, connect or error' }),
  detail: optionalText(500),
});
export type WidgetEventInput = z.input<typeof widgetEventSchema>;

export const widgetSettingsQuery = z.object({ unique_code: uniqueCode });

/** The widget's offline form (POST /api/widget/offline): its words, which errors.ts also gives codes. */
export const OFFLINE_EMAIL_REQUIRED = 'The email field is required';
export const EMAIL_INVALID = 'Please enter a valid email address';
export const OFFLINE_MESSAGE_REQUIRED = 'The message field is required';
export const MESSAGE_TOO_LONG = `Message must be at most ${MAX_MESSAGE} characters`;
