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
