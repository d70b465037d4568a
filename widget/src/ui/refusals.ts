/**
 * Server refusals in the visitor's language (issue 13), a module of its own loaded on the first
 * error (lazy.ts; dist/chunks/refusals-<hash>.js): the server's stable code (shared/src/errorCodes.ts)
 * picks one of the visitor's texts (errorTexts.ts, one module per language, fetched then too).
 */
import type { ErrorCode } from '../../../shared/src/errorCodes.js';
import { CHAT_FILE_TOO_LARGE, CHAT_IMAGE_TOO_LARGE, NOT_AN_ALLOWED_FILE, NOT_AN_IMAGE } from '../../../shared/src/limits.js';
import type { Texts } from './i18n.js';

/** Replaced at build time with the language modules' hash (build.mjs). */
declare const __LANG_HASH__: string;

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
