// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import type { PublicSettings } from '../types.js';
import { WIDGET_LANGUAGES, isRtlLanguage } from '../../../shared/src/languages.js';
import * as AiAnswer from './aiAnswer.js';
import { AI_EN, AI_KEYS, aiTexts, backText, handoverText, loadAiTexts, parseAiTexts } from './aiAnswer.js';
import { AI_TABLE } from './aiTexts.js';
import { EN, parseTexts } from './i18n.js';
import { TABLE } from './texts.js';
import type { ChatMessage } from './merge.js';
import { View } from './render.js';

const settings = { name: 'Acme Support', title: 'We help', color: '#3366ff', avatar_url: '', initial_greeting: '', follow_up_greeting: '', agent_online: true, powered_by: '' } as unknown as PublicSettings;

function view(handlers: { vote?: (id: number, v: string) => void; handover?: () => void } = {}) {
  const host = document.createElement('div');
  document.body.append(host);
  const v = new View(host.attachShadow({ mode: 'open' }), { base: 'https://chat.example.com', settings, handlers });
  v.setOpen(true);
  v.setAi(AiAnswer);
  return { v, root: host.shadowRoot! };
}

const at = '2026-11-24T06:00:00.000Z';
const base = { visitor_id: 'v', file_path: '', author_id: null, author_name: null, client_id: null, created_at: at };
const asked: ChatMessage = { ...base, id: 1, message: 'Do you ship abroad?', sender_type: 'visitor' };
const answer = (ai: ChatMessage['ai'], id = 2): ChatMessage => ({ ...base, id, message: 'We ship worldwide in 3-5 days.', sender_type: 'bot', ai });
const rows = (root: ShadowRoot) => [...root.querySelectorAll('.ls > .m')] as HTMLElement[];
const buttons = (row: HTMLElement) => [...row.querySelectorAll('button')].map((b) => b.textContent);

describe("the assistant's answer in the widget", () => {
  it('shows as a plain bot message until its view has loaded', () => {
    const host = document.createElement('div');
    const v = new View(host.attachShadow({ mode: 'open' }), { base: '', settings });
    v.setMessages([answer({ citation: { title: 'Shipping', url: 'https://shop.example.com/shipping' }, vote: null })]);
    expect(rows(host.shadowRoot!)[0]!.querySelector('.a')!.textContent).toBe('Acme Support');
    v.setAi(AiAnswer);
    v.setMessages([answer({ citation: { title: 'Shipping', url: 'https://shop.example.com/shipping' }, vote: null })]);
    expect(rows(host.shadowRoot!)[0]!.querySelector('.a')!.textContent).toBe('Assistant AI');
  });

  it('shows the assistant with the AI marker, the cited page as a link in a new tab, and the controls', () => {
    const { v, root } = view();
    v.setMessages([asked, answer({ citation: { title: 'Shipping', url: 'https://shop.example.com/shipping' }, vote: null })]);
    const row = rows(root)[1]!;
    expect(row.querySelector('.a')!.textContent).toBe('Assistant AI');
    expect(row.querySelector('.a abbr')!.textContent).toBe('AI');
    const link = row.querySelector('.ci a') as HTMLAnchorElement;
    expect(row.querySelector('.ci')!.textContent).toBe('Source: Shipping');
    expect([link.getAttribute('href'), link.target, link.rel]).toEqual(['https://shop.example.com/shipping', '_blank', 'noopener']);
    expect(row.textContent).toContain('Was this helpful?');
    expect(buttons(row)).toEqual(['Yes', 'No', 'Talk to a person']);
    // The visitor's own message has none of it.
    expect(rows(root)[0]!.querySelector('.ci, .fb')).toBeNull();
  });

  it("names a document without a link, and never links a source that is not a web page", () => {
    const { v, root } = view();
    v.setMessages([answer({ citation: { title: 'Care guide.pdf', url: null }, vote: null }), answer({ citation: { title: 'Bad', url: 'javascript:alert(1)' }, vote: null }, 3)]);
    const [doc, bad] = rows(root);
    expect(doc!.querySelector('.ci')!.textContent).toBe('Source: Care guide.pdf');
    expect(doc!.querySelector('.ci a')).toBeNull();
    expect(bad!.querySelector('.ci a')).toBeNull();
  });

  it('sends the vote and the hand-over; once voted it thanks, once handed over "Talk to a person" goes', () => {
    const vote = vi.fn();
    const handover = vi.fn();
    const { v, root } = view({ vote, handover });
    v.setMessages([asked, answer({ citation: null, vote: null })]);
    const row = rows(root)[1]!;
    expect(row.querySelector('.ci')).toBeNull(); // a learned answer cites nothing
    (row.querySelectorAll('button')[1] as HTMLButtonElement).click();
    expect(vote).toHaveBeenCalledWith(2, 'not_helpful');
    (row.querySelector('.hp') as HTMLButtonElement).click();
    expect(handover).toHaveBeenCalledTimes(1);

    v.setHandedOver();
    v.setMessages([asked, answer({ citation: null, vote: 'not_helpful' })]);
    const after = rows(root)[1]!;
    expect(buttons(after)).toEqual([]);
    expect(after.querySelector('[role=status]')!.textContent).toBe('Thanks for letting us know.');
  });

  it('a bot message that is not an answer (the hand-over line) shows as before', () => {
    const { v, root } = view();
    v.setMessages([{ ...base, id: 5, message: "I'm asking a member of our team to take over.", sender_type: 'bot' }]);
    const row = rows(root)[0]!;
    expect(row.querySelector('.a')!.textContent).toBe('Acme Support');
    expect(row.querySelector('.fb')).toBeNull();
  });

  it('shows the hand-over in the visitor\'s words, with no controls, and takes "Talk to a person" off earlier answers (also after a reload)', async () => {
    await loadAiTexts('de', '', async () => AI_TABLE.de!);
    const host = document.createElement('div');
    const v = new View(host.attachShadow({ mode: 'open' }), { base: '', settings, lang: 'de' });
    v.setAi(AiAnswer);
    const handover = { ...base, id: 7, message: "I'm asking a member of our team to take over. Our team usually replies in a few minutes.", sender_type: 'bot' as const, ai: { citation: null, vote: null, handover: { back_at: null, reply_seconds: 240 } } };
    v.setMessages([asked, answer({ citation: null, vote: null }), handover]);
    const [, earlier, last] = rows(host.shadowRoot!);
    expect(last!.querySelector('.bu')!.textContent).toBe('Ich bitte ein Mitglied unseres Teams, zu übernehmen. Unser Team antwortet normalerweise innerhalb weniger Minuten.');
    expect(last!.querySelector('.a')!.textContent).toBe('Assistent AI');
    expect(last!.querySelector('.fb, .ci')).toBeNull();
    expect(buttons(earlier!)).toEqual(['Ja', 'Nein']);
  });
});

describe('the away text outside business hours', () => {
  const away = (lang: string, back_at: string | null) => {
    const host = document.createElement('div');
    const texts = lang === 'en' ? undefined : parseTexts(TABLE[lang]!);
    const v = new View(host.attachShadow({ mode: 'open' }), { base: '', settings: { ...settings, agent_online: false, back_at }, lang, texts });
    return { v, line: () => host.shadowRoot!.querySelector('form.o p')!.textContent };
  };
  const inThreeDays = new Date(Date.now() + 3 * 86_400_000);
  inThreeDays.setUTCHours(8, 0, 0, 0);

  it("says when the team is back, in the visitor's language and own time, once the answer view's words are loaded", async () => {
    await loadAiTexts('de', '', async () => AI_TABLE.de!);
    const { v, line } = away('de', inThreeDays.toISOString());
    const de = parseTexts(TABLE.de!).away;
    expect(line()).toBe(de);
    v.setAi(AiAnswer);
    const weekday = new Intl.DateTimeFormat('de', { weekday: 'long' }).format(inThreeDays);
    const time = new Intl.DateTimeFormat('de', { hour: '2-digit', minute: '2-digit' }).format(inThreeDays);
    expect(line()).toBe(`${de} Wir sind am ${weekday} um ${time} zurück.`);
  });

  it('follows the settings as they change, and says nothing more within the hours or once the time is past', () => {
    const { v, line } = away('en', null);
    v.setAi(AiAnswer);
    expect(line()).toBe(parseTexts(EN).away);
    v.applySettings({ ...settings, agent_online: false, back_at: inThreeDays.toISOString() });
    expect(line()).toMatch(/^We're away\. Leave a message and we'll reply by email\. We're back \w+day at \d\d:\d\d( [AP]M)?\.$/);
    v.applySettings({ ...settings, agent_online: false, back_at: new Date(Date.now() - 60_000).toISOString() });
    expect(line()).toBe(parseTexts(EN).away);
  });
});

describe("the assistant's words in every language", () => {
  it('every language the widget ships has every text, its placeholders, and English is the one built in', () => {
    expect(Object.keys(AI_TABLE).sort()).toEqual([...WIDGET_LANGUAGES].sort());
    expect(AI_TABLE.en).toBe(AI_EN);
    const english = parseAiTexts(AI_EN);
    for (const [lang, line] of Object.entries(AI_TABLE)) {
      const values = line.split('|');
      expect(values, lang).toHaveLength(AI_KEYS.length);
      for (const [i, value] of values.entries()) expect(value.trim(), `${lang} ${AI_KEYS[i]}`).not.toBe('');
      const t = parseAiTexts(line);
      for (const k of ['backToday', 'backTomorrow', 'backOn'] as const) expect(t[k], `${lang} ${k}`).toContain('{time}');
      expect(t.backOn, lang).toContain('{day}');
      expect(`${t.backToday}${t.backTomorrow}`, lang).not.toContain('{day}');
      // Translated, not English left in (names that stay the same, like "Assistant" or "Source", may).
      if (lang !== 'en') for (const k of ['takeOver', 'soon', 'fewMinutes', 'backOn'] as const) expect(t[k], `${lang} ${k}`).not.toBe(english[k]);
      // Right-to-left languages are written in their script.
      if (isRtlLanguage(lang)) expect(t.takeOver, lang).toMatch(/[\u0590-\u08ff]/);
    }
  });

  it('loads a language once; English until then, and when the module cannot be fetched', async () => {
    const read = vi.fn(async (lang: string) => AI_TABLE[lang]!);
    expect(aiTexts('sw').person).toBe('Talk to a person');
    expect((await loadAiTexts('sw', 'https://chat.example.com', read)).person).toBe('Ongea na mtu');
    await loadAiTexts('sw', 'https://chat.example.com', read);
    expect(read).toHaveBeenCalledTimes(1);
    expect(aiTexts('sw').person).toBe('Ongea na mtu');
    expect((await loadAiTexts('ja', '', async () => Promise.reject(new Error('offline')))).person).toBe('Talk to a person');
    expect((await loadAiTexts('ja', '', async () => AI_TABLE.ja!)).person).toBe('担当者と話す');
  });

  it('words the typical reply time in the same steps as the server (server/ai/visitors.ts replyTimeText)', () => {
    const t = parseAiTexts(AI_EN);
    const said = (s: number | null) => handoverText({ back_at: null, reply_seconds: s }, t, 'en').replace("I'm asking a member of our team to take over. ", '');
    expect([null, 90, 600, 22 * 60, 3 * 3600, 25 * 3600, 3 * 86400].map(said)).toEqual([
      'A member of our team will answer you here as soon as they can.',
      'Our team usually replies in a few minutes.',
      'Our team usually replies in a few minutes.',
      'Our team usually replies in under an hour.',
      'Our team usually replies in a few hours.',
      'Our team usually replies in a day.',
      'Our team usually replies in a few days.',
    ]);
  });

  it("says when the team is back in the visitor's language and time zone", () => {
    const now = new Date('2026-11-27T17:00:00Z'); // Friday
    const monday9Berlin = { back_at: '2026-11-30T08:00:00.000Z', reply_seconds: null };
    const en = parseAiTexts(AI_EN);
    expect(handoverText(monday9Berlin, en, 'en-GB', now, 'Europe/Berlin')).toBe("I'm asking a member of our team to take over. We're back Monday at 09:00.");
    // The same opening, read in Tokyo (Monday 17:00) and in New York (Monday 03:00).
    expect(backText(new Date(monday9Berlin.back_at), en, 'en-GB', now, 'Asia/Tokyo')).toBe("We're back Monday at 17:00.");
    expect(backText(new Date(monday9Berlin.back_at), en, 'en-GB', now, 'America/New_York')).toBe("We're back Monday at 03:00.");
    const de = parseAiTexts(AI_TABLE.de!);
    expect(backText(new Date(monday9Berlin.back_at), de, 'de', now, 'Europe/Berlin')).toBe('Wir sind am Montag um 09:00 zurück.');
    expect(backText(new Date('2026-11-27T19:30:00Z'), de, 'de', now, 'Europe/Berlin')).toBe('Wir sind heute um 20:30 zurück.');
    expect(backText(new Date('2026-11-28T08:00:00Z'), de, 'de', now, 'Europe/Berlin')).toBe('Wir sind morgen um 09:00 zurück.');
    // A week or more ahead names the date too.
    expect(backText(new Date('2026-12-04T08:00:00Z'), de, 'de', now, 'Europe/Berlin')).toBe('Wir sind am Freitag, 4. Dezember um 09:00 zurück.');
    // Languages that decline the weekday name it after a colon.
    expect(backText(new Date(monday9Berlin.back_at), parseAiTexts(AI_TABLE.ru!), 'ru', now, 'Europe/Moscow')).toBe('Мы вернёмся: понедельник, 11:00.');
    // Right to left: Arabic.
    expect(backText(new Date(monday9Berlin.back_at), parseAiTexts(AI_TABLE.ar!), 'ar', now, 'Asia/Riyadh')).toContain('سنعود يوم الاثنين');
  });
});
