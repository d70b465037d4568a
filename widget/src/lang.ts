/**
 * Which language the widget speaks (issue 13), decided once by the loader so the launcher's side
 * (left in right-to-left languages) is right before the UI arrives, and handed to the UI: the one
 * the owner forces, else the first of the browser's languages the widget ships, else English.
 */
import { WIDGET_LANGUAGES, isRtlLanguage } from '../../shared/src/languages.js';

/** Old or regional codes that share another entry's texts. */
const ALIAS: Record<string, string> = {
  no: 'nb', nn: 'nb', iw: 'he', tl: 'fil', in: 'id', 'zh-hant': 'zh-tw', 'zh-hk': 'zh-tw', 'zh-mo': 'zh-tw', 'zh-hans': 'zh', 'zh-cn': 'zh', 'zh-sg': 'zh',
};

/** The first of the browser's languages we have (exact, then its script, then its base language), else English. */
export function pickLanguage(preferred: readonly string[]): string {
  for (const raw of preferred) {
    const tag = String(raw).toLowerCase().replace('_', '-');
    const parts = tag.split('-');
    for (const candidate of [tag, parts.slice(0, 2).join('-'), parts[0] ?? '']) {
      const code = ALIAS[candidate] ?? candidate;
      if (WIDGET_LANGUAGES.includes(code)) return code;
    }
  }
  return 'en';
}

/** The browser's languages, most preferred first. */
export function browserLanguages(): readonly string[] {
  const nav = typeof navigator === 'undefined' ? undefined : navigator;
  return nav?.languages?.length ? nav.languages : [nav?.language ?? 'en'];
}

/** The owner's forced language when it is one we ship, else the browser's. */
export function widgetLanguage(forced: string | undefined): string {
  return forced && WIDGET_LANGUAGES.includes(forced) ? forced : pickLanguage(browserLanguages());
}

export const isRtl = isRtlLanguage;

/** The browser's IANA time zone (the console's side panel shows the visitor's local time), if it has one. */
export function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}
