import { describe, expect, it } from 'vitest';
import { widgetLanguage } from '../lang.js';
import { EN, LANGUAGES, browserLanguages, isRtl, parseTexts, pickLanguage, plural } from './i18n.js';
import { TABLE } from './texts.js';

describe('languages', () => {
  it('ships 50+ languages, each with every text (none missing, none extra), and the picker knows exactly those', () => {
    const count = Object.keys(parseTexts(EN)).length;
    expect(LANGUAGES.length).toBeGreaterThanOrEqual(50);
    expect(Object.keys(TABLE).sort()).toEqual([...LANGUAGES].sort());
    for (const [code, line] of Object.entries(TABLE)) {
      const texts = Object.values(parseTexts(line));
      expect(texts.filter(Boolean), code).toHaveLength(count);
      expect(line.split('|'), code).toHaveLength(count);
    }
  });

  it('picks the first browser language it has: exact tag, then script, then base language', () => {
    expect(pickLanguage(['de-AT', 'en'])).toBe('de');
    expect(pickLanguage(['pt-BR'])).toBe('pt-br');
    expect(pickLanguage(['pt-PT'])).toBe('pt');
    expect(pickLanguage(['zh-TW'])).toBe('zh-tw');
    expect(pickLanguage(['zh-Hant-HK'])).toBe('zh-tw');
    expect(pickLanguage(['zh-CN'])).toBe('zh');
    expect(pickLanguage(['nn-NO'])).toBe('nb');
    expect(pickLanguage(['iw'])).toBe('he');
    expect(pickLanguage(['fr_CA'])).toBe('fr');
  });

  it('falls back to a later browser language, then to English', () => {
    expect(pickLanguage(['xx-YY', 'es-MX'])).toBe('es');
    expect(pickLanguage(['tlh', 'qya'])).toBe('en');
    expect(pickLanguage([])).toBe('en');
  });

  it('writes Arabic, Hebrew, Persian and Urdu right to left', () => {
    for (const code of ['ar', 'he', 'fa', 'ur']) expect(isRtl(pickLanguage([code]))).toBe(true);
    for (const code of ['en', 'de', 'ja', 'zh-tw']) expect(isRtl(code)).toBe(false);
  });

  it('keeps the accessible names the end-to-end test relies on in English', () => {
    const t = parseTexts(EN);
    expect([t.open, t.type, t.send, t.attach]).toEqual(['Open chat', 'Type a message', 'Send', 'Attach image']);
  });
});

describe('plural forms (issue 13)', () => {
  const unread = (code: string) => parseTexts(TABLE[code]!).unread;
  it('says "1 непрочитанное", "3 непрочитанных", "5 непрочитанных", "21 непрочитанное" in Russian, by Intl.PluralRules', () => {
    expect([1, 3, 5, 11, 21, 22].map((n) => `${n} ${plural(unread('ru'), n, 'ru')}`)).toEqual([
      '1 непрочитанное',
      '3 непрочитанных',
      '5 непрочитанных',
      '11 непрочитанных',
      '21 непрочитанное',
      '22 непрочитанных',
    ]);
    expect(`${2} ${plural(unread('pl'), 2, 'pl')}`).toBe('2 nieprzeczytane');
    expect(`${5} ${plural(unread('pl'), 5, 'pl')}`).toBe('5 nieprzeczytanych');
  });

  it('uses a text without forms for every count', () => {
    expect(plural('unread', 1, 'en')).toBe('unread');
    expect(plural('unread', 7, 'en')).toBe('unread');
  });

  it('writes every right-to-left language right to left, shipped or not (ps, ckb, yi, ug, sd too)', () => {
    for (const code of ['ar', 'he', 'fa', 'ur', 'ps', 'ckb', 'yi', 'ug', 'sd', 'ar-EG', 'fa-IR']) expect(isRtl(code), code).toBe(true);
  });

  it('a language the owner forces wins over the browser; an unknown one falls back to the browser', () => {
    expect(widgetLanguage('ru')).toBe('ru');
    expect(widgetLanguage('klingon')).toBe(pickLanguage(browserLanguages()));
    expect(widgetLanguage('')).toBe(pickLanguage(browserLanguages()));
  });
});

describe('the footer credit in every language (issue 13)', () => {
  it('has a "Powered by" text with the product name placed by the language', () => {
    for (const [code, line] of Object.entries(TABLE)) expect(parseTexts(line).poweredBy, code).toContain('{name}');
    expect(parseTexts(TABLE.ru!).poweredBy.replace('{name}', 'Parley')).toBe('Работает на Parley');
  });
});
