/**
 * Issue 17: how an assistant's answer shows in the widget — the assistant's name with an "AI"
 * marker, the source it cites (page title as a link, or the document's name), "Was this helpful?"
 * (yes / no) and "Talk to a person" — and the hand-over message worded in the visitor's language
 * and time zone (when the team is back, or how soon it usually replies). English is built in; the
 * other languages' words (aiTexts.ts) are each a module of their own, fetched with the first answer.
 */
import type { MessageAiDto, MessageHandoverDto } from '@parley/shared';
import * as self from './aiAnswer.js';
import { h } from './dom.js';

/** The order of the words in a language's line (aiTexts.ts). */
export const AI_KEYS = [
  'assistant', 'helpful', 'yes', 'no', 'person', 'voted', 'source',
  'takeOver', 'soon', 'fewMinutes', 'underHour', 'fewHours', 'aDay', 'fewDays', 'backToday', 'backTomorrow', 'backOn',
] as const;
export type AiTexts = Record<(typeof AI_KEYS)[number], string>;

/** English, built in (equal to AI_TABLE.en, aiAnswer.test.ts). */
export const AI_EN =
  "Assistant|Was this helpful?|Yes|No|Talk to a person|Thanks for letting us know.|Source|I'm asking a member of our team to take over.|A member of our team will answer you here as soon as they can.|Our team usually replies in a few minutes.|Our team usually replies in under an hour.|Our team usually replies in a few hours.|Our team usually replies in a day.|Our team usually replies in a few days.|We're back today at {time}.|We're back tomorrow at {time}.|We're back {day} at {time}.";

export function parseAiTexts(line: string): AiTexts {
  const values = line.split('|');
  return Object.fromEntries(AI_KEYS.map((k, i) => [k, values[i] ?? ''])) as AiTexts;
}

/** Replaced at build time with the language modules' hash (build.mjs). */
declare const __LANG_HASH__: string;

const loaded: Record<string, AiTexts> = {};

/** The language's line from dist/lang/<code>.ai-<hash>.js (build.mjs). */
const fetchLine = (lang: string, base: string): Promise<string> =>
  import(/* @vite-ignore */ `${base}/widget/lang/${lang}.ai-${__LANG_HASH__}.js`).then((m: { default: string }) => m.default);

/**
 * Fetches the AI words of `lang` once (English needs none); `aiTexts` returns them afterwards. A
 * language that fails to load reads English this time and is tried again with the next answer.
 */
export async function loadAiTexts(lang: string, base: string, read: (lang: string, base: string) => Promise<string> = fetchLine): Promise<AiTexts> {
  if (loaded[lang]) return loaded[lang];
  if (lang !== 'en' && (read !== fetchLine || typeof __LANG_HASH__ !== 'undefined')) {
    try {
      const t = parseAiTexts(await read(lang, base));
      if (t.backOn) return (loaded[lang] = t);
    } catch {
      // offline or an old build: English for now
    }
  }
  return parseAiTexts(AI_EN);
}

/** This module once `lang`'s words are loaded (chat.ts hands it to the view then). */
export const withTexts = (lang: string, base: string): Promise<typeof self> => loadAiTexts(lang, base).then(() => self);

/** The AI words in `lang` once loaded (loadAiTexts), else English. */
export function aiTexts(lang: string): AiTexts {
  return loaded[lang] ?? parseAiTexts(AI_EN);
}

/** The calendar date of `d` in `timeZone` (undefined: the browser's), as a day number. */
function dayNumber(d: Date, timeZone: string | undefined): number {
  const [y, m, day] = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d).split('-').map(Number);
  return Date.UTC(y!, m! - 1, day!) / 86_400_000;
}

/**
 * "We're back Monday at 09:00.": the next opening as the visitor reads it, in their language and
 * their own time zone (the browser's, unless `timeZone` is given): today, tomorrow, a weekday, or
 * a week or more ahead its date too.
 */
export function backText(at: Date, t: AiTexts, lang: string, now = new Date(), timeZone?: string): string {
  const days = dayNumber(at, timeZone) - dayNumber(now, timeZone);
  const time = new Intl.DateTimeFormat(lang, { timeZone, hour: '2-digit', minute: '2-digit' }).format(at);
  const day = new Intl.DateTimeFormat(lang, days < 7 ? { timeZone, weekday: 'long' } : { timeZone, weekday: 'long', day: 'numeric', month: 'long' }).format(at);
  const line = days <= 0 ? t.backToday : days === 1 ? t.backTomorrow : t.backOn;
  return line.replace('{day}', day).replace('{time}', time);
}

/** How soon the team usually replies, in the same broad steps as the server's English (ai/visitors.ts replyTimeText). */
export function replyText(seconds: number | null, t: AiTexts): string {
  if (seconds === null) return t.soon;
  return seconds <= 600 ? t.fewMinutes : seconds < 3600 ? t.underHour : seconds < 72_000 ? t.fewHours : seconds < 129_600 ? t.aDay : t.fewDays;
}

/** The assistant's hand-over message in the visitor's words: a person takes over, and when. */
export function handoverText(hv: MessageHandoverDto, t: AiTexts, lang: string, now = new Date(), timeZone?: string): string {
  const at = hv.back_at ? new Date(hv.back_at) : null;
  return `${t.takeOver} ${at && !Number.isNaN(at.getTime()) ? backText(at, t, lang, now, timeZone) : replyText(hv.reply_seconds, t)}`;
}

export interface AiHandlers {
  vote(messageId: number, vote: 'helpful' | 'not_helpful'): void;
  handover(): void;
}

/** Only links a visitor can follow safely: http(s). */
const WEB = /^https?:\/\//i;

/** The author line of an assistant's answer: its name and the "AI" marker. */
export function aiAuthor(t: AiTexts): HTMLElement {
  return h('span', { class: 'a' }, t.assistant, ' ', h('abbr', { class: 'ai', title: 'AI' }, 'AI'));
}

/**
 * Shows a bot message that carries `ai` (render.ts) as the assistant's: its name and marker, the
 * hand-over in the visitor's words (in place of the stored English), and what goes under it.
 */
export function decorate(row: HTMLElement, id: number, ai: MessageAiDto, t: AiTexts, on: AiHandlers, handedOver: boolean, lang: string): void {
  const by = row.querySelector('.a');
  if (by) by.replaceWith(aiAuthor(t));
  else row.prepend(aiAuthor(t));
  const bubble = row.querySelector('.bu');
  if (ai.handover && bubble) bubble.textContent = handoverText(ai.handover, t, lang);
  row.append(...aiExtras(id, ai, t, on, handedOver));
}

/**
 * What goes under the answer's bubble: the citation, then the vote (or the thanks once voted) and
 * "Talk to a person" (gone once a person was asked for); nothing under the hand-over message.
 */
export function aiExtras(id: number, ai: MessageAiDto, t: AiTexts, on: AiHandlers, handedOver: boolean): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (ai.handover) return out; // the hand-over itself: nothing to vote on, a person is already asked for
  const c = ai.citation;
  if (c) {
    const title = c.title || c.url || '';
    out.push(h('div', { class: 'ci' }, `${t.source}: `, c.url && WEB.test(c.url) ? h('a', { href: c.url, target: '_blank', rel: 'noopener' }, title) : title));
  }
  const row = h('div', { class: 'fb' });
  if (ai.vote) row.append(h('span', { role: 'status' }, t.voted));
  else {
    const yes = h('button', { type: 'button' }, t.yes);
    const no = h('button', { type: 'button' }, t.no);
    yes.onclick = () => on.vote(id, 'helpful');
    no.onclick = () => on.vote(id, 'not_helpful');
    row.append(h('span', { role: 'group', 'aria-label': t.helpful }, h('span', {}, t.helpful), ' ', yes, no));
  }
  if (!handedOver) {
    const person = h('button', { type: 'button', class: 'hp' }, t.person);
    person.onclick = () => on.handover();
    row.append(person);
  }
  out.push(row);
  return out;
}

export const AI_CSS = `.a .ai{display:inline-block;margin-inline-start:4px;padding:0 5px;border-radius:6px;background:#e8eaf0;color:#3b4350;font-size:10px;font-weight:700;text-decoration:none}
.ci{font-size:12px;color:#57606a;margin:3px 4px 0}.ci a{color:inherit}
.fb{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px;font-size:12px;color:#57606a;margin:3px 4px 0}
.fb button{border:1px solid #d0d7de;background:#fff;color:#1f2328;border-radius:10px;padding:2px 10px;font:inherit;cursor:pointer;margin-inline-start:4px}
.fb .hp{border-color:var(--c);color:#1f2328}.fb button:focus-visible{outline:2px solid #1a73e8;outline-offset:1px}`;
