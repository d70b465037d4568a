import { z } from 'zod';

/**
 * Issue 13 "The visitor's side": ratings (CSAT), transcripts and proactive messages. The widget's
 * limits live in limits-free constants here too, and the server validates with these schemas.
 */

export const RATING_COMMENT_MAX = 1000;
export const RATING_SCORE_INVALID = 'The rating must be a whole number from 1 to 5';
export const RATING_COMMENT_TOO_LONG = `The comment must be at most ${RATING_COMMENT_MAX} characters`;
export const RATING_ALREADY_GIVEN = 'This conversation has already been rated';
export const RATING_NOT_DUE = 'There is nothing to rate yet';
export const RATING_SURVEY_OFF = 'The satisfaction survey is turned off';

/** POST /api/widget/rating: the visitor rates the current stretch of their conversation. */
export const ratingSchema = z.object({
  score: z.number({ error: RATING_SCORE_INVALID }).int({ error: RATING_SCORE_INVALID }).min(1, { error: RATING_SCORE_INVALID }).max(5, { error: RATING_SCORE_INVALID }),
  comment: z
    .string({ error: 'Must be text' })
    .trim()
    .max(RATING_COMMENT_MAX, { error: RATING_COMMENT_TOO_LONG })
    .nullish()
    .transform((v) => v ?? ''),
});
export type RatingInput = z.infer<typeof ratingSchema>;

/** PUT /api/vms/ratings/settings (owner/Admin). */
export const ratingSettingsSchema = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) });

/** GET /api/vms/ratings/summary range (the dashboard's ranges). */
export const ratingSummaryQuery = z.object({
  range: z.enum(['1h', '24h', '7d', '30d'], { error: 'range must be 1h, 24h, 7d or 30d' }).default('30d'),
});

export const TRANSCRIPT_EMAIL_NEEDED = 'Leave your email first, then ask for the transcript';
export const TRANSCRIPT_NOTHING_YET = 'There is no conversation to send yet';
/** Transcripts one conversation may send per hour (the address is the visitor's own word). */
export const TRANSCRIPTS_PER_HOUR = 3;
export const TRANSCRIPT_TOO_MANY = 'Too many transcript requests. Please try again later.';

/** Proactive messages (issue 13): an owner/Admin's trigger. 0 / '' conditions mean "any". */
export const TRIGGER_NAME_MAX = 80;
export const TRIGGER_MESSAGE_MAX = 1000;
export const TRIGGER_PATTERN_MAX = 500;
export const MAX_TRIGGERS = 50;
export const TOO_MANY_TRIGGERS = `An account can keep at most ${MAX_TRIGGERS} proactive messages`;
export const TRIGGER_ALREADY_SHOWN = 'This message was already shown to this visitor today';
export const triggerSchema = z.object({
  name: z.string({ error: 'Name is required' }).trim().min(1, { error: 'Name is required', abort: true }).max(TRIGGER_NAME_MAX, { error: `Name must be at most ${TRIGGER_NAME_MAX} characters` }),
  url_pattern: z
    .string({ error: 'Must be text' })
    .trim()
    .max(TRIGGER_PATTERN_MAX, { error: `The page pattern must be at most ${TRIGGER_PATTERN_MAX} characters` })
    .default(''),
  seconds_on_page: z.number({ error: 'Seconds must be a whole number from 0 to 3600' }).int({ error: 'Seconds must be a whole number from 0 to 3600' }).min(0, { error: 'Seconds must be a whole number from 0 to 3600' }).max(3600, { error: 'Seconds must be a whole number from 0 to 3600' }).default(0),
  nth_page: z.number({ error: 'Page must be a whole number from 0 to 100' }).int({ error: 'Page must be a whole number from 0 to 100' }).min(0, { error: 'Page must be a whole number from 0 to 100' }).max(100, { error: 'Page must be a whole number from 0 to 100' }).default(0),
  returning_only: z.boolean({ error: 'Must be true or false' }).default(false),
  message: z.string({ error: 'Message is required' }).trim().min(1, { error: 'Message is required', abort: true }).max(TRIGGER_MESSAGE_MAX, { error: `Message must be at most ${TRIGGER_MESSAGE_MAX} characters` }),
  sender_name: z.string({ error: 'Must be text' }).trim().max(TRIGGER_NAME_MAX, { error: `Sender name must be at most ${TRIGGER_NAME_MAX} characters` }).default(''),
  sender_avatar: z
    .string({ error: 'Must be text' })
    .trim()
    .max(500, { error: 'The avatar address must be at most 500 characters' })
    .refine((v) => v === '' || /^https:\/\/\S+$/.test(v) || /^\/storage\/\S+$/.test(v), { error: 'The avatar must be an https:// address' })
    .default(''),
  open_panel: z.boolean({ error: 'Must be true or false' }).default(false),
  enabled: z.boolean({ error: 'Must be true or false' }).default(true),
});
export type TriggerInput = z.infer<typeof triggerSchema>;
