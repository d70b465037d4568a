import { z } from 'zod';
import { MAX_GREETING, MAX_URL } from '../limits.js';
import { hexColor, optionalText, requiredText } from './fields.js';

export const emailNotificationsSchema = z
  .object({
    newChats: z.boolean({ error: 'Must be true or false' }).default(true),
    offlineMessages: z.boolean({ error: 'Must be true or false' }).default(true),
    missedChats: z.boolean({ error: 'Must be true or false' }).default(true),
  })
  .strip();
export type EmailNotifications = z.output<typeof emailNotificationsSchema>;

/** `email_notifications` travels in multipart as a JSON string (SPEC.md section 7). */
const emailNotificationsField = z
  .string()
  .max(1000)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Notification settings must be valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(emailNotificationsSchema);

/** A boolean in a multipart form: 'true' / 'false' (JSON bodies may send the boolean itself). */
const formBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'Must be true or false' })
  .transform((v) => v === true || v === 'true' || v === '1');

/** POST /api/vms/widget-settings (settings page): text fields of the multipart form. */
export const widgetSettingsSchema = z.object({
  name: requiredText('Name is required'),
  color: hexColor,
  /** Title or department (as in onboarding step 1); absent: unchanged. */
  title: requiredText('Title or department is required').optional(),
  email_notifications: emailNotificationsField.optional(),
  /** Absent: unchanged. */
  hide_branding: formBoolean.optional(),
});
export type WidgetSettingsInput = z.input<typeof widgetSettingsSchema>;

/** POST /api/vms/chatwidget-settings (onboarding step 1). */
export const chatWidgetSettingsSchema = z.object({
  name: requiredText('Name is required'),
  title: requiredText('Title or department is required'),
  color: hexColor,
});
export type ChatWidgetSettingsInput = z.input<typeof chatWidgetSettingsSchema>;

export const greetingsSchema = z.object({
  initial_greeting: requiredText('Initial greeting is required', MAX_GREETING, `Initial greeting must be at most ${MAX_GREETING} characters`),
  follow_up_greeting: optionalText(MAX_GREETING, `Follow-up greeting must be at most ${MAX_GREETING} characters`),
});
export type GreetingsInput = z.input<typeof greetingsSchema>;

export const URL_PATTERN = /^(https?:\/\/)?([a-zA-Z0-9-]+\.)+[a-zA-Z0-9-]{2,}(:\d{1,5})?(\/[^\s]*)?$/;
export const PHONE_PATTERN = /^\+?[0-9\s-]{7,15}$/;

export const accountInfoSchema = z.object({
  website_url: optionalText(MAX_URL, 'Please enter a valid URL').refine((v) => v === '' || URL_PATTERN.test(v), {
    error: 'Please enter a valid URL',
  }),
  phone_number: optionalText(32, 'Please enter a valid phone number').refine((v) => v === '' || PHONE_PATTERN.test(v), {
    error: 'Please enter a valid phone number',
  }),
  business_location: optionalText(255, 'Business location must be at most 255 characters'),
});
export type AccountInfoInput = z.input<typeof accountInfoSchema>;

/**
 * PUT /api/vms/user/alerts: the signed-in user's console alerts while the tab is hidden
 * (issue 16). Each field absent: unchanged. Unknown fields are refused.
 */
export const alertPrefsSchema = z
  .object({
    desktop: z.boolean({ error: 'Must be true or false' }).optional(),
    sound: z.boolean({ error: 'Must be true or false' }).optional(),
  })
  .strict();
export type AlertPrefsInput = z.input<typeof alertPrefsSchema>;
