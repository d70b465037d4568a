/**
 * The widget's own texts in 80 languages (picked in ../lang.ts), right to left where the language is. Only the UI's own strings. English is built in; any other language is a
 * small module (from texts.ts) fetched with the UI, so a visitor downloads only their own.
 */
import { WIDGET_LANGUAGES } from '../../../shared/src/languages.js';

const KEYS = ['open', 'close', 'type', 'send', 'attach', 'typing', 'away', 'email', 'message', 'thanks', 'retry', 'unread', 'rate', 'comment', 'rated', 'notNow', 'menu', 'transcript', 'transcriptLater', 'transcriptSent', 'attachFile', 'poweredBy', 'fileType', 'fileSize'] as const;
export type TextKey = (typeof KEYS)[number];
export type Texts = Record<TextKey, string>;

export const EN =
  "Open chat|Close chat|Type a message|Send|Attach image|typing…|We're away. Leave a message and we'll reply by email.|Email|Message|Thanks! We'll reply by email.|Not sent. Tap to retry.|one:{n} unread;other:{n} unread|How was this conversation?|Add a comment (optional)|Thanks for your feedback!|Not now|More options|Email me the transcript|We'll email you the transcript when the conversation ends.|The transcript is on its way to your email.|Attach file|Powered by {name}|Only images, PDF, TXT, CSV, DOCX and XLSX files can be sent.|Files must be smaller than 5 MB.";

/** The languages texts.ts has (kept equal by i18n.test.ts): shared with the server, which validates a forced language. */
export const LANGUAGES = WIDGET_LANGUAGES;
export { browserLanguages, isRtl, pickLanguage } from '../lang.js';

/** The texts that name a count: each lists a form per plural category, `one:{n} unread;other:{n} unread`. */
export const PLURAL_KEYS: readonly TextKey[] = ['unread'];

/**
 * A count in the language's plural form (Intl.PluralRules, built into browsers): the text's form
 * for the count's category (else its `other` form) with `{n}` replaced by the count. A text
 * without forms is used for every count.
 */
export function plural(text: string, n: number, lang: string): string {
  const forms = Object.fromEntries(text.split(';').map((f) => f.split(/:(.*)/s, 2) as [string, string]));
  let rule = 'other';
  try {
    rule = new Intl.PluralRules(lang).select(n);
  } catch {
    // An engine without the language: its "other" form.
  }
  const form = text.includes(':') ? (forms[rule] ?? forms.other ?? '') : text;
  return form.replace('{n}', String(n));
}

export function parseTexts(line: string): Texts {
  const values = line.split('|');
  return Object.fromEntries(KEYS.map((k, i) => [k, values[i] ?? ''])) as Texts;
}

/** Replaced at build time with the language modules' hash (build.mjs). */
declare const __LANG_HASH__: string;

/** The texts for `lang`: English at once, others from dist/lang/<code>-<hash>.js (English if that fails). */
export async function loadTexts(lang: string, base: string): Promise<Texts> {
  if (lang === 'en' || typeof __LANG_HASH__ === 'undefined') return parseTexts(EN);
  try {
    const mod = (await import(/* @vite-ignore */ `${base}/widget/lang/${lang}-${__LANG_HASH__}.js`)) as { default: string };
    return parseTexts(mod.default);
  } catch {
    return parseTexts(EN);
  }
}
