import { z } from 'zod';
import { MAX_GREETING } from '../limits.js';
import { WIDGET_LANGUAGES } from '../languages.js';

export const WIDGET_LANGUAGE_INVALID = "Choose one of the widget's languages";
export const GREETING_LANGUAGE_INVALID = 'Greetings must be keyed by one of the widget’s languages';
export const GREETING_TOO_LONG = `Greetings must be at most ${MAX_GREETING} characters`;

const language = z.string({ error: WIDGET_LANGUAGE_INVALID }).refine((v) => v === '' || WIDGET_LANGUAGES.includes(v), { error: WIDGET_LANGUAGE_INVALID });
const greeting = (required: boolean) =>
  z
    .string({ error: 'Must be text' })
    .trim()
    .max(MAX_GREETING, { error: GREETING_TOO_LONG })
    .refine((v) => !required || v.length > 0, { error: 'Initial greeting is required' });

/**
 * PUT /api/vms/widget-language (owner/Admin): `language` '' follows the visitor's browser, else
 * one of WIDGET_LANGUAGES; greetings per language replace the default greetings for visitors
 * whose (forced or browser) language it is.
 */
export const widgetLanguageSchema = z.object({
  language,
  greetings_by_language: z
    .record(z.string(), z.object({ initial_greeting: greeting(true), follow_up_greeting: greeting(false).optional().transform((v) => v ?? '') }))
    .refine((r) => Object.keys(r).every((k) => WIDGET_LANGUAGES.includes(k) && k !== 'en'), { error: GREETING_LANGUAGE_INVALID })
    .refine((r) => Object.keys(r).length <= WIDGET_LANGUAGES.length, { error: GREETING_LANGUAGE_INVALID }),
});
export type WidgetLanguageInput = z.infer<typeof widgetLanguageSchema>;
