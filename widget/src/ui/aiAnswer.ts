/**
 * Issue 17: how an assistant's answer shows in the widget — the assistant's name with an "AI"
 * marker, the source it cites (page title as a link, or the document's name), "Was this helpful?"
 * (yes / no) and "Talk to a person". Its texts are their own small table (English, and the
 * languages translated so far; any other language reads English) so the 80-language table of
 * i18n.ts stays complete.
 */
import type { MessageAiDto } from '@parley/shared';
import { h } from './dom.js';

const KEYS = ['assistant', 'helpful', 'yes', 'no', 'person', 'voted', 'source'] as const;
export type AiTexts = Record<(typeof KEYS)[number], string>;

const TABLE: Record<string, string> = {
  en: 'Assistant|Was this helpful?|Yes|No|Talk to a person|Thanks for letting us know.|Source',
  de: 'Assistent|War das hilfreich?|Ja|Nein|Mit einem Menschen sprechen|Danke für die Rückmeldung.|Quelle',
  es: 'Asistente|¿Te ha sido útil?|Sí|No|Hablar con una persona|Gracias por decírnoslo.|Fuente',
  fr: 'Assistant|Cette réponse vous a-t-elle aidé ?|Oui|Non|Parler à une personne|Merci de nous l’avoir dit.|Source',
  it: 'Assistente|Ti è stato utile?|Sì|No|Parla con una persona|Grazie per avercelo detto.|Fonte',
  nl: 'Assistent|Was dit nuttig?|Ja|Nee|Met een mens praten|Bedankt voor je reactie.|Bron',
  pt: 'Assistente|Isto foi útil?|Sim|Não|Falar com uma pessoa|Obrigado por nos dizer.|Fonte',
};

/** The AI texts in `lang` (its base language, else English). */
export function aiTexts(lang: string): AiTexts {
  const line = TABLE[lang] ?? TABLE[lang.split('-')[0]!] ?? TABLE.en!;
  const values = line.split('|');
  return Object.fromEntries(KEYS.map((k, i) => [k, values[i]!])) as AiTexts;
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
 * What goes under the answer's bubble: the citation, then the vote (or the thanks once voted) and
 * "Talk to a person" (gone once a person was asked for).
 */
export function aiExtras(id: number, ai: MessageAiDto, t: AiTexts, on: AiHandlers, handedOver: boolean): HTMLElement[] {
  const out: HTMLElement[] = [];
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
