/**
 * The widget's own texts in 75 languages, picked from the browser's languages, with right-to-left
 * for ar, he, fa, ur. Only the UI's dozen strings. English is built in; any other language is a
 * small module (from texts.ts) fetched with the UI, so a visitor downloads only their own.
 */
const KEYS = ['open', 'close', 'type', 'send', 'attach', 'typing', 'away', 'email', 'message', 'thanks', 'retry', 'unread', 'rate', 'comment', 'rated', 'notNow', 'menu', 'transcript', 'transcriptLater', 'transcriptSent', 'attachFile'] as const;
export type TextKey = (typeof KEYS)[number];
export type Texts = Record<TextKey, string>;

export const EN =
  "Open chat|Close chat|Type a message|Send|Attach image|typing…|We're away. Leave a message and we'll reply by email.|Email|Message|Thanks! We'll reply by email.|Not sent. Tap to retry.|unread|How was this conversation?|Add a comment (optional)|Thanks for your feedback!|Not now|More options|Email me the transcript|We'll email you the transcript when the conversation ends.|The transcript is on its way to your email.|Attach file";

/** The languages texts.ts has (kept equal by i18n.test.ts). */
export const LANGUAGES = 'en af am ar az be bg bn bs ca cs cy da de el es et eu fa fi fil fr ga gl gu he hi hr hu hy id is it ja ka kk km kn ko lo lt lv mk ml mn mr ms my nb ne nl pa pl pt pt-br ro ru si sk sl sq sr sv sw ta te th tr uk ur uz vi zh zh-tw zu'.split(' ');

/** Old or regional codes that share another entry's texts. */
const ALIAS: Record<string, string> = {
  no: 'nb', nn: 'nb', iw: 'he', tl: 'fil', in: 'id', 'zh-hant': 'zh-tw', 'zh-hk': 'zh-tw', 'zh-mo': 'zh-tw', 'zh-hans': 'zh', 'zh-cn': 'zh', 'zh-sg': 'zh',
};
const RTL = ['ar', 'he', 'fa', 'ur'];


/** The first of the browser's languages we have (exact, then its base language), else English. */
export function pickLanguage(preferred: readonly string[]): string {
  for (const raw of preferred) {
    const tag = String(raw).toLowerCase().replace('_', '-');
    const parts = tag.split('-');
    const script = parts.slice(0, 2).join('-');
    for (const candidate of [tag, script, parts[0] ?? '']) {
      const code = ALIAS[candidate] ?? candidate;
      if (LANGUAGES.includes(code)) return code;
    }
  }
  return 'en';
}

export function isRtl(lang: string): boolean {
  return RTL.includes(lang.split('-')[0] ?? '');
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

/** The browser's languages, most preferred first. */
export function browserLanguages(): readonly string[] {
  const nav = typeof navigator === 'undefined' ? undefined : navigator;
  return nav?.languages?.length ? nav.languages : [nav?.language ?? 'en'];
}
