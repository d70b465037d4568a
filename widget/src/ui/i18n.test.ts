import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { ERROR_CODES } from '../../../shared/src/errorCodes.js';
import { ERROR_TABLE } from './errorTexts.js';
import { widgetLanguage } from '../lang.js';
import { EN, LANGUAGES, PLURAL_KEYS, browserLanguages, isRtl, parseTexts, pickLanguage, plural } from './i18n.js';
import { ERROR_KEYS, refusalKey, refusalText } from './refusals.js';
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
    expect([1, 3, 5, 11, 21, 22].map((n) => plural(unread('ru'), n, 'ru'))).toEqual([
      '1 непрочитанное',
      '3 непрочитанных',
      '5 непрочитанных',
      '11 непрочитанных',
      '21 непрочитанное',
      '22 непрочитанных',
    ]);
    expect(plural(unread('pl'), 2, 'pl')).toBe('2 nieprzeczytane');
    expect(plural(unread('pl'), 5, 'pl')).toBe('5 nieprzeczytanych');
  });

  it('places the count where the language puts it, and words it by category (Arabic, Japanese, Welsh, Romanian, English)', () => {
    expect([0, 1, 2, 3, 11, 100].map((n) => plural(unread('ar'), n, 'ar'))).toEqual([
      'لا رسائل غير مقروءة',
      'رسالة واحدة غير مقروءة',
      'رسالتان غير مقروءتين',
      '3 رسائل غير مقروءة',
      '11 رسالة غير مقروءة',
      '100 رسالة غير مقروءة',
    ]);
    expect(plural(unread('ja'), 4, 'ja')).toBe('未読 4 件');
    expect(plural(unread('zh'), 4, 'zh')).toBe('4 条未读');
    expect([1, 2, 20].map((n) => plural(unread('ro'), n, 'ro'))).toEqual(['1 necitit', '2 necitite', '20 de necitite']);
    expect([1, 2].map((n) => plural(parseTexts(EN).unread, n, 'en'))).toEqual(['1 unread', '2 unread']);
  });

  it('has, in every language, a form for every plural category its Intl.PluralRules can return, each naming the count', () => {
    expect(PLURAL_KEYS).toContain('unread');
    for (const [code, line] of Object.entries(TABLE)) {
      const texts = parseTexts(line);
      const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
      for (const key of PLURAL_KEYS) {
        const forms = Object.fromEntries(texts[key].split(';').map((f) => f.split(/:(.*)/s, 2)));
        expect(Object.keys(forms).sort(), `${code} ${key}`).toEqual([...categories].sort());
        for (const category of categories) {
          expect(forms[category]?.trim(), `${code} ${key} ${category}`).toBeTruthy();
          // Every form but a spelled-out count (Arabic "رسالة واحدة", Hebrew "הודעה אחת") shows the number.
          const spelled = (code === 'ar' && ['zero', 'one', 'two'].includes(category)) || (code === 'he' && ['one', 'two'].includes(category));
          if (!spelled) expect(forms[category], `${code} ${key} ${category}`).toContain('{n}');
        }
        // Each count from 0 to 200 gets a non-empty text.
        for (let n = 0; n <= 200; n++) expect(plural(texts[key], n, code), `${code} ${n}`).not.toBe('');
      }
    }
  });

  it('uses a text without forms for every count', () => {
    expect(plural('unread', 1, 'en')).toBe('unread');
    expect(plural('unread', 7, 'en')).toBe('unread');
  });

  it('ships texts for every right-to-left language it writes right to left (ps, ckb, yi, ug, sd too)', () => {
    for (const code of ['ar', 'he', 'fa', 'ur', 'ps', 'ckb', 'yi', 'ug', 'sd']) {
      expect(LANGUAGES, code).toContain(code);
      expect(pickLanguage([code]), code).toBe(code);
      expect(isRtl(code), code).toBe(true);
      const t = parseTexts(TABLE[code]!);
      expect(t.open, code).not.toBe(parseTexts(EN).open);
      expect(t.poweredBy, code).toContain('{name}');
    }
    expect(pickLanguage(['ckb-IQ'])).toBe('ckb');
    expect(pickLanguage(['sd-Arab-PK'])).toBe('sd');
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

describe('server refusals in the visitor\'s language (issue 13)', () => {
  it('has every refusal text in every language the widget ships', () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual([...LANGUAGES].sort());
    for (const [code, line] of Object.entries(ERROR_TABLE)) {
      const texts = line.split('|');
      expect(texts, code).toHaveLength(ERROR_KEYS.length);
      for (const [i, text] of texts.entries()) expect(text.trim(), `${code} ${ERROR_KEYS[i]}`).not.toBe('');
      if (code !== 'en') expect(line, code).not.toBe(ERROR_TABLE.en);
    }
  });

  it('words each code the server can send a visitor, by status when there is none, else keeps the server\'s words', () => {
    expect(refusalKey({ message: 'Too many requests. Please try again later.', status: 429, code: 'rate_limited' })).toBe('rateLimited');
    expect(refusalKey({ message: 'Please enter a valid email address', status: 422, code: 'email_invalid' })).toBe('email');
    expect(refusalKey({ message: 'The email field is required', status: 422, code: 'email_required' })).toBe('email');
    expect(refusalKey({ message: 'The message field is required', status: 422, code: 'message_required' })).toBe('messageRequired');
    expect(refusalKey({ message: 'There is no conversation to send yet', status: 409, code: 'transcript_nothing_yet' })).toBe('nothingYet');
    expect(refusalKey({ message: 'x', status: 413, code: 'file_too_large' })).toBe('fileSize');
    expect(refusalKey({ message: 'x', status: 415, code: 'file_type' })).toBe('fileType');
    // An older server without codes: the upload words it always sent, then the status.
    expect(refusalKey({ message: 'File size should be less than 5MB', status: 413 })).toBe('fileSize');
    expect(refusalKey({ message: 'Network error', status: 0 })).toBe('network');
    expect(refusalKey({ message: 'Something went wrong. Please try again.', status: 500 })).toBe('server');
    expect(refusalKey({ message: 'Name must be at most 255 characters', status: 422 })).toBe('invalid');
    expect(refusalKey({ message: 'Visitor not found', status: 404 })).toBeUndefined();
    // Every code the server may send a visitor is worded (the rest are never shown: handled or console-only).
    const handled = new Set(['chat_limit', 'already_rated', 'survey_off', 'unknown_widget']);
    for (const code of ERROR_CODES) if (!handled.has(code)) expect(refusalKey({ message: '', status: 400, code }), code).toBeDefined();
  });

  it('shows the visitor their language\'s text, fetched once, and the server\'s words when that cannot load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-err-'));
    mkdirSync(join(dir, 'widget', 'lang'), { recursive: true });
    writeFileSync(join(dir, 'widget', 'lang', 'ru.err-h1.js'), `export default ${JSON.stringify(ERROR_TABLE.ru)};`);
    vi.stubGlobal('__LANG_HASH__', 'h1');
    try {
      const base = pathToFileURL(dir).href;
      const t = parseTexts(TABLE.ru!);
      const tooMany = { message: 'Too many requests. Please try again later.', status: 429, code: 'rate_limited' };
      expect(await refusalText(tooMany, t, 'ru', base)).toBe('Слишком много попыток. Подождите немного и попробуйте снова.');
      expect(await refusalText({ message: 'Please enter a valid email address', status: 422, code: 'email_invalid' }, t, 'ru', base)).toBe('Введите правильный адрес электронной почты.');
      expect(await refusalText({ message: 'x', status: 415, code: 'file_type' }, t, 'ru', base)).toBe(t.fileType);
      expect(await refusalText({ message: 'Visitor not found', status: 404 }, t, 'ru', base)).toBe('Visitor not found');
      // German's module is not there (offline): the server's English words, not nothing.
      expect(await refusalText(tooMany, parseTexts(TABLE.de!), 'de', base)).toBe('Too many requests. Please try again later.');
    } finally {
      vi.unstubAllGlobals();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
