import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GREETING_LANGUAGE_INVALID, WIDGET_LANGUAGE_INVALID } from '@parley/shared';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const publicSettings = async (key: string) => (await call(t.app, 'GET', `/api/widget-settings?unique_code=${key}`)).body.data;

describe('the widget language (issue 13)', () => {
  it('follows the browser by default; the owner forces a language and sets greetings per language, which the public settings carry', async () => {
    expect((await call(t.app, 'GET', '/api/vms/widget-language', { token: owner.token })).body.data).toEqual({ language: '', greetings_by_language: {} });
    expect(await publicSettings(owner.widgetKey)).toMatchObject({ language: '', greetings_by_language: {} });
    const body = { language: 'ru', greetings_by_language: { ru: { initial_greeting: '  Здравствуйте! Чем помочь?  ', follow_up_greeting: '' }, ar: { initial_greeting: 'مرحبا! كيف نساعدك؟' } } };
    const saved = await call(t.app, 'PUT', '/api/vms/widget-language', { token: owner.token, body });
    expect(saved.status).toBe(200);
    const expected = { language: 'ru', greetings_by_language: { ru: { initial_greeting: 'Здравствуйте! Чем помочь?', follow_up_greeting: '' }, ar: { initial_greeting: 'مرحبا! كيف نساعدك؟', follow_up_greeting: '' } } };
    expect(saved.body.data).toEqual(expected);
    expect(await publicSettings(owner.widgetKey)).toMatchObject(expected);
    // The default greetings stay as they were.
    expect((await publicSettings(owner.widgetKey)).initial_greeting).toBe('Hello! How can we assist you today?');
  });

  it.each([
    [{ language: 'klingon', greetings_by_language: {} }, 'language', WIDGET_LANGUAGE_INVALID],
    [{ language: '', greetings_by_language: { xx: { initial_greeting: 'Hi' } } }, 'greetings_by_language', GREETING_LANGUAGE_INVALID],
    [{ language: '', greetings_by_language: { de: { initial_greeting: '   ' } } }, 'greetings_by_language.de.initial_greeting', 'Initial greeting is required'],
    [{ language: '', greetings_by_language: { de: { initial_greeting: 'x'.repeat(501) } } }, 'greetings_by_language.de.initial_greeting', 'Greetings must be at most 500 characters'],
  ])('refuses %j with 422 and changes nothing', async (body, field, message) => {
    const before = (await call(t.app, 'GET', '/api/vms/widget-language', { token: owner.token })).body.data;
    const res = await call(t.app, 'PUT', '/api/vms/widget-language', { token: owner.token, body });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toContain(message);
    expect((await call(t.app, 'GET', '/api/vms/widget-language', { token: owner.token })).body.data).toEqual(before);
  });

  it('an Admin may change it, an Agent only reads it; another account never sees or changes this one', async () => {
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    expect((await call(t.app, 'PUT', '/api/vms/widget-language', { token: admin.token, body: { language: 'de', greetings_by_language: {} } })).status).toBe(200);
    expect((await call(t.app, 'PUT', '/api/vms/widget-language', { token: agent.token, body: { language: 'fr', greetings_by_language: {} } })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/widget-language', { token: agent.token })).body.data.language).toBe('de');
    const other = await buildAccount(t.app);
    expect((await call(t.app, 'GET', '/api/vms/widget-language', { token: other.token })).body.data.language).toBe('');
    await call(t.app, 'PUT', '/api/vms/widget-language', { token: other.token, body: { language: 'ja', greetings_by_language: {} } });
    expect((await publicSettings(owner.widgetKey)).language).toBe('de');
    expect((await publicSettings(other.widgetKey)).language).toBe('ja');
  });
});
