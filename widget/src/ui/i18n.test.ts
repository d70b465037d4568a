import { describe, expect, it } from 'vitest';
import { EN, LANGUAGES, isRtl, parseTexts, pickLanguage } from './i18n.js';
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
