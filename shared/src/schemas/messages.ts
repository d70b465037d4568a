import { z } from 'zod';
import { MAX_MESSAGE } from '../limits.js';

export const MESSAGE_REQUIRED = 'Message or image is required';

/** Text part of a chat message (console or widget); an image may stand in for it. */
export const messageText = z
  .string({ error: 'Message must be text' })
  .trim()
  .max(MAX_MESSAGE, { error: `Message must be at most ${MAX_MESSAGE} characters` })
  .optional()
  .transform((v) => v ?? '');

export const clientId = z
  .string({ error: 'client_id must be text' })
  .trim()
  .min(1, { error: 'client_id must not be empty', abort: true })
  .max(64, { error: 'client_id must be at most 64 characters' })
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'client_id may only contain letters, digits, - and _' })
  .optional();

export const consoleMessageSchema = z.object({
  message: messageText,
  visitor_id: z.string({ error: 'Please select a conversation' }).trim().min(1, { error: 'Please select a conversation' }).max(64),
  client_id: clientId,
});

export const widgetMessageSchema = z.object({
  message: messageText,
  client_id: clientId,
});

export const CURSOR_INVALID = 'cursor is not valid';

export const sinceIdQuery = z.object({
  since_id: z.coerce.number({ error: 'since_id must be a message id' }).int().min(0, { error: 'since_id must be a message id' }).optional(),
  /** The `next_cursor` of the previous answer: only messages committed since (commit-safe; wins over since_id). */
  cursor: z.string({ error: CURSOR_INVALID }).max(16_384, { error: CURSOR_INVALID }).regex(/^[A-Za-z0-9_-]+$/, { error: CURSOR_INVALID }).optional(),
  /** Issue 16: a page of at most `limit` messages (newest, ascending); without it at most 500, plus `has_more`. */
  limit: z.coerce.number({ error: 'limit must be a whole number from 1 to 100' }).int({ error: 'limit must be a whole number from 1 to 100' }).min(1, { error: 'limit must be a whole number from 1 to 100' }).max(100, { error: 'limit must be a whole number from 1 to 100' }).optional(),
  /** Issue 16: older history: the messages before this message id (the first one the client holds). */
  before: z.coerce.number({ error: 'before must be a message id' }).int({ error: 'before must be a message id' }).min(1, { error: 'before must be a message id' }).optional(),
});
