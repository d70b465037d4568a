import { z } from 'zod';
import { MAX_MESSAGE } from '../limits.js';
import { clientId } from './messages.js';
import { requiredText } from './fields.js';

/**
 * Issue 16 "Working faster": canned replies, private notes and labels. The console's forms and
 * the server validate with these, so both reject the same input with the same words.
 */

export const MAX_CANNED_TITLE = 100;
export const MAX_SHORTCUT = 32;
export const MAX_LABEL_NAME = 40;
/** How many of each an account may keep; past that a create is refused (422). */
export const MAX_CANNED_REPLIES = 500;
export const MAX_LABELS = 100;
/** Labels on one conversation at most. */
export const MAX_LABELS_PER_CONVERSATION = 20;

/** The label palette: a label's colour is one of these (the console shows them as swatches). */
export const LABEL_COLORS = ['#ef4444', '#f97316', '#eab308', '#22c55e', '#14b8a6', '#3b82f6', '#8b5cf6', '#ec4899', '#64748b'] as const;

export const SHORTCUT_INVALID = 'Shortcut may only contain lowercase letters, digits, - and _';
export const SHORTCUT_TAKEN = 'Another canned reply already uses this shortcut';
export const LABEL_NAME_TAKEN = 'A label with this name already exists';
export const LABEL_COLOR_INVALID = 'Please choose one of the label colours';
export const LABEL_UNKNOWN = 'Unknown label';
export const TOO_MANY_CANNED_REPLIES = `An account can keep at most ${MAX_CANNED_REPLIES} canned replies`;
export const TOO_MANY_LABELS = `An account can keep at most ${MAX_LABELS} labels`;
export const NOTE_REQUIRED = 'Note is required';

const shortcut = z
  .string({ error: 'Shortcut is required' })
  .trim()
  .transform((v) => v.replace(/^\/+/, '').toLowerCase())
  .pipe(
    z
      .string()
      .min(1, { error: 'Shortcut is required', abort: true })
      .max(MAX_SHORTCUT, { error: `Shortcut must be at most ${MAX_SHORTCUT} characters`, abort: true })
      .regex(/^[a-z0-9_-]+$/, { error: SHORTCUT_INVALID }),
  );

export const cannedReplySchema = z.object({
  title: requiredText('Title is required', MAX_CANNED_TITLE, `Title must be at most ${MAX_CANNED_TITLE} characters`),
  text: requiredText('Text is required', MAX_MESSAGE, `Text must be at most ${MAX_MESSAGE} characters`),
  /** Typed after `/` in the composer; a leading `/` is dropped and letters are lowercased. */
  shortcut,
});
export type CannedReplyInput = z.input<typeof cannedReplySchema>;
export const cannedReplyPatchSchema = cannedReplySchema.partial();

const labelColor = z.string({ error: LABEL_COLOR_INVALID }).trim().toLowerCase().pipe(z.enum(LABEL_COLORS, { error: LABEL_COLOR_INVALID }));

export const labelSchema = z.object({
  name: requiredText('Name is required', MAX_LABEL_NAME, `Name must be at most ${MAX_LABEL_NAME} characters`),
  color: labelColor,
});
export type LabelInput = z.input<typeof labelSchema>;
export const labelPatchSchema = labelSchema.partial();

const labelId = z.number({ error: 'label_ids must be a list of label ids' }).int({ error: 'label_ids must be a list of label ids' }).positive({ error: 'label_ids must be a list of label ids' }).max(2_147_483_647, { error: LABEL_UNKNOWN });

/** PUT /conversations/:visitorId/labels: the conversation's whole set of labels. */
export const conversationLabelsSchema = z.object({
  label_ids: z
    .array(labelId, { error: 'label_ids must be a list of label ids' })
    .max(MAX_LABELS_PER_CONVERSATION, { error: `A conversation can have at most ${MAX_LABELS_PER_CONVERSATION} labels` })
    .transform((ids) => [...new Set(ids)]),
});

/** GET /conversations?label=<id>: only conversations carrying that label. */
export const labelFilterQuery = z.coerce.number({ error: 'label must be a label id' }).int({ error: 'label must be a label id' }).positive({ error: 'label must be a label id' }).max(2_147_483_647, { error: 'label must be a label id' });

/** POST /conversations/:visitorId/notes: a private note, seen by the team only. */
export const noteSchema = z.object({
  message: requiredText(NOTE_REQUIRED, MAX_MESSAGE, `Note must be at most ${MAX_MESSAGE} characters`),
  client_id: clientId,
});

/** Fills `{{visitor.name}}` and `{{agent.name}}` in a canned reply's text (unknown placeholders stay as typed). */
export function fillCannedReply(text: string, names: { visitor: string; agent: string }): string {
  return text.replace(/\{\{\s*(visitor|agent)\.name\s*\}\}/g, (_, who: string) => (who === 'visitor' ? names.visitor : names.agent));
}
