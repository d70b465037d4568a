/**
 * The widget's own texts in 80 languages (picked in ../lang.ts), right to left where the language is. Only the UI's own strings. English is built in; any other language is a
 * small module (from texts.ts) fetched with the UI, so a visitor downloads only their own.
 */
import { WIDGET_LANGUAGES } from '../../../shared/src/languages.js';
import type { ErrorCode } from '../../../shared/src/errorCodes.js';
import { CHAT_FILE_TOO_LARGE, CHAT_IMAGE_TOO_LARGE, NOT_AN_ALLOWED_FILE, NOT_AN_IMAGE } from '../shared.js';

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

/** The visitor's words for refusals (errorTexts.ts, one module per language loaded on first need). */
export const ERROR_KEYS = ['network', 'rateLimited', 'server', 'email', 'messageRequired', 'invalid', 'emailNeeded', 'nothingYet'] as const;
export type ErrorKey = (typeof ERROR_KEYS)[number];
type RefusalKey = ErrorKey | 'fileType' | 'fileSize';

/** Which of the visitor's texts each of the server's codes (shared/src/errorCodes.ts) is shown with. */
const TEXT_OF_CODE: Partial<Record<ErrorCode, RefusalKey>> = {
  rate_limited: 'rateLimited',
  server_error: 'server',
  unavailable: 'server',
  file_type: 'fileType',
  file_too_large: 'fileSize',
  message_required: 'messageRequired',
  message_too_long: 'invalid',
  email_required: 'email',
  email_invalid: 'email',
  rating_invalid: 'invalid',
  comment_too_long: 'invalid',
  time_zone_invalid: 'invalid',
  transcript_email_needed: 'emailNeeded',
  transcript_nothing_yet: 'nothingYet',
  nothing_to_rate: 'nothingYet',
};

/** A refusal as the widget holds it: the server's (or its own) English words, the HTTP status (0: network) and code. */
export interface Refusal {
  message: string;
  status?: number;
  code?: string;
}

/** Which text shows a refusal: its code's, else by status (or the upload words an older server sends); undefined: the server's words. */
export function refusalKey(e: Refusal): RefusalKey | undefined {
  const byCode = e.code ? TEXT_OF_CODE[e.code as ErrorCode] : undefined;
  if (byCode) return byCode;
  if (e.message === CHAT_IMAGE_TOO_LARGE || e.message === CHAT_FILE_TOO_LARGE) return 'fileSize';
  if (e.message === NOT_AN_IMAGE || e.message === NOT_AN_ALLOWED_FILE) return 'fileType';
  const status = e.status ?? 0;
  if (status === 0) return 'network';
  if (status === 429) return 'rateLimited';
  if (status >= 500) return 'server';
  if (status === 400 || status === 422) return 'invalid';
  return undefined;
}

const errorLines: Record<string, Promise<string[] | undefined>> = {};

/** The language's refusal texts from dist/lang/<code>.err-<hash>.js, fetched once; undefined if that fails. */
function errorTexts(lang: string, base: string): Promise<string[] | undefined> {
  if (typeof __LANG_HASH__ === 'undefined') return Promise.resolve(undefined);
  errorLines[lang] ??= import(/* @vite-ignore */ `${base}/widget/lang/${lang}.err-${__LANG_HASH__}.js`).then(
    (m: { default: string }) => m.default.split('|'),
    () => {
      delete errorLines[lang]; // offline now: try again on the next error
      return undefined;
    },
  );
  return errorLines[lang] as Promise<string[] | undefined>;
}

/** Fetches the refusal texts ahead (once the visitor has sent something), so "No connection" can be said in their language when the network goes. */
export function warmRefusals(lang: string, base: string): void {
  void errorTexts(lang, base);
}

/** The visitor's words for a refusal, in their language; the server's own message when there is no text for it. */
export async function refusalText(e: Refusal, t: Texts, lang: string, base: string): Promise<string> {
  const key = refusalKey(e);
  if (key === 'fileType' || key === 'fileSize') return t[key];
  if (!key) return e.message;
  const line = await errorTexts(lang, base);
  return line?.[ERROR_KEYS.indexOf(key)] || e.message;
}
