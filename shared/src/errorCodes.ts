/**
 * Stable codes in the error envelope (`code`, besides the English `message`): a client shows its
 * own words for a code (the widget in the visitor's language) and the message otherwise. Issue 13.
 * Zod-free: the widget imports it. Codes are only ever added, never renamed.
 */
export const ERROR_CODES = [
  'rate_limited',
  'server_error',
  'unavailable',
  'file_type',
  'file_too_large',
  'message_required',
  'message_too_long',
  'email_required',
  'email_invalid',
  'chat_limit',
  'rating_invalid',
  'comment_too_long',
  'already_rated',
  'nothing_to_rate',
  'survey_off',
  'transcript_email_needed',
  'transcript_nothing_yet',
  'time_zone_invalid',
  'unknown_widget',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
